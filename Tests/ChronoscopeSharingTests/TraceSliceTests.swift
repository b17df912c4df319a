import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

final class TraceSliceTests: XCTestCase {
  /// The slice of `trace` from `from` to `to`, written and read back as a file.
  private func slice(
    _ trace: Trace, from: Int64, to: Int64, file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> (trace: Trace, reading: TraceReading) {
    let window = try TraceSlice.Window(from: from, to: to, in: trace)
    let cut = TraceSlice.cut(trace, window: window, source: "original.trace")
    return try TraceFixtures.read(TraceEncoder.encode(cut), "slice", file: file, line: line)
  }

  /// What a replay shows at its cursor, by trace ids: every scheduler's tallies, the pending actions
  /// with when they are next due, the running ones with their run, and each thread's work.
  private struct Snapshot: Equatable {
    var schedulers: [UInt32: SchedulerState] = [:]
    var pending: [ActionID: Int64] = [:]
    var running: [ActionID: CurrentRun] = [:]
    var threads: [ThreadID: [ActionID]] = [:]
    /// The Swift task each live action is work of, when the trace names it.
    var tasks: [ActionID: TaskID] = [:]

    init(_ replay: ReplayEngine, schedulers: [SchedulerRecord], threads: [ThreadInfo]) {
      for scheduler in schedulers {
        self.schedulers[scheduler.id] = replay.schedulerState(SchedulerID(rawValue: scheduler.id))
      }
      for action in replay.pending(first: .max) {
        pending[replay.action(action).id] = replay.nextDue(of: action)
        tasks[replay.action(action).id] = replay.task(of: action)
      }
      for action in replay.running() {
        running[replay.action(action).id] = replay.currentRun(of: action)
        tasks[replay.action(action).id] = replay.task(of: action)
      }
      for thread in threads {
        let work = replay.threadState(thread.id).running.map { replay.action($0).id }
        if !work.isEmpty { self.threads[thread.id] = work }
      }
    }
  }

  /// An event as a reader sees it: a mark with its text, not its index in the table.
  /// An event with the text its mark or work line carries in place of its table index, which a
  /// slice numbers anew.
  private struct WindowEvent: Equatable {
    var event: TraceEvent
    var mark: MarkRecord?
    var work: WorkRecord?

    init(_ event: TraceEvent, in trace: Trace) {
      mark = event.markIndex.map { trace.marks[$0] }
      work = event.workIndex.map { trace.works[$0] }
      self.event =
        mark != nil
        ? .mark(time: event.time, thread: event.thread, mark: 0)
        : work != nil ? .work(time: event.time, action: event.action, work: 0) : event
    }
  }

  private func windows(of trace: Trace) -> [(Int64, Int64)] {
    let end = TraceSlice.end(of: trace)
    return [
      (0, end), (0, 0), (end / 3, end / 2), (end / 2, end / 2), (end / 5, end * 4 / 5),
      (end * 9 / 10, end), (end, end),
    ]
  }

  // MARK: - Recordings

  func testSlicesOfEveryRecordingValidateWithNothingNewAndReplayAsTheOriginalInTheWindow()
    throws
  {
    for path in try TraceFixtures.recordings() {
      let (trace, reading) = try TraceFixtures.read(path)
      var original = ReplayEngine(trace: trace)
      for (from, to) in windows(of: trace) {
        let name = "\(path) \(from)…\(to)"
        let (slice, sliceReading) = try self.slice(trace, from: from, to: to)
        TraceFixtures.assertNoNewDiagnostics(sliceReading, comparedTo: reading, name)
        var replay = ReplayEngine(trace: slice)
        let instants = Set(
          [from, to, from + (to - from) / 2]
            + trace.events.map(\.time).filter { (from...to).contains($0) })
        for instant in instants.sorted() {
          original.seek(toTime: instant)
          replay.seek(toTime: instant)
          XCTAssertEqual(
            Snapshot(replay, schedulers: original.schedulers, threads: original.threads),
            Snapshot(original, schedulers: original.schedulers, threads: original.threads),
            "\(name) at \(instant)")
          if instant != from { continue }
          XCTAssertEqual(replay.pendingCount(), original.pendingCount(), name)
          XCTAssertEqual(replay.runningCount, original.runningCount, name)
        }
      }
    }
  }

  func testTheSlicesEventsInTheWindowAreTheOriginals() throws {
    for path in try TraceFixtures.recordings() {
      let (trace, _) = try TraceFixtures.read(path)
      for (from, to) in windows(of: trace) {
        let (slice, _) = try self.slice(trace, from: from, to: to)
        let inWindow = { (trace: Trace) in
          trace.events.filter { (from...to).contains($0.time) }.map { event in
            WindowEvent(event, in: trace)
          }
        }
        let (expected, found) = (inWindow(trace), inWindow(slice))
        let difference = zip(expected, found).enumerated().first { $0.element.0 != $0.element.1 }?
          .offset
        XCTAssertTrue(
          expected == found,
          "\(path) \(from)…\(to): \(found.count) events for \(expected.count); first difference at \(difference ?? -1)"
        )
        XCTAssertTrue(slice.events.allSatisfy { $0.time <= to }, "nothing after the window")
        XCTAssertTrue(
          slice.events.allSatisfy { $0.time >= from || $0.kind != .mark },
          "marks before the window are left out")
      }
    }
  }

  func testTheWholeTraceAsAWindowKeepsEveryEvent() throws {
    for path in try TraceFixtures.recordings() {
      let (trace, _) = try TraceFixtures.read(path)
      let (slice, _) = try self.slice(trace, from: 0, to: TraceSlice.end(of: trace))
      XCTAssertEqual(slice.events, trace.events, path)
      XCTAssertEqual(slice.closing, trace.closing, path)
      XCTAssertEqual(slice.closedAt, trace.closedAt, path)
    }
  }

  func testTheHeaderSaysWhatTheSliceWasCutFromAndTheEndMarkerCountsItsEvents() throws {
    let (trace, _) = try TraceFixtures.read(Recordings.path("busy-app"))
    let (slice, _) = try self.slice(trace, from: 100_000_000, to: 150_000_000)
    XCTAssertEqual(slice.header.metadata[TraceHeader.sliceSourceKey], "original.trace")
    XCTAssertEqual(slice.header.metadata[TraceHeader.sliceFromKey], "100000000")
    XCTAssertEqual(slice.header.metadata[TraceHeader.sliceToKey], "150000000")
    XCTAssertEqual(slice.header.metadata["example"], "busy-app", "the original's metadata stays")
    XCTAssertEqual(slice.header.pid, trace.header.pid)
    XCTAssertEqual(slice.header.start, trace.header.start)
    XCTAssertEqual(slice.closing, Trace.Closing(written: Int64(slice.events.count), dropped: 0))
    XCTAssertEqual(slice.closedAt, 150_000_000)
    XCTAssertLessThan(slice.events.count, trace.events.count)
    XCTAssertTrue(
      slice.events.contains { $0.time < 100_000_000 }, "the history of the work under way")
    let used = Set(slice.events.filter { $0.kind == .schedule }.map(\.scheduler))
    XCTAssertEqual(Set(slice.schedulers.keys), used, "only the schedulers it uses")
  }

  // MARK: - Crafted traces

  private static func repeatingTimer(runs: Int, closed: Bool = true) -> [UInt8] {
    var lines = [
      TraceFixtures.header,
      #"{"t":0,"e":"thread","th":1,"name":"main"}"#,
      #"{"t":0,"e":"scheduler","q":1,"label":"timer","kind":"serial","family":"virtual"}"#,
      #"{"t":0,"e":"schedule","a":1,"q":1,"mode":"repeating","delay":100,"due":100,"th":1}"#,
      #"{"t":0,"e":"schedule","a":2,"q":1,"mode":"after","delay":1000,"due":1000,"th":1}"#,
      #"{"t":1,"e":"schedule","a":3,"q":1,"mode":"async","due":1,"th":1}"#,
      #"{"t":2,"e":"begin","a":3,"th":1,"run":1}"#,
      #"{"t":3,"e":"end","a":3,"th":1,"run":1,"dur":1}"#,
    ]
    for run in 1...runs {
      let time = run * 100 + 7  // each run a little late: the rhythm must not drift with it
      lines.append(#"{"t":\#(time),"e":"begin","a":1,"th":1,"run":\#(run)}"#)
      lines.append(#"{"t":\#(time + 50),"e":"end","a":1,"th":1,"run":\#(run),"dur":50}"#)
    }
    if closed { lines.append(#"{"t":\#(runs * 100 + 90),"e":"close","events":0,"dropped":0}"#) }
    return TraceFixtures.trace(lines)
  }

  func testARepeatingTimerKeepsItsRunNumbersAndRhythmAcrossTheWindowStart() throws {
    let (trace, reading) = try TraceFixtures.read(Self.repeatingTimer(runs: 8))
    let (slice, sliceReading) = try self.slice(trace, from: 580, to: 790)
    XCTAssertEqual(
      sliceReading.diagnostics.filter { $0.severity == .warning }.map(\.message),
      reading.diagnostics.filter { !$0.message.contains("events") }.map(\.message),
      "no missing runs")
    var replay = ReplayEngine(trace: slice)
    replay.seek(toTime: 580)
    let timer = try XCTUnwrap(replay.index(of: ActionID(rawValue: 1)))
    XCTAssertEqual(replay.nextDue(of: timer), 600, "first due + 5 × interval")
    XCTAssertEqual(replay.lastRun(of: timer)?.number, 5)
    XCTAssertNotNil(replay.index(of: ActionID(rawValue: 2)), "pending: its schedule is kept")
    XCTAssertNil(replay.index(of: ActionID(rawValue: 3)), "done before the window: left out")
    replay.seek(toTime: 710)
    XCTAssertEqual(replay.currentRun(of: timer)?.number, 7)
  }

  func testAnActionRunningAtTheWindowStartKeepsItsScheduleHopAndBegin() throws {
    let lines = [
      TraceFixtures.header,
      #"{"t":0,"e":"thread","th":1,"name":"main"}"#,
      #"{"t":0,"e":"scheduler","q":1,"label":"q","kind":"concurrent","family":"virtual"}"#,
      #"{"t":0,"e":"site","site":1,"file":"F.swift","line":3,"func":"f()"}"#,
      #"{"t":0,"e":"schedule","a":1,"q":1,"mode":"async","due":0,"th":1,"site":1}"#,
      #"{"t":5,"e":"thread","th":2,"name":"worker"}"#,
      #"{"t":5,"e":"hop","a":1,"from":1,"to":2}"#,
      #"{"t":5,"e":"begin","a":1,"th":2,"run":1}"#,
      #"{"t":6,"e":"mark","th":1,"name":"before"}"#,
      #"{"t":8,"e":"cancel","a":1,"th":1,"started":true}"#,
      #"{"t":20,"e":"mark","th":1,"name":"inside","fields":{"k":"v"}}"#,
      #"{"t":30,"e":"end","a":1,"th":2,"run":1,"dur":25}"#,
      #"{"t":40,"e":"close","events":6,"dropped":0}"#,
    ]
    let (trace, _) = try TraceFixtures.read(TraceFixtures.trace(lines))
    let (slice, reading) = try self.slice(trace, from: 10, to: 35)
    XCTAssertEqual(reading.diagnostics, [])
    XCTAssertEqual(slice.events.map(\.kind), [.schedule, .hop, .begin, .cancel, .mark, .end])
    XCTAssertEqual(slice.marks, [MarkRecord(name: "inside", fields: ["k": "v"])])
    XCTAssertEqual(slice.threadNames, [1: "main", 2: "worker"])
    XCTAssertEqual(slice.callSites.keys.sorted(), [1])
    var replay = ReplayEngine(trace: slice)
    replay.seek(toTime: 10)
    let action = try XCTUnwrap(replay.index(of: ActionID(rawValue: 1)))
    XCTAssertEqual(replay.state(of: action), .runningCancelled)
    XCTAssertEqual(replay.currentRun(of: action)?.began, 5)
    XCTAssertEqual(replay.closedAt, 35)
  }

  func testAWindowReachingTheEndOfAnUnclosedTraceStaysUnclosedAndOneBeforeItCloses() throws {
    let (trace, reading) = try TraceFixtures.read(Self.repeatingTimer(runs: 4, closed: false))
    XCTAssertTrue(reading.hasWarnings)
    let (whole, wholeReading) = try slice(trace, from: 200, to: TraceSlice.end(of: trace))
    XCTAssertNil(whole.closing, "the original's last moments may be missing: still said")
    TraceFixtures.assertNoNewDiagnostics(wholeReading, comparedTo: reading, "unclosed")
    let (early, earlyReading) = try slice(trace, from: 200, to: 300)
    XCTAssertEqual(early.closing?.written, Int64(early.events.count))
    XCTAssertEqual(early.closedAt, 300)
    XCTAssertEqual(earlyReading.diagnostics, [])
  }

  func testACrashInsideTheWindowIsKept() throws {
    var bytes = Self.repeatingTimer(runs: 3, closed: false)
    bytes += Array(#"{"t":400,"e":"crash","signal":"SIGABRT","th":1}"#.utf8 + [0x0A])
    let (trace, reading) = try TraceFixtures.read(bytes)
    let (kept, keptReading) = try slice(trace, from: 150, to: 400)
    XCTAssertEqual(kept.crash, trace.crash)
    TraceFixtures.assertNoNewDiagnostics(keptReading, comparedTo: reading, "crash")
    let (before, _) = try slice(trace, from: 150, to: 399)
    XCTAssertNil(before.crash)
    XCTAssertNotNil(before.closing)
  }

  /// A random trace, well-formed lives and hostile ones alike: begins without schedules, ends
  /// without begins, duplicate ids, cancels of finished work, repeating work, times that step
  /// back, unknown schedulers.
  private static func randomTrace(_ random: inout SplitMix64) -> Trace {
    func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    let actions = UInt64(1 + random.next() % 10)
    var time: Int64 = 0
    var events: [TraceEvent] = []
    var marks: [MarkRecord] = []
    for _ in 0..<(10 + random.next() % 120) {
      time = max(0, time + pick([0, 1, 3, 10, -5]))
      let action = UInt32(1 + random.next() % actions)
      let thread = UInt32(1 + random.next() % 3)
      switch random.next() % 12 {
      case 0, 1, 2:
        events.append(
          .schedule(
            time: time, action: action, scheduler: UInt32(1 + random.next() % 3),
            mode: pick(TraceEvent.ScheduleMode.allCases), delay: pick([0, 4, 25]),
            due: time + pick([0, 4, 25]), thread: thread, parent: UInt32(random.next() % 3),
            site: UInt32(random.next() % 3)))
      case 3, 4, 5:
        events.append(.begin(time: time, action: action, thread: thread, run: pick([1, 2, 3])))
      case 6, 7:
        events.append(
          .end(time: time, action: action, thread: thread, run: pick([1, 2, 3]), duration: 2))
      case 8: events.append(.hop(time: time, action: action, from: thread, to: thread % 3 + 1))
      case 9:
        events.append(
          .cancel(
            time: time, action: action, thread: thread, by: UInt32(random.next() % 3),
            started: random.next() % 2 == 0))
      default:
        events.append(.mark(time: time, thread: thread, mark: UInt32(marks.count)))
        marks.append(MarkRecord(name: "m\(marks.count)"))
      }
    }
    var trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "property", pid: 1),
      events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "virtual", time: 0),
        2: SchedulerRecord(id: 2, label: "work", kind: "concurrent", family: "virtual", time: 0),
      ],
      callSites: [1: CallSiteRecord(id: 1, file: "F.swift", line: 1, function: "f()")],
      threadNames: [1: "main", 2: "worker"], marks: marks)
    if random.next() % 2 == 0 {
      trace.closing = Trace.Closing(written: Int64(events.count), dropped: 0)
      trace.closedAt = time + 1
    }
    return trace
  }

  func testSlicesOfRandomHostileTracesReplayAsTheOriginalInTheWindow() throws {
    for seed in 1...300 {
      var random = SplitMix64(seed: UInt64(seed))
      let original = Self.randomTrace(&random)
      let (trace, reading) = try TraceFixtures.read(TraceEncoder.encode(original))
      let end = TraceSlice.end(of: trace)
      let from = Int64(random.next() % UInt64(end + 1))
      let to = from + Int64(random.next() % UInt64(end - from + 1))
      let (slice, sliceReading) = try self.slice(trace, from: from, to: to)
      let name = "seed \(seed), \(from)…\(to)"
      XCTAssertLessThanOrEqual(sliceReading.warningCount, reading.warningCount, name)
      var replay = (original: ReplayEngine(trace: trace), slice: ReplayEngine(trace: slice))
      let instants = Set([from, to] + trace.events.map(\.time).filter { (from...to).contains($0) })
      for instant in instants {
        replay.original.seek(toTime: instant)
        replay.slice.seek(toTime: instant)
        let (schedulers, threads) = (replay.original.schedulers, replay.original.threads)
        XCTAssertEqual(
          Snapshot(replay.slice, schedulers: schedulers, threads: threads),
          Snapshot(replay.original, schedulers: schedulers, threads: threads),
          "\(name) at \(instant)")
      }
    }
  }

  // MARK: - Windows

  func testWindowsOutsideTheTraceOrBackwardsAreErrorsThatSaySo() throws {
    let (trace, _) = try TraceFixtures.read(Self.repeatingTimer(runs: 2))
    let end = TraceSlice.end(of: trace)
    XCTAssertEqual(end, 290)
    let cases: [(Int64, Int64, String)] = [
      (200, 100, "after its end"), (300, 400, "starts at"), (100, 291, "ends at"),
      (-1, 10, "start at 0s"),
    ]
    for (from, to, message) in cases {
      XCTAssertThrowsError(try TraceSlice.Window(from: from, to: to, in: trace)) { error in
        XCTAssertTrue("\(error)".contains(message), "\(from)…\(to): \(error)")
      }
    }
    XCTAssertNoThrow(try TraceSlice.Window(from: end, to: end, in: trace))
  }

  func testEventsAndActionsNameTheInstantsShowAtNames() throws {
    let (trace, _) = try TraceFixtures.read(Self.repeatingTimer(runs: 2))
    let replay = ReplayEngine(trace: trace)
    let time = { (text: String) in
      try TraceSlice.time(of: XCTUnwrap(TimeText.parse(text)), in: replay)
    }
    XCTAssertEqual(try time("e0"), 0)
    XCTAssertEqual(try time("e4"), 2, "the fourth event: the begin of #3")
    XCTAssertEqual(try time("#3"), 1)
    XCTAssertEqual(try time("150ns"), 150)
    XCTAssertThrowsError(try time("e99"))
    XCTAssertThrowsError(try time("#42"))
  }
}
