import ChronoscopeCore
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import XCTest

/// Property: whatever the encoder writes within the documented ranges, the reader reads back
/// exactly — for random events with values at the edges of those ranges. Seeds are fixed, so a
/// failure reproduces.
final class TraceEncoderTests: XCTestCase {
  func testRandomEventsAtTheEdgesOfTheirRangesRoundTripThroughTheReader() throws {
    for seed in 1...60 {
      var random = SplitMix64(seed: UInt64(seed))
      let original = Self.randomTrace(&random, events: seed == 1 ? 0 : Int(random.next() % 120))
      let reading = TraceReader.parse(TraceEncoder.encode(original), file: "seed-\(seed)")
      XCTAssertFalse(reading.hasErrors, "seed \(seed): \(reading.diagnostics.prefix(3))")
      let trace = try XCTUnwrap(reading.trace, "seed \(seed)")
      XCTAssertEqual(trace.header, original.header, "seed \(seed)")
      XCTAssertEqual(trace.events, original.events, "seed \(seed)")
      XCTAssertEqual(trace.marks, original.marks, "seed \(seed)")
      // A definition is written where it is first used, with that line's time (as recorders
      // write it): its own time is the layout's.
      let untimed = { (table: [UInt32: SchedulerRecord]) in
        table.mapValues {
          SchedulerRecord(id: $0.id, label: $0.label, kind: $0.kind, family: $0.family, time: 0)
        }
      }
      XCTAssertEqual(untimed(trace.schedulers), untimed(original.schedulers), "seed \(seed)")
      XCTAssertEqual(trace.callSites, original.callSites, "seed \(seed)")
      XCTAssertEqual(trace.threadNames, original.threadNames, "seed \(seed)")
      XCTAssertEqual(trace.closing, original.closing, "seed \(seed)")
      XCTAssertEqual(trace.droppedEvents, original.droppedEvents, "seed \(seed)")
    }
  }

  func testAStringOfTheLongestAllowedLengthRoundTrips() throws {
    var original = Trace(header: TraceHeader(clock: .host, start: "", process: "p", pid: 1))
    original.marks = [
      MarkRecord(name: String(repeating: "é", count: TraceLimits.maximumStringLength / 2))
    ]
    original.events = [.mark(time: TraceLimits.maximumTime, thread: UInt32.max, mark: 0)]
    let trace = try XCTUnwrap(TraceReader.parse(TraceEncoder.encode(original), file: "long").trace)
    XCTAssertEqual(trace.marks, original.marks)
    XCTAssertEqual(trace.events, original.events)
  }

  /// Numbers are written as Swift prints them: every digit count, both sides of each power of
  /// ten, negatives and both ends of `Int64`, in every field position of a line.
  func testEveryNumberIsWrittenAsItsDecimalDigits() throws {
    var values: [Int64] = [0, Int64.max, Int64.min, Int64.min + 1]
    var power: Int64 = 1
    for _ in 0...18 {
      values += [power - 1, power, power + 1, -power, -(power - 1), 2 * (power - 1) + 1]
      if power <= Int64.max / 10 { power *= 10 }
    }
    // Zeros inside the eight-digit chunks the encoder splits numbers into, and random numbers
    // of every length.
    values += [
      100_000_001, 1_000_000_010_000_000, 10_000_000_000_000_001, 9_000_000_000_000_000_009,
    ]
    var random = SplitMix64(seed: 14)
    var limit: Int64 = 10
    for _ in 1...19 {
      for _ in 0..<40 {
        let value = Int64.random(in: 0..<limit, using: &random)
        values += [value, -value]
      }
      limit = limit <= Int64.max / 10 ? limit * 10 : .max
    }
    for value in values {
      var encoder = TraceEncoder()
      encoder.event(.end(time: value, action: 7, thread: 3, run: 2, duration: value))
      let line = String(decoding: encoder.bytes, as: UTF8.self)
      XCTAssertEqual(
        line, "{\"t\":\(value),\"e\":\"end\",\"a\":7,\"th\":3,\"run\":2,\"dur\":\(value)}\n")
    }
  }

