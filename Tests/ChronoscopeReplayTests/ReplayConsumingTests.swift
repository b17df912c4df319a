import ChronoscopeCore
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

@_spi(Benchmarks) @testable import ChronoscopeReplay

/// A replay that takes its trace's events hands their memory back as it goes: it must replay
/// exactly what a replay of the same trace does, and never touch a copy someone else holds.
final class ReplayConsumingTests: XCTestCase {
  /// Enough events (about 19 MB of them) that the memory behind the pass is handed back many
  /// times, in a shuffled-looking mix of lives: one-shot, repeating, cancelled, hopping.
  private static func largeTrace(events count: Int, sorted: Bool = true) -> Trace {
    var random = SplitMix64(seed: 14)
    var events: [TraceEvent] = []
    events.reserveCapacity(count)
    var time: Int64 = 0
    var action: UInt32 = 0
    while events.count < count {
      action += 1
      time += Int64(random.next() % 50)
      let thread = UInt32(1 + random.next() % 3)
      let repeating = random.next() % 8 == 0
      events.append(
        .schedule(
          time: time, action: action, scheduler: UInt32(1 + random.next() % 2),
          mode: repeating ? .repeating : .async, delay: repeating ? 10 : 0, due: time,
          thread: thread, parent: action > 1 ? action - 1 : 0, site: 0))
      for run in 1...(repeating ? 3 : 1) {
        events.append(.begin(time: time + 1, action: action, thread: thread, run: UInt32(run)))
        if random.next() % 4 == 0 {
          events.append(.hop(time: time + 1, action: action, from: thread, to: thread + 1))
        }
        events.append(
          .end(time: time + 2, action: action, thread: thread, run: UInt32(run), duration: 1))
        time += 3
      }
      if repeating || random.next() % 5 == 0 {
        events.append(
          .cancel(time: time, action: action, thread: thread, by: 0, started: !repeating))
      }
    }
    if !sorted {
      // Every 1000th event a little early: the replay sorts them first.
      for index in stride(from: 1000, to: events.count, by: 1000) { events[index].time -= 5 }
    }
    return Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "consuming", pid: 1),
      events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "virtual", time: 0),
        2: SchedulerRecord(id: 2, label: "work", kind: "serial", family: "virtual", time: 0),
      ])
  }

  private func assertSameReplay(
    _ taken: ReplayEngine, _ kept: ReplayEngine, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    XCTAssertEqual(taken.eventCount, kept.eventCount, file: file, line: line)
    XCTAssertTrue(taken.events == kept.events, "events differ", file: file, line: line)
    XCTAssertTrue(taken.actions == kept.actions, "actions differ", file: file, line: line)
    XCTAssertEqual(taken.onlyBegins, kept.onlyBegins, file: file, line: line)
    XCTAssertEqual(taken.repeatedBegins, kept.repeatedBegins, file: file, line: line)
    XCTAssertEqual(taken.threads.map(\.id), kept.threads.map(\.id), file: file, line: line)
    var (a, b) = (taken, kept)
    for target in [taken.eventCount / 3, taken.eventCount - 1, 17] {
      a.seek(to: target)
      b.seek(to: target)
      XCTAssertEqual(ReplaySnapshot(a), ReplaySnapshot(b), "at \(target)", file: file, line: line)
    }
  }

  func testATakenTraceReplaysExactlyAsAReadOne() {
    for sorted in [true, false] {
      let reference = ReplayEngine(trace: Self.largeTrace(events: 400_000, sorted: sorted))
      let taken = ReplayEngine(consuming: Self.largeTrace(events: 400_000, sorted: sorted))
      assertSameReplay(taken, reference)
    }
  }

  /// `trace` written to a file of its own, whose path is returned.
  private func write(_ trace: Trace) throws -> String {
    try write(TraceEncoder.encode(trace))
  }

  private func write(_ bytes: [UInt8]) throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("replay-reading-\(UUID().uuidString).trace").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }

  /// Prepared from each stretch of the file as it is read, a replay is that of the trace read
  /// whole; out of time order, the file is read again and sorted; on one core, it is read whole.
  func testAReplayPreparedWhileReadingIsThatOfTheTraceReadWhole() throws {
    for sorted in [true, false] {
      let path = try write(Self.largeTrace(events: 100_000, sorted: sorted))
      let whole = TraceReader.read(path: path)
      let reference = ReplayEngine(trace: try XCTUnwrap(whole.trace))
      for workers in [1, 2, 3] {
        let read = ReplayEngine.read(path: path, workers: workers)
        let expected: ReplayEngine.Preparation =
          workers == 1 ? .afterReading : sorted ? .whileReading : .afterReadingAgain
        XCTAssertEqual(read.preparation, expected, "\(workers) threads, sorted: \(sorted)")
        XCTAssertNil(read.reading.trace, "the replay holds the trace")
        XCTAssertEqual(read.reading.diagnostics, whole.diagnostics)
        assertSameReplay(try XCTUnwrap(read.replay), reference)
      }
    }
  }

  /// A scheduler may be defined after the work scheduled on it (a file is read as it comes): its
  /// work is counted in its own slot, not in the slot of undefined schedulers.
  func testASchedulerDefinedAfterItsWorkGetsItsOwnSlot() throws {
    var lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"virtual","process":"p","pid":1}"#
    ]
    for action in 1...300 {
      let scheduler = action % 2 + 1
      lines.append(
        #"{"t":\#(action),"e":"schedule","a":\#(action),"q":\#(scheduler),"mode":"async","due":\#(action),"th":1}"#
      )
    }
    lines.append(
      #"{"t":400,"e":"scheduler","q":2,"label":"late","kind":"serial","family":"virtual"}"#)
    lines.append(#"{"t":400,"e":"close","events":300,"dropped":0}"#)
    let path = try write(Array((lines.joined(separator: "\n") + "\n").utf8))
    let read = ReplayEngine.read(path: path, workers: 2)
    XCTAssertEqual(read.preparation, .whileReading)
    let replay = try XCTUnwrap(read.replay)
    assertSameReplay(replay, ReplayEngine(trace: try XCTUnwrap(TraceReader.read(path: path).trace)))
    let late = try XCTUnwrap(replay.schedulerSlot(SchedulerID(rawValue: 2)))
    let lateWork = replay.eventIndices.compactMap { replay.event($0).action }.filter {
      replay.schedulerSlot(of: $0) == late
    }
    XCTAssertEqual(lateWork.count, 150)
  }

  /// A file with errors makes no replay, and says what reading it says.
  func testAFileWithErrorsMakesNoReplay() throws {
    var bytes = TraceEncoder.encode(Self.largeTrace(events: 20_000))
    // A broken line after the line in the middle.
    let cut = try XCTUnwrap(bytes[(bytes.count / 2)...].firstIndex(of: 0x0A)) + 1
    bytes.insert(contentsOf: Array(#"{"t":oops}"#.utf8) + [0x0A], at: cut)
    let path = try write(bytes)
    for workers in [1, 2] {
      let read = ReplayEngine.read(path: path, workers: workers)
      XCTAssertNil(read.replay)
      XCTAssertTrue(read.reading.hasErrors)
      XCTAssertEqual(read.reading.diagnostics, TraceReader.read(path: path).diagnostics)
    }
  }

  func testACopyTheCallerKeepsIsLeftWhole() {
    let trace = Self.largeTrace(events: 400_000)
    let kept = trace  // a copy, sharing the events' buffer
    let taken = ReplayEngine(consuming: trace)
    // Compared with events made anew: the same buffer would compare equal without a look.
    XCTAssertTrue(
      kept.events == Self.largeTrace(events: 400_000).events, "the kept copy's events changed")
    assertSameReplay(taken, ReplayEngine(trace: kept))
  }
}

/// What the replay holds per event and per action is its memory budget: a field that grows
/// either shows here.
final class ReplayLayoutTests: XCTestCase {
  func testAnEventTakesTwentyFourBytesAndAnActionForty() {
    XCTAssertEqual(MemoryLayout<ReplayEvent>.stride, 24)
    XCTAssertEqual(MemoryLayout<ActionRecord>.stride, 40)
  }
}

/// A file whose lines are out of time order (the reader warns) is replayed in time order, and
/// among equal times in the file's order.
final class ReplayTimeOrderTests: XCTestCase {
  func testEventsAreReplayedByTimeThenInTheFilesOrder() {
    // (time, action) in file order; each action is scheduled once.
    let lines: [(Int64, UInt32)] = [(50, 1), (30, 2), (30, 3), (10, 4), (50, 5), (30, 6), (0, 7)]
    let events = lines.map { time, action in
      TraceEvent.schedule(
        time: time, action: action, scheduler: 1, mode: .async, delay: 0, due: time, thread: 1,
        parent: 0, site: 0)
    }
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "order", pid: 1), events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "q", kind: "serial", family: "virtual", time: 0)
      ])
    for replay in [ReplayEngine(trace: trace), ReplayEngine(consuming: trace)] {
      let replayed = replay.eventIndices.map { index in
        let event = replay.event(index)
        return (event.time, event.action.map { replay.action($0).id.rawValue } ?? 0)
      }
      XCTAssertEqual(replayed.map(\.0), [0, 10, 30, 30, 30, 50, 50])
      XCTAssertEqual(replayed.map(\.1), [7, 4, 2, 3, 6, 1, 5])
    }
  }

  func testOrderingInPlaceMatchesOrderingACopyWhateverTheShuffle() {
    for seed in 1...50 {
      var random = SplitMix64(seed: UInt64(seed))
      let count = Int(random.next() % 300)
      let events = (0..<count).map { index in
        let time = Int64(random.next() % 20)  // many ties
        return TraceEvent.schedule(
          time: time, action: UInt32(index + 1), scheduler: 1, mode: .async, delay: 0, due: time,
          thread: 1, parent: 0, site: 0)
      }
      let trace = Trace(
        header: TraceHeader(clock: .virtual, start: "", process: "order", pid: 1), events: events)
      let (copied, taken) = (ReplayEngine(trace: trace), ReplayEngine(consuming: trace))
      XCTAssertTrue(copied.events == taken.events, "seed \(seed)")
      XCTAssertTrue(copied.actions == taken.actions, "seed \(seed)")
    }
  }
}
