@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
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

  /// The format's rules as Perfetto applies them: keys each phase needs, waits named per scheduler
  /// with a process-local id, numeric flow ids matched in pairs, no track whose tid is its pid,
  /// time counted from the recording's start — and what a user sees once Perfetto has read the
  /// file (``PerfettoImportModel``): no slice dropped, no run drawn 0 ns long (a chevron, like
  /// an instant), a run inside another only as an inline `sync` of it, every arrow's tail on
  /// the run that scheduled the work (under way at the schedule) and its head on the work's
  /// first run, and nothing but runs on the schedulers' tracks.
  private static func checkRules(
    _ events: [[String: Any]], trace: Trace? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    var flows: [Int: [String]] = [:]
    var earliest = Int64.max
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
      if let ts = PerfettoImportModel.nanoseconds(event["ts"]) {
        XCTAssertGreaterThanOrEqual(ts, 0, file: file, line: line)
        earliest = min(earliest, ts)
      }
      if phase == "f" { XCTAssertEqual(event["bp"] as? String, "e", file: file, line: line) }
      if phase == "b" || phase == "e" {
        XCTAssertNotNil(
          (event["id2"] as? [String: Any])?["local"] as? String, "a process-local wait id",
          file: file, line: line)
        if event["cat"] as? String == "wait" {
          XCTAssert(
            (event["name"] as? String)?.hasPrefix("wait · ") ?? false,
            "waits are named by scheduler, not by action: \(event)", file: file, line: line)
        } else {
          XCTAssert(
            ["finding", "dropped"].contains(event["cat"] as? String),
            "async slices are waits, findings or dropped events: \(event)", file: file, line: line)
        }
      }
      if phase == "i" {
        XCTAssertEqual(
          event["s"] as? String, "p", "an instant off the schedulers' tracks: \(event)", file: file,
          line: line)
      }
      if phase == "s" || phase == "f" {
        let id = event["id"] as? Int
        XCTAssertNotNil(id, "a flow id is a JSON number: \(event)", file: file, line: line)
        flows[id ?? -1, default: []].append(phase)
      }
      if let pid = event["pid"] as? Int, let tid = event["tid"] as? Int, tid != 0 {
        XCTAssertNotEqual(
          pid, tid, "a track that looks like the main thread", file: file, line: line)
      }
    }
    XCTAssertEqual(earliest, 0, "time counts from the recording's start", file: file, line: line)
    for (id, phases) in flows {
      XCTAssertEqual(phases.sorted(), ["f", "s"], "flow \(id)", file: file, line: line)
    }
    let model = PerfettoImportModel(events)
    XCTAssertEqual(
      model.dropped, [], "slices a viewer drops as overlapping", file: file, line: line)
    let facts = trace.map(TraceFacts.init)
    for slice in model.slices.values {
      XCTAssertGreaterThan(
        slice.duration, 0, "a run drawn as a chevron: \(events[slice.index])", file: file,
        line: line)
    }
    for (child, parent) in model.parents {
      let inner = model.slices[child]
      let outer = model.slices[parent]
      XCTAssertEqual(
        inner?.mode, "sync",
        "only an inline sync nests: \(events[child]) inside \(events[parent])", file: file,
        line: line)
      if let facts, let action = inner?.action {
        XCTAssertEqual(
          facts.schedules[action]?.parent, outer?.action,
          "a run nests only in the run that made it: \(events[child]) inside \(events[parent])",
          file: file, line: line)
      }
    }
    for (id, flow) in model.flows {
      guard let into = flow.into.flatMap({ model.slices[$0] }),
        let out = flow.out.flatMap({ model.slices[$0] })
      else {
        XCTFail("flow \(id) binds to no slice", file: file, line: line)
        continue
      }
      XCTAssertEqual(into.run, 1, "flow \(id) ends on a first run", file: file, line: line)
      guard let facts, let action = into.action, let schedule = facts.schedules[action] else {
        continue
      }
      XCTAssertEqual(
        out.action, schedule.parent, "flow \(id) to #\(action) starts on its parent's run",
        file: file, line: line)
      XCTAssert(
        out.start <= schedule.time && schedule.time <= out.start + out.recordedDuration,
        "flow \(id) starts on the parent's run under way at the schedule", file: file, line: line)
    }
  }

  func testEveryRecordingExportsByTheFormatsRulesWithASlicePerRun() throws {
    let folder = Recordings.folder
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    where name.hasSuffix(".trace") {
      let trace = try XCTUnwrap(
        TraceReader.read(path: folder.appendingPathComponent(name).path).trace, name)
      let (events, _) = try Self.export([(trace, name)])
      Self.checkRules(events, trace: trace)
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

  func testOverlappingRunsOfAConcurrentSchedulerGoOnTracksOfTheirOwn() throws {
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
    Self.checkRules(events, trace: trace)
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
    Self.checkRules(events, trace: trace)
    let slice = try XCTUnwrap(events.first { $0["ph"] as? String == "X" })
    XCTAssertEqual(slice["dur"] as? Double, 8_000, "to the trace's end")
    XCTAssertEqual((slice["args"] as? [String: Any])?["unfinished"] as? Bool, true)
    let waitEnds = Dictionary(
      uniqueKeysWithValues: events.filter { $0["ph"] as? String == "e" }.compactMap {
        event -> (String, Double)? in
        guard let id = (event["id2"] as? [String: Any])?["local"] as? String,
          let ts = event["ts"] as? Double
        else { return nil }
        return (id, ts)
      })
    XCTAssertEqual(waitEnds["1"], 2_000, "until it began")
    XCTAssertEqual(waitEnds["2"], 3_000, "until it was cancelled")
    XCTAssertEqual(waitEnds["3"], 10_000, "never ran: until the end")
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
    Self.checkRules(events, trace: trace)
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
    let first = Self.trace(
      [Self.schedule(1, at: 0)], start: 1_000 * Self.ms, closedAt: 10 * Self.ms)
    var second = Self.trace(
      [Self.schedule(1, at: 0)], start: 1_003 * Self.ms, closedAt: 10 * Self.ms)
    second.header.pid = 8
    let (events, _) = try Self.export([(first, "a.trace"), (second, "a.trace")])
    Self.checkRules(events)
    let waits = events.filter { $0["ph"] as? String == "b" }
    XCTAssertEqual(waits.compactMap { $0["pid"] as? Int }, [7, 8], "the recorded pids")
    XCTAssertEqual(waits.compactMap { $0["ts"] as? Double }, [0, 3_000], "3 ms apart")
    XCTAssertEqual(
      waits.compactMap { ($0["id2"] as? [String: Any])?["local"] as? String }, ["1", "1"],
      "the same action id in two files: local ids, which a viewer scopes to their process")
  }

  // MARK: What Perfetto shows (issue 27, item 18)

  private static func inline(_ id: UInt32, at time: Int64, parent: UInt32) -> TraceEvent {
    .schedule(
      time: time, action: id, scheduler: 1, mode: .sync, delay: 0, due: time, thread: 2,
      parent: parent, site: 0, inline: true)
  }

  private static func args(_ event: [String: Any]) -> [String: Any] {
    event["args"] as? [String: Any] ?? [:]
  }

  private static func slice(of action: Int, in events: [[String: Any]]) -> [String: Any]? {
    events.first { $0["ph"] as? String == "X" && args($0)["action"] as? Int == action }
  }

  func testNamedWorkIsInTheArgsOfItsRunsAndItsWait() throws {
    var trace = Self.trace([
      Self.schedule(1, at: 0), .work(time: 0, action: 1, work: 0), Self.schedule(2, at: 0),
      .begin(time: Self.ms, action: 1, thread: 2, run: 1),
      .end(time: 2 * Self.ms, action: 1, thread: 2, run: 1, duration: Self.ms),
      .begin(time: 3 * Self.ms, action: 2, thread: 2, run: 1),
      .end(time: 4 * Self.ms, action: 2, thread: 2, run: 1, duration: Self.ms),
    ])
    trace.works = [WorkRecord(name: "search \u{1B}]0;x", fields: ["query": "swift"])]
    let (events, text) = try Self.export([(trace, "t.trace")])
    let work = try XCTUnwrap(
      Self.args(try XCTUnwrap(Self.slice(of: 1, in: events)))["work"] as? [String: Any])
    XCTAssertEqual(work["name"] as? String, "search \u{1B}]0;x")
    XCTAssertEqual(work["values"] as? [String: String], ["query": "swift"])
    let wait = try XCTUnwrap(
      events.first { $0["ph"] as? String == "b" && Self.args($0)["action"] as? Int == 1 })
    XCTAssertNotNil(Self.args(wait)["work"], "the wait says whose it is too")
    XCTAssertNil(Self.args(try XCTUnwrap(Self.slice(of: 2, in: events)))["work"])
    XCTAssertFalse(text.contains("\u{1B}"), "the escape is written escaped")
  }

  func testWaitsOfASchedulerShareOneNameAndKeepTheirActionAsId() throws {
    // Perfetto makes a track set per async-slice name: one name per action made one track each.
    let trace = Self.trace(
      (1...6).flatMap { id -> [TraceEvent] in
        let time = Int64(id) * 10 * Self.ms
        return [
          Self.schedule(UInt32(id), at: time),
          .begin(time: time + Self.ms, action: UInt32(id), thread: 2, run: 1),
          .end(time: time + 2 * Self.ms, action: UInt32(id), thread: 2, run: 1, duration: 0),
        ]
      }, kind: "serial", label: "demo.database")
    let (events, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(events, trace: trace)
    let waits = events.filter { $0["ph"] as? String == "b" }
    XCTAssertEqual(Set(waits.compactMap { $0["name"] as? String }), ["wait · demo.database"])
    XCTAssertEqual(
      waits.compactMap { ($0["id2"] as? [String: Any])?["local"] as? String },
      ["1", "2", "3", "4", "5", "6"])
    XCTAssertEqual(waits.compactMap { Self.args($0)["action"] as? Int }, [1, 2, 3, 4, 5, 6])
  }

  func testArrowsStartOnTheParentRunNotOnACancelAnInlineSyncOrTheNextRun() throws {
    // #1 runs 1–5 ms on a serial scheduler. At 2 ms it cancels #9 and schedules #2 (a thread-scoped
    // cancel instant would take the arrow); it runs #3 inline at 2.5–2.8 ms, then schedules #4
    // at 3 ms (the finished #3 is still on top of the track for a viewer); at its last instant,
    // 5 ms, it schedules #5, when #6 begins on the same track.
    var events: [TraceEvent] = [
      Self.schedule(1, at: 0), Self.schedule(9, at: 0), Self.schedule(6, at: 0),
      .begin(time: 1 * Self.ms, action: 1, thread: 2, run: 1),
      .cancel(time: 2 * Self.ms, action: 9, thread: 2, by: 1, started: false),
      Self.schedule(2, at: 2 * Self.ms, parent: 1),
      Self.inline(3, at: 2_500_000, parent: 1),
      .begin(time: 2_500_000, action: 3, thread: 2, run: 1),
      .end(time: 2_800_000, action: 3, thread: 2, run: 1, duration: 0),
      Self.schedule(4, at: 3 * Self.ms, parent: 1),
      Self.schedule(5, at: 5 * Self.ms, parent: 1),
      .end(time: 5 * Self.ms, action: 1, thread: 2, run: 1, duration: 0),
      .begin(time: 5 * Self.ms, action: 6, thread: 2, run: 1),
      .end(time: 6 * Self.ms, action: 6, thread: 2, run: 1, duration: 0),
    ]
    for id: UInt32 in [2, 4, 5] {
      let time = Int64(id + 5) * Self.ms
      events.append(.begin(time: time, action: id, thread: 2, run: 1))
      events.append(.end(time: time + 500_000, action: id, thread: 2, run: 1, duration: 0))
    }
    let trace = Self.trace(events, kind: "serial", closedAt: 20 * Self.ms)
    let (exported, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(exported, trace: trace)
    let model = PerfettoImportModel(exported)
    XCTAssertEqual(model.flows.count, 4, "#1 → #2, #3, #4 and #5")
    for flow in model.flows.values {
      XCTAssertEqual(flow.out.flatMap { model.slices[$0]?.action }, 1)
    }
    let cancel = try XCTUnwrap(exported.first { $0["name"] as? String == "cancel #9" })
    XCTAssertEqual(cancel["s"] as? String, "p", "off the scheduler's track")
    XCTAssertEqual(Self.args(cancel)["scheduler"] as? String, "net")
    XCTAssertEqual(model.parents.count, 1, "only #3 nests, in #1")
  }

  func testARunInsideAnUnrelatedRunOfAConcurrentSchedulerGoesOnAnotherTrack() throws {
    // #2 runs 2–5 ms while #1 runs 1–10 ms on another thread: not #1's child.
    let trace = Self.trace([
      Self.schedule(1, at: 0), Self.schedule(2, at: 0),
      .begin(time: 1 * Self.ms, action: 1, thread: 2, run: 1),
      .begin(time: 2 * Self.ms, action: 2, thread: 3, run: 1),
      .end(time: 5 * Self.ms, action: 2, thread: 3, run: 1, duration: 0),
      .end(time: 10 * Self.ms, action: 1, thread: 2, run: 1, duration: 0),
    ])
    let (events, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(events, trace: trace)
    XCTAssertNotEqual(
      Self.slice(of: 1, in: events)?["tid"] as? Int, Self.slice(of: 2, in: events)?["tid"] as? Int)
    XCTAssertEqual(PerfettoImportModel(events).parents.count, 0)
  }

  func testZeroNanosecondRunsOfAVirtualClockDrawAsSlicesSideBySide() throws {
    // A virtual clock runs #1 and #2 at 300 ms, each for 0 ns; #1 schedules #3 then.
    var trace = Self.trace(
      [
        Self.schedule(1, at: 0), Self.schedule(2, at: 0),
        .begin(time: 300 * Self.ms, action: 1, thread: 1, run: 1),
        Self.schedule(3, at: 300 * Self.ms, parent: 1),
        .end(time: 300 * Self.ms, action: 1, thread: 1, run: 1, duration: 0),
        .begin(time: 300 * Self.ms, action: 2, thread: 1, run: 1),
        .end(time: 300 * Self.ms, action: 2, thread: 1, run: 1, duration: 0),
        .begin(time: 300 * Self.ms, action: 3, thread: 1, run: 1),
        .end(time: 300 * Self.ms, action: 3, thread: 1, run: 1, duration: 0),
      ], kind: "serial")
    trace.header.clock = .virtual
    let (events, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(events, trace: trace)
    for action in [1, 2, 3] {
      let slice = try XCTUnwrap(Self.slice(of: action, in: events))
      XCTAssertEqual(slice["dur"] as? Double, 0.001, "drawn 1 ns long")
      XCTAssertEqual(Self.args(slice)["duration_ns"] as? Int, 0, "what the trace says")
    }
    let model = PerfettoImportModel(events)
    XCTAssertEqual(model.parents.count, 0, "none nests in another at the same instant")
    XCTAssertEqual(model.flows.count, 1)
  }

  func testTimeCountsFromTheRecordingsStartLikeItsDueTimes() throws {
    // Nothing happens for the first 5 ms: a viewer counting from the first event would show the
    // wait at 0 while its due_ns says 5 ms.
    let trace = Self.trace(
      [
        Self.schedule(1, at: 5 * Self.ms), .begin(time: 6 * Self.ms, action: 1, thread: 2, run: 1),
        .end(time: 7 * Self.ms, action: 1, thread: 2, run: 1, duration: 0),
      ], kind: "serial")
    let (events, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(events, trace: trace)
    let start = try XCTUnwrap(events.first { $0["name"] as? String == "recording start" })
    XCTAssertEqual(start["ts"] as? Double, 0)
    XCTAssertEqual(start["s"] as? String, "p")
    let wait = try XCTUnwrap(events.first { $0["ph"] as? String == "b" })
    XCTAssertEqual(
      PerfettoImportModel.nanoseconds(wait["ts"]),
      (Self.args(wait)["due_ns"] as? Int).map(Int64.init),
      "one origin for ts and due_ns")
  }

  func testRecordingsMadeHoursApartOpenTogether() throws {
    let hour: Int64 = 3_600_000 * Self.ms
    let first = Self.trace(
      [Self.schedule(1, at: 0), .begin(time: 1 * Self.ms, action: 1, thread: 2, run: 1)],
      start: 1_000 * Self.ms, closedAt: 10 * Self.ms)
    var second = Self.trace(
      [Self.schedule(1, at: 0), .begin(time: 1 * Self.ms, action: 1, thread: 2, run: 1)],
      start: 1_000 * Self.ms + 4 * hour, closedAt: 10 * Self.ms)
    second.header.pid = 8
    let (events, _) = try Self.export([(first, "a.trace"), (second, "b.trace")])
    Self.checkRules(events)
    let starts = events.filter { $0["name"] as? String == "recording start" }
    XCTAssertEqual(starts.compactMap { $0["ts"] as? Double }, [0, 11_000], "the gap cut to 1 ms")
    XCTAssertEqual(
      Self.args(starts[1])["moved_earlier_ns"] as? Int, Int(4 * hour - 11 * Self.ms),
      "and said")
    let latest = events.compactMap { $0["ts"] as? Double }.max() ?? 0
    XCTAssertLessThan(latest, 25_000, "everything within 25 ms, not 4 hours")
  }

  func testTracksAreNamedByTheSchedulerWithItsIdForTheTidAfterIt() throws {
    // Perfetto titles a thread track "<name> <tid>" and a process "<name> <pid>".
    var trace = Self.trace(
      [Self.schedule(1, at: 0), .begin(time: 1, action: 1, thread: 2, run: 1)], kind: "serial")
    trace.schedulers = [
      5: SchedulerRecord(id: 5, label: "demo.database", kind: "serial", family: "d", time: 0)
    ]
    trace.events[0] = .schedule(
      time: 0, action: 1, scheduler: 5, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
      site: 0)
    let (events, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(events, trace: trace)
    let names = events.filter { $0["ph"] as? String == "M" }.compactMap { event -> String? in
      guard let name = Self.args(event)["name"] as? String else { return nil }
      return
        "\(name) \(event["name"] as? String == "process_name" ? event["pid"] ?? "" : event["tid"] ?? "")"
    }
    XCTAssertEqual(names, ["t.trace — app 7", "demo.database 5"])
    // A recorded pid that is a scheduler's id would mark that scheduler as the main thread: not used.
    trace.header.pid = 5
    let (clash, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(clash, trace: trace)
    let process = try XCTUnwrap(clash.first { $0["name"] as? String == "process_name" })
    XCTAssertEqual(Self.args(process)["name"] as? String, "t.trace — app (pid 5)")
    XCTAssertEqual(process["pid"] as? Int, 6)
  }

  /// Runs of a Swift task's work are named by the task, as the inspector's lanes by task are
  /// (`typist (task 2)`), and say it in `args.task`; the rest are named as before.
  func testAsyncRunsAreNamedByTheirTaskAsTheInspectorNamesThem() throws {
    let trace = try XCTUnwrap(TraceReader.read(path: Recordings.path("async-search")).trace)
    var taskOf: [Int: UInt64] = [:]
    for event in trace.events where event.kind == .task {
      if let task = event.task { taskOf[Int(event.action)] = task }
    }
    let (events, _) = try Self.export([(trace, "async-search.trace")])
    Self.checkRules(events, trace: trace)
    let slices = events.filter { $0["ph"] as? String == "X" }
    XCTAssertFalse(slices.isEmpty)
    var typist = 0
    for slice in slices {
      let action = try XCTUnwrap(Self.args(slice)["action"] as? Int)
      let name = slice["name"] as? String ?? ""
      guard let task = taskOf[action] else {
        XCTAssertNil(Self.args(slice)["task"], name)
        continue
      }
      let title = trace.taskNames[task].map { "\($0) (task \(task))" } ?? "task \(task)"
      XCTAssertEqual(name, "#\(action) \(title)")
      XCTAssertEqual(Self.args(slice)["task"] as? String, title)
      if title.hasPrefix("typist ") { typist += 1 }
    }
    XCTAssertGreaterThan(typist, 0, "the typist task's runs")
  }

  /// A process with more findings than a viewer takes in quickly shows each kind's findings as
  /// windows — an async slice per 1/2000 of the trace at most, counting them — rather than an
  /// instant each; a few findings stay an instant each.
  func testManyFindingsBecomeOneSlicePerWindowThatCountsThem() throws {
    let count = 12_000
    let events = (1...count).map { Self.schedule(UInt32($0), at: Int64($0) * 1_000) }
    let trace = Self.trace(events, kind: "serial", closedAt: Int64(count + 1) * 1_000)
    let (exported, _) = try Self.export([(trace, "t.trace")])
    Self.checkRules(exported, trace: trace)
    let findings = exported.filter { $0["cat"] as? String == "finding" }
    XCTAssertLessThanOrEqual(findings.count, 2 * 2_001, "windows, not an event per finding")
    let starts = findings.filter { $0["ph"] as? String == "b" || $0["ph"] as? String == "i" }
    XCTAssertEqual(
      starts.reduce(0) { $0 + (Self.args($1)["count"] as? Int ?? 1) }, count,
      "every finding counted in a window")
    XCTAssertTrue(
      starts.allSatisfy { ($0["name"] as? String)?.hasPrefix("lost-work") ?? false },
      "\(starts.prefix(3))")

    let few = Self.trace(Array(events.prefix(3)), kind: "serial", closedAt: 10_000)
    let (small, _) = try Self.export([(few, "t.trace")])
    XCTAssertEqual(
      small.filter { $0["cat"] as? String == "finding" }.map { $0["ph"] as? String },
      ["i", "i", "i"], "an instant each")
  }
}