  // MARK: - Generating

  /// A value from `range`, often one of its ends.
  private static func edgy(_ range: ClosedRange<Int64>, _ random: inout SplitMix64) -> Int64 {
    switch random.next() % 4 {
    case 0: range.lowerBound
    case 1: range.upperBound
    default: Int64.random(in: range, using: &random)
    }
  }

  private static func id(_ random: inout SplitMix64) -> UInt32 {
    UInt32(edgy(1...Int64(TraceLimits.maximumID), &random))
  }

  private static func thread(_ random: inout SplitMix64) -> UInt32 {
    UInt32(edgy(0...Int64(UInt32.max), &random))
  }

  private static func text(_ random: inout SplitMix64) -> String {
    let pieces = ["a", "é", "漢", "🦆", "\"", "\\", "\n", "\u{1}", "\u{7F}", "\u{200D}", " ", "/"]
    return (0..<random.next() % 12).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
      .joined()
  }

  static func randomTrace(_ random: inout SplitMix64, events count: Int) -> Trace {
    let times = 0...TraceLimits.maximumTime
    var trace = Trace(
      header: TraceHeader(
        clock: random.next() % 2 == 0 ? .host : .virtual, start: text(&random),
        process: text(&random), pid: edgy(Int64.min...Int64.max, &random),
        metadata: [text(&random): text(&random)]))
    for _ in 0..<random.next() % 4 {
      let id = id(&random)
      trace.schedulers[id] = SchedulerRecord(
        id: id, label: text(&random), kind: "serial", family: text(&random), time: 0)
    }
    for _ in 0..<random.next() % 3 {
      let id = id(&random)
      trace.callSites[id] = CallSiteRecord(
        id: id, file: text(&random), line: Int(edgy(0...TraceLimits.maximumSourceLine, &random)),
        function: text(&random))
    }
    trace.threadNames[thread(&random)] = text(&random)
    // Lines are in time order, as the format requires, so the reader has nothing to warn about
    // but semantics.
    var stamps = (0..<count).map { _ in edgy(times, &random) }
    stamps.sort()
    for time in stamps {
      let event: TraceEvent
      switch random.next() % 6 {
      case 0:
        let mode = TraceEvent.ScheduleMode.allCases[Int(random.next() % 4)]
        let timed = mode == .after || mode == .repeating
        event = .schedule(
          time: time, action: id(&random), scheduler: id(&random), mode: mode,
          delay: timed ? edgy(times, &random) : 0, due: edgy(times, &random),
          thread: thread(&random), parent: random.next() % 2 == 0 ? 0 : id(&random),
          site: random.next() % 2 == 0 ? 0 : id(&random))
      case 1:
        event = .begin(
          time: time, action: id(&random), thread: thread(&random),
          run: UInt32(edgy(1...Int64(TraceLimits.maximumRun), &random)))
      case 2:
        event = .end(
          time: time, action: id(&random), thread: thread(&random),
          run: UInt32(edgy(1...Int64(TraceLimits.maximumRun), &random)),
          duration: edgy(times, &random))
      case 3:
        event = .hop(time: time, action: id(&random), from: thread(&random), to: thread(&random))
      case 4:
        event = .cancel(
          time: time, action: id(&random), thread: thread(&random),
          by: random.next() % 2 == 0 ? 0 : id(&random), started: random.next() % 2 == 0)
      default:
        trace.marks.append(
          MarkRecord(
            name: text(&random), fields: random.next() % 2 == 0 ? [:] : ["k": text(&random)]))
        event = .mark(time: time, thread: thread(&random), mark: UInt32(trace.marks.count - 1))
      }
      trace.events.append(event)
    }
    let counts = 0...TraceLimits.maximumCount
    trace.droppedEvents = random.next() % 3 == 0 ? edgy(1...TraceLimits.maximumCount, &random) : 0
    if random.next() % 4 != 0 {
      trace.closing = Trace.Closing(written: edgy(counts, &random), dropped: edgy(counts, &random))
    }
    return trace
  }
}
