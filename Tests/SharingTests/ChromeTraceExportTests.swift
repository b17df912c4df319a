import Foundation
import Replay
import Sharing
import TestSupport
import TraceFormat
import XCTest

/// The Chrome Trace Event export, checked against the format's rules on every recording and on
/// crafted traces.
final class ChromeTraceExportTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  private static func export(_ traces: [(Trace, String)]) throws -> (
    events: [[String: Any]], text: String
  ) {
    let (json, _) = ChromeTraceExport.export(traces.map { (ReplayEngine(trace: $0.0), $0.1) })
    let root = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any], "valid JSON")
    let events = try XCTUnwrap(root["traceEvents"] as? [[String: Any]])
    return (events, String(decoding: json, as: UTF8.self))
  }

  /// The format's rules as Perfetto applies them: keys each phase needs, waits with a
  /// process-local id, numeric flow ids matched in pairs whose tail lies inside a slice on its
  /// track, no partial overlap on a track, and no track whose tid is its pid.
  private static func checkRules(
    _ events: [[String: Any]], file: StaticString = #filePath, line: UInt = #line
  ) {
    var flows: [Int: [String]] = [:]
    var flowTails: [(track: String, ts: Double)] = []
    var slices: [String: [(start: Double, end: Double)]] = [:]
    for event in events {
      let phase = event["ph"] as? String ?? "?"
      var required = ["ph", "name", "pid", "tid"]
      switch phase {
      case "X": required += ["ts", "dur"]
      case "b", "e": required += ["ts", "id2", "cat"]
      case "s", "f": required += ["ts", "id"]
      case "i": required += ["ts", "s"]
      case "M": required += ["args"]
      default: XCTFail("unexpected phase \(phase)", file: file, line: line)
      }
      for key in required where event[key] == nil {
        XCTFail("\(phase) without \(key): \(event)", file: file, line: line)
      }
      if let ts = event["ts"] as? Double {
        XCTAssertGreaterThanOrEqual(ts, 0, file: file, line: line)
      }
      if phase == "f" { XCTAssertEqual(event["bp"] as? String, "e", file: file, line: line) }
      if phase == "b" || phase == "e" {
        XCTAssertNotNil(
          (event["id2"] as? [String: Any])?["local"] as? String, "a process-local wait id",
          file: file, line: line)
      }
      if phase == "s" || phase == "f" {
        let id = event["id"] as? Int
        XCTAssertNotNil(id, "a flow id is a JSON number: \(event)", file: file, line: line)
        flows[id ?? -1, default: []].append(phase)
        if phase == "s", let ts = event["ts"] as? Double {
          flowTails.append(("\(event["pid"] ?? 0).\(event["tid"] ?? 0)", ts))
        }
      }
      if let pid = event["pid"] as? Int, let tid = event["tid"] as? Int, tid != 0 {
        XCTAssertNotEqual(
          pid, tid, "a track that looks like the main thread", file: file, line: line)
      }
      if phase == "X", let ts = event["ts"] as? Double, let dur = event["dur"] as? Double {
        XCTAssertGreaterThanOrEqual(dur, 0, file: file, line: line)
        slices["\(event["pid"] ?? 0).\(event["tid"] ?? 0)", default: []].append((ts, ts + dur))
      }
    }
    for (id, phases) in flows {
      XCTAssertEqual(phases.sorted(), ["f", "s"], "flow \(id)", file: file, line: line)
    }
    for tail in flowTails {
      XCTAssert(
        slices[tail.track, default: []].contains { $0.start <= tail.ts && tail.ts <= $0.end },
        "a flow whose tail no slice encloses, on \(tail.track) at \(tail.ts)", file: file,
        line: line)
    }
    for (track, list) in slices {
      // Sorted by start, longest first: each slice must end before the next starts or contain it.
      var stack: [Double] = []
      for slice in list.sorted(by: { ($0.start, -$0.end) < ($1.start, -$1.end) }) {
        while let top = stack.last, top <= slice.start { stack.removeLast() }
        if let top = stack.last, slice.end > top + 1e-9 {
          XCTFail("slices overlap on track \(track) at \(slice.start)", file: file, line: line)
        }
        stack.append(slice.end)
      }
    }
  }

  func testEveryRecordingExportsByTheFormatsRulesWithASlicePerRun() throws {
    let folder = Recordings.folder
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    where name.hasSuffix(".trace") {
      let trace = try XCTUnwrap(
        TraceReader.read(path: folder.appendingPathComponent(name).path).trace, name)
      let (events, _) = try Self.export([(trace, name)])
      Self.checkRules(events)
      let runs = trace.events.filter { $0.kind == .begin }.count
      XCTAssertEqual(events.filter { $0["ph"] as? String == "X" }.count, runs, name)
      XCTAssertEqual(
        Set(events.filter { $0["ph"] as? String == "M" }.compactMap { $0["name"] as? String }),
        ["process_name", "process_sort_index", "thread_name", "thread_sort_index"], name)
    }
  }

  // MARK: Crafted

  private static func trace(
    _ events: [TraceEvent], kind: String = "concurrent", label: String = "net",
    start: Int64? = nil, closedAt: Int64? = nil
  ) -> Trace {
    var header = TraceHeader(clock: .host, start: "", process: "app", pid: 7)
    header.startNanoseconds = start
    var trace = Trace(
      header: header, events: events,
      schedulers: [1: SchedulerRecord(id: 1, label: label, kind: kind, family: "d", time: 0)],
      closing: .init(written: Int64(events.count), dropped: 0))
    trace.closedAt = closedAt
    return trace
  }

  private static func schedule(_ id: UInt32, at time: Int64, parent: UInt32 = 0) -> TraceEvent {
    .schedule(
      time: time, action: id, scheduler: 1, mode: .async, delay: 0, due: time, thread: 1,
      parent: parent, site: 0)
  }

  func testOverlappingRunsOfAConcurrentQueueGoOnTracksOfTheirOwn() throws {
    let trace = Self.trace([
      Self.schedule(1, at: 0), Self.schedule(2, at: 0), Self.schedule(3, at: 0),
      .begin(time: 1_234_567, action: 1, thread: 2, run: 1),
      .begin(time: 2 * Self.ms, action: 2, thread: 3, run: 1),
      .end(time: 5 * Self.ms, action: 1, thread: 2, run: 1, duration: 0),
      .end(time: 6 * Self.ms, action: 2, thread: 3, run: 1, duration: 0),
      .begin(time: 7 * Self.ms, action: 3, thread: 2, run: 1),
      .end(time: 8 * Self.ms, action: 3, thread: 2, run: 1, duration: 0),
    ])
    let (events, text) = try Self.export([(trace, "t.trace")])
    Self.checkRules(events)
    let slices = events.filter { $0["ph"] as? String == "X" }
    XCTAssertEqual(Set(slices.compactMap { $0["tid"] as? Int }).count, 2, "two tracks for net")
    XCTAssertEqual(
      slices.first { ($0["args"] as? [String: Any])?["action"] as? Int == 3 }?["tid"] as? Int,
      slices.first { ($0["args"] as? [String: Any])?["action"] as? Int == 1 }?["tid"] as? Int,
      "the third run fits back on the first track")
    XCTAssertTrue(text.contains("\"ts\":1234.567"), "nanoseconds kept as decimals")
    let names = events.filter { $0["name"] as? String == "thread_name" }
      .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
    XCTAssertEqual(names.sorted(), ["net", "net (2)"])
  }

  func testUnfinishedRunsWaitsCancelsAndNeverRunWork() throws {
    let trace = Self.trace(
      [
        Self.schedule(1, at: 0), Self.schedule(2, at: 1 * Self.ms), Self.schedule(3, at: 0),
        .begin(time: 2 * Self.ms, action: 1, thread: 2, run: 1),
        .cancel(time: 3 * Self.ms, action: 2, thread: 1, by: 0, started: false),
      ], kind: "serial", closedAt: 10 * Self.ms)
    let (events, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(events)
    let slice = try XCTUnwrap(events.first { $0["ph"] as? String == "X" })
    XCTAssertEqual(slice["dur"] as? Double, 8_000, "to the trace's end")
    XCTAssertEqual((slice["args"] as? [String: Any])?["unfinished"] as? Bool, true)
    let waitEnds = Dictionary(
      uniqueKeysWithValues: events.filter { $0["ph"] as? String == "e" }.compactMap {
        event -> (String, Double)? in
        guard let name = event["name"] as? String, let ts = event["ts"] as? Double else {
          return nil
        }
        return (name, ts)
      })
    XCTAssertEqual(waitEnds["wait #1"], 2_000, "until it began")
    XCTAssertEqual(waitEnds["wait #2"], 3_000, "until it was cancelled")
    XCTAssertEqual(waitEnds["wait #3"], 10_000, "never ran: until the end")
    XCTAssertTrue(
      events.contains { $0["name"] as? String == "cancel #2" && $0["ph"] as? String == "i" })
    XCTAssertTrue(events.contains { ($0["name"] as? String)?.hasPrefix("lost-work") ?? false })
  }

  func testArrowsGoOnlyFromTheRunThatScheduledTheWork() throws {
    // #1 runs and schedules #2 inside its run; #3 is scheduled from outside any run, and #4 by
    // #1 after #1's run ended: neither has a slice for an arrow's tail to bind to.
    let trace = Self.trace(
      [
        Self.schedule(1, at: 0),
        .begin(time: 1 * Self.ms, action: 1, thread: 2, run: 1),
        Self.schedule(2, at: 2 * Self.ms, parent: 1),
        .end(time: 3 * Self.ms, action: 1, thread: 2, run: 1, duration: 0),
        Self.schedule(3, at: 3 * Self.ms),
        Self.schedule(4, at: 4 * Self.ms, parent: 1),
        .begin(time: 5 * Self.ms, action: 2, thread: 2, run: 1),
        .end(time: 6 * Self.ms, action: 2, thread: 2, run: 1, duration: 0),
        .begin(time: 7 * Self.ms, action: 3, thread: 2, run: 1),
        .end(time: 8 * Self.ms, action: 3, thread: 2, run: 1, duration: 0),
        .begin(time: 9 * Self.ms, action: 4, thread: 2, run: 1),
        .end(time: 10 * Self.ms, action: 4, thread: 2, run: 1, duration: 0),
      ], kind: "serial")
    let (events, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(events)
    let tails = events.filter { $0["ph"] as? String == "s" }
    XCTAssertEqual(tails.compactMap { $0["ts"] as? Double }, [2_000], "only #1 → #2")
    let heads = events.filter { $0["ph"] as? String == "f" }
    XCTAssertEqual(heads.compactMap { $0["ts"] as? Double }, [5_000])
    XCTAssertEqual(events.filter { $0["ph"] as? String == "b" }.count, 4, "every action waits")
  }

  func testHostileLabelsStayValidJSONAndComeBackIntact() throws {
    let label = "q\"\\\n\u{1}\u{7F}\u{202E}漢🦆"
    let trace = Self.trace(
      [Self.schedule(1, at: 0), .begin(time: 1, action: 1, thread: 1, run: 1)], label: label)
    let (events, _) = try Self.export([(trace, "evil\u{1B}[2J.trace")])
    Self.checkRules(events)
    let names = events.filter { $0["name"] as? String == "thread_name" }
      .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
    XCTAssertEqual(names, [label])
  }

  func testTwoFilesAreTwoProcessesLinedUpByTheirStarts() throws {
    let first = Self.trace([Self.schedule(1, at: 0)], start: 1_000 * Self.ms)
    let second = Self.trace([Self.schedule(1, at: 0)], start: 1_003 * Self.ms)
    let (events, _) = try Self.export([(first, "a.trace"), (second, "a.trace")])
    Self.checkRules(events)
    let waits = events.filter { $0["ph"] as? String == "b" }
    XCTAssertEqual(waits.compactMap { $0["pid"] as? Int }, [1, 2])
    XCTAssertEqual(waits.compactMap { $0["ts"] as? Double }, [0, 3_000], "3 ms apart")
    XCTAssertEqual(
      waits.compactMap { ($0["id2"] as? [String: Any])?["local"] as? String }, ["1", "1"],
      "the same action id in two files: local ids, which a viewer scopes to their process")
  }
}
