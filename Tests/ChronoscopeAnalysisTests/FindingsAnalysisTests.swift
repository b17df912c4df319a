@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// Each kind of finding on a small crafted trace whose right answer is known, and no finding on
/// the clean recordings.
final class FindingsAnalysisTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  private static func findings(
    _ events: [TraceEvent], closed: Bool = true, crash: Trace.Crash? = nil,
    thresholds: FindingThresholds = FindingThresholds()
  ) -> [Finding] {
    var trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: CraftedSchedulers.all, threadNames: [1: "main"],
      closing: closed ? .init(written: Int64(events.count), dropped: 0) : nil)
    trace.crash = crash
    return FindingsAnalysis.findings(in: ReplayEngine(trace: trace), thresholds: thresholds)
  }

  private static func schedule(
    _ action: UInt32, scheduler: UInt32, at time: Int64, mode: TraceEvent.ScheduleMode = .async,
    delay: Int64 = 0
  ) -> TraceEvent {
    .schedule(
      time: time, action: action, scheduler: scheduler, mode: mode, delay: delay, due: time + delay,
      thread: 1, parent: 0, site: 0)
  }

  private static func run(_ action: UInt32, from start: Int64, to end: Int64, run: UInt32 = 1)
    -> [TraceEvent]
  {
    [
      .begin(time: start, action: action, thread: 1, run: run),
      .end(time: end, action: action, thread: 1, run: run, duration: end - start),
    ]
  }

  func testWorkThatNeverRanNorWasCancelledIsLost() throws {
    let findings = Self.findings(
      [
        Self.schedule(1, scheduler: 3, at: 0, mode: .after, delay: 5 * Self.ms),
        Self.schedule(2, scheduler: 3, at: 1),
      ] + Self.run(2, from: 2, to: 3) + [.mark(time: 20 * Self.ms, thread: 1, mark: 0)])
    let lost = try XCTUnwrap(findings.first { $0.kind == .lostWork })
    XCTAssertEqual(lost.severity, .warning)
    XCTAssertEqual(lost.time, 5 * Self.ms, "marked where it was due")
    XCTAssertEqual(findings.filter { $0.kind == .lostWork }.count, 1, "#2 ran")
  }

  func testPendingWorkAtTheTailOfATraceStillBeingWrittenIsNotLost() throws {
    let findings = Self.findings(
      [Self.schedule(1, scheduler: 2, at: 0, mode: .after, delay: 5 * Self.ms)], closed: false)
    XCTAssertEqual(findings.map(\.kind), [], "no close line and no crash: the tail is live")
  }

  func testPendingWorkAtACrashIsOnlyInformation() throws {
    let findings = Self.findings(
      [Self.schedule(1, scheduler: 2, at: 0, mode: .after, delay: 5 * Self.ms)], closed: false,
      crash: Trace.Crash(signal: "SIGSEGV", thread: 1, time: 6 * Self.ms))
    XCTAssertEqual(findings.map(\.kind), [.lostWork])
    XCTAssertEqual(findings[0].severity, .info)
    XCTAssertTrue(findings[0].message.contains("process crashed"), findings[0].message)
  }

  func testPendingWorkWhenAStopSignalEndedTheProcessIsLostIfLongDue() throws {
    // A hung program stopped with Ctrl-C (`chronoscope record`): what it waited for is the bug.
    let events = [
      Self.schedule(1, scheduler: 2, at: 0), Self.schedule(2, scheduler: 2, at: 49 * Self.ms),
    ]
    let findings = Self.findings(
      events, closed: false, crash: Trace.Crash(signal: "SIGINT", thread: 1, time: 50 * Self.ms))
    XCTAssertEqual(findings.map(\.severity), [.warning, .info], "\(findings.map(\.message))")
    XCTAssertTrue(findings[0].message.contains("stopped by SIGINT"), findings[0].message)
  }

  func testPendingWorkScheduledBeforeTheRecorderDroppedEventsIsOnlyInformation() throws {
    // Its begin may be among the dropped events: no false "lost" (found recording a test suite).
    var trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1),
      events: [
        Self.schedule(1, scheduler: 3, at: 0), Self.schedule(2, scheduler: 3, at: 30 * Self.ms),
      ]
        + [.mark(time: 90 * Self.ms, thread: 1, mark: 0)],
      schedulers: CraftedSchedulers.all, threadNames: [1: "main"],
      closing: .init(written: 3, dropped: 10))
    trace.droppedEvents = 10
    trace.lastDropTime = 20 * Self.ms
    let findings = FindingsAnalysis.findings(
      in: ReplayEngine(trace: trace), thresholds: FindingThresholds())
    XCTAssertEqual(findings.map(\.kind), [.lostWork, .lostWork])
    XCTAssertEqual(findings.map(\.severity), [.info, .warning], "#2 came after the drop")
    XCTAssertTrue(findings[0].message.contains("dropped events"), findings[0].message)
  }

  func testABeginPastTheThresholdIsLateWithItsWorstLateness() throws {
    let findings = Self.findings(
      [Self.schedule(1, scheduler: 3, at: 0, mode: .after, delay: 10 * Self.ms)]
        + Self.run(1, from: 35 * Self.ms, to: 36 * Self.ms)
        + [Self.schedule(2, scheduler: 3, at: 0, mode: .after, delay: 10 * Self.ms)]
        + Self.run(2, from: 19 * Self.ms, to: 20 * Self.ms))
    let late = findings.filter { $0.kind == .late }
    XCTAssertEqual(late.count, 1, "9 ms late is under the 10 ms threshold")
    XCTAssertEqual(late.first?.duration, 25 * Self.ms)
    XCTAssertTrue(late.first?.message.hasPrefix("began 25.000ms after it was due") ?? false)
    let strict = Self.findings(
      [Self.schedule(2, scheduler: 3, at: 0, mode: .after, delay: 10 * Self.ms)]
        + Self.run(2, from: 19 * Self.ms, to: 20 * Self.ms),
      thresholds: FindingThresholds(late: 5 * Self.ms))
    XCTAssertEqual(strict.map(\.kind), [.late], "--late 5ms")
  }

  func testALongRunOnASerialSchedulerBlocksTheWorkDueBehindIt() throws {
    let findings = Self.findings(
      [Self.schedule(1, scheduler: 2, at: 0), Self.schedule(2, scheduler: 2, at: 10 * Self.ms)]
        + Self.run(1, from: 0, to: 80 * Self.ms) + Self.run(2, from: 80 * Self.ms, to: 81 * Self.ms)
    )
    let blocking = try XCTUnwrap(findings.first { $0.kind == .headOfLineBlocking })
    XCTAssertEqual(blocking.time, 0, "marked where the blocker began")
    XCTAssertEqual(blocking.related.count, 1)
    XCTAssertEqual(blocking.duration, 70 * Self.ms, "due at 10 ms, waited until 80 ms")
    XCTAssertTrue(blocking.message.contains("on serial db"), blocking.message)
    XCTAssertTrue(findings.contains { $0.kind == .late }, "and the waiter began 70 ms late")
  }

  func testALongRunThatHoldsWorkUpLessThanTheLateThresholdBlocksNothing() {
    // #1 schedules #2 onto its own scheduler 5 ms before it ends: #2 waits, but is not late.
    let findings = Self.findings(
      [Self.schedule(1, scheduler: 2, at: 0), Self.schedule(2, scheduler: 2, at: 75 * Self.ms)]
        + Self.run(1, from: 0, to: 80 * Self.ms) + Self.run(2, from: 80 * Self.ms, to: 81 * Self.ms)
    )
    XCTAssertEqual(findings.filter { $0.kind == .headOfLineBlocking }, [])
    XCTAssertEqual(findings, [], "nothing is wrong")
  }

  func testALongRunOnAConcurrentSchedulerBlocksNothing() {
    let findings = Self.findings(
      [Self.schedule(1, scheduler: 3, at: 0), Self.schedule(2, scheduler: 3, at: 0)]
        + Self.run(1, from: 0, to: 80 * Self.ms) + Self.run(2, from: 1, to: 2))
    XCTAssertEqual(findings.filter { $0.kind == .headOfLineBlocking }, [])
  }

  func testAMainSchedulerRunOverTheHangThresholdIsAHang() throws {
    let findings = Self.findings(
      [Self.schedule(1, scheduler: 1, at: 0)] + Self.run(1, from: 0, to: 300 * Self.ms)
        + [Self.schedule(2, scheduler: 1, at: 400 * Self.ms)]
        + Self.run(2, from: 400 * Self.ms, to: 600 * Self.ms))
    let hangs = findings.filter { $0.kind == .mainThreadHang }
    XCTAssertEqual(hangs.count, 1, "200 ms is under 250 ms")
    XCTAssertEqual(hangs.first?.severity, .error)
    XCTAssertEqual(hangs.first?.duration, 300 * Self.ms)
  }

  /// The main thread's own code blocked on a semaphore outside any main-queue job (a `wait` line)
  /// is a hang too, reported at the wait's start, naming the action that signalled it; a short
  /// wait, and a wait of a thread that is not the main scheduler's, are not (issue 40, 2.10).
  func testAMainThreadWaitOverTheHangThresholdIsAHangWithItsSignaller() throws {
    let findings = Self.findings(
      [Self.schedule(1, scheduler: 2, at: 0)] + Self.run(1, from: 0, to: 300 * Self.ms) + [
        .wait(
          time: 301 * Self.ms, thread: 1, scheduler: 1, duration: 300 * Self.ms, on: .semaphore,
          by: 1, site: 0),
        .wait(
          time: 400 * Self.ms, thread: 1, scheduler: 1, duration: 90 * Self.ms, on: .group, by: 0,
          site: 0),
        .wait(
          time: 900 * Self.ms, thread: 5, scheduler: 0, duration: 400 * Self.ms, on: .group,
          by: 0, site: 0),
      ])
    let hangs = findings.filter { $0.kind == .mainThreadHang }
    XCTAssertEqual(hangs.count, 1, "\(hangs.map(\.message))")
    let hang = try XCTUnwrap(hangs.first)
    XCTAssertNil(hang.action, "no action ran: the main thread's own code waited")
    XCTAssertEqual(hang.time, 1 * Self.ms, "where the wait began")
    XCTAssertEqual(hang.duration, 300 * Self.ms)
    XCTAssertEqual(hang.related, [ActionIndex(0)], "#1 signalled it")
    XCTAssertEqual(hang.scheduler, SchedulerID(rawValue: 1))
    XCTAssertTrue(
      hang.message.hasPrefix(
        "waited 300.000ms on a semaphore outside any main-queue job, until #1"),
      hang.message)
  }

  func testATimerNeverCancelledInAClosedTraceLeaks() throws {
    let timer: [TraceEvent] =
      [Self.schedule(1, scheduler: 1, at: 0, mode: .repeating, delay: 10 * Self.ms)]
      + Self.run(1, from: 10 * Self.ms, to: 11 * Self.ms)
    XCTAssertEqual(Self.findings(timer).map(\.kind), [.leakedTimer])
    XCTAssertEqual(Self.findings(timer, closed: false), [], "the recording stopped: not known")
    let cancelled =
      timer + [.cancel(time: 12 * Self.ms, action: 1, thread: 1, by: 0, started: true)]
    XCTAssertEqual(Self.findings(cancelled), [])
  }

  func testATimerMoreThanOneIntervalBehindItsRhythmFallsBehind() throws {
    // Every 10 ms from 10 ms: run 2 (due 20 ms) begins at 35 ms, 15 ms behind.
    let events: [TraceEvent] =
      [Self.schedule(1, scheduler: 3, at: 0, mode: .repeating, delay: 10 * Self.ms)]
      + Self.run(1, from: 10 * Self.ms, to: 11 * Self.ms)
      + Self.run(1, from: 35 * Self.ms, to: 36 * Self.ms, run: 2)
      + [.cancel(time: 37 * Self.ms, action: 1, thread: 1, by: 0, started: true)]
    let behind = try XCTUnwrap(Self.findings(events).first { $0.kind == .timerFallingBehind })
    XCTAssertEqual(behind.duration, 15 * Self.ms)
    XCTAssertTrue(behind.message.hasPrefix("run 2 began 15.000ms behind its rhythm"))
  }

  func testCancellingFinishedWorkIsANoOpCancel() throws {
    let events: [TraceEvent] =
      [Self.schedule(1, scheduler: 3, at: 0)] + Self.run(1, from: 1, to: 2)
      + [.cancel(time: 5, action: 1, thread: 1, by: 0, started: true)]
    let findings = Self.findings(events)
    XCTAssertEqual(findings.map(\.kind), [.noOpCancel])
    XCTAssertEqual(findings[0].time, 5)
    XCTAssertEqual(findings[0].severity, .info)
    let beforeItRan: [TraceEvent] = [
      Self.schedule(1, scheduler: 3, at: 0),
      .cancel(time: 1, action: 1, thread: 1, by: 0, started: false),
    ]
    XCTAssertEqual(Self.findings(beforeItRan), [], "a cancel that stopped work did something")
  }

  func testTheFindingsDemoRecordingShowsEveryKindItDemonstrates() throws {
    let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Recordings")
    for name in ["findings-demo", "findings-demo-virtual"] {
      let path = recordings.appendingPathComponent("\(name).trace").path
      let trace = try XCTUnwrap(TraceReader.read(path: path).trace, name)
      let kinds = Set(FindingsAnalysis.findings(in: ReplayEngine(trace: trace)).map(\.kind))
      // A virtual clock runs everything on one thread: its fan-out cannot explode.
      let expected = Set(Finding.Kind.allCases)
        .subtracting(name.hasSuffix("virtual") ? [.threadExplosion] : [])
      XCTAssertEqual(kinds, expected, name)
    }
  }

  func testTheCleanRecordingsHaveNoFindings() throws {
    let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Recordings")
    for name in [
      "contact-loader", "message-loader", "timeout-success", "timeout-timeout", "virtual-timeout",
    ] {
      let path = recordings.appendingPathComponent("\(name).trace").path
      let trace = try XCTUnwrap(TraceReader.read(path: path).trace, name)
      XCTAssertEqual(FindingsAnalysis.findings(in: ReplayEngine(trace: trace)), [], name)
    }
  }
}

extension FindingsAnalysisTests {
  func testASyncThatRanInlineIsFlagged() throws {
    let events: [TraceEvent] = [
      .schedule(
        time: 0, action: 1, scheduler: 2, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
        site: 0),
      .begin(time: 1, action: 1, thread: 1, run: 1),
      .schedule(
        time: 2, action: 2, scheduler: 2, mode: .sync, delay: 0, due: 2, thread: 1, parent: 1,
        site: 0, inline: true),
      .begin(time: 2, action: 2, thread: 1, run: 1),
      .end(time: 3, action: 2, thread: 1, run: 1, duration: 1),
      .end(time: 4, action: 1, thread: 1, run: 1, duration: 3),
    ]
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: [2: SchedulerRecord(id: 2, label: "db", kind: "serial", family: "v", time: 0)],
      closing: .init(written: 6, dropped: 0))
    let findings = FindingsAnalysis.findings(in: ReplayEngine(trace: trace))
    XCTAssertEqual(findings.map(\.kind), [.inlineSync])
    XCTAssertEqual(findings.first?.time, 2)
    XCTAssertEqual(findings.first?.related.count, 1, "the action that held the scheduler")
  }

  func testMoreThreadsAtOnceThanFourTimesTheCoresIsAnExplosion() throws {
    // Ten threads each begin one run before any ends, on a one-core machine (limit 4).
    var events: [TraceEvent] = []
    for id in UInt32(1)...10 {
      events.append(
        .schedule(
          time: 0, action: id, scheduler: 3, mode: .async, delay: 0, due: 0, thread: 1,
          parent: 0, site: 0))
    }
    for id in UInt32(1)...10 {
      events.append(.begin(time: Int64(id), action: id, thread: 100 + id, run: 1))
    }
    for id in UInt32(1)...10 {
      events.append(.end(time: 20 + Int64(id), action: id, thread: 100 + id, run: 1, duration: 20))
    }
    var header = TraceHeader(clock: .virtual, start: "", process: "t", pid: 1)
    header.cores = 1
    let trace = Trace(
      header: header, events: events,
      schedulers: [
        3: SchedulerRecord(id: 3, label: "net", kind: "concurrent", family: "v", time: 0)
      ],
      closing: .init(written: 30, dropped: 0))
    let replay = ReplayEngine(trace: trace)
    let findings = FindingsAnalysis.findings(in: replay)
    XCTAssertEqual(findings.map(\.kind), [.threadExplosion])
    XCTAssertEqual(findings.first?.time, 5, "the fifth thread crossed the limit")
    XCTAssertTrue(findings.first?.message.hasPrefix("10 threads ran") ?? false)
    XCTAssertEqual(findings.first?.duration, 21, "over the limit from 5 until the sixth end at 26")
    XCTAssertEqual(
      FindingsAnalysis.findings(in: replay, thresholds: FindingThresholds(threads: 10)), [])
    header.cores = nil
    let unknown = Trace(
      header: header, events: events, schedulers: trace.schedulers, closing: trace.closing)
    XCTAssertEqual(FindingsAnalysis.findings(in: ReplayEngine(trace: unknown)), [], "no cores")
  }
}

extension FindingsAnalysisTests {
  /// Five runs on five threads, one a millisecond, beginning at `start` (ids from `first`).
  private static func burst(from first: UInt32, at start: Int64) -> [TraceEvent] {
    (first..<first + 5).flatMap { id -> [TraceEvent] in
      let begin = start + Int64(id - first) * Self.ms / 10
      return [
        .schedule(
          time: start, action: id, scheduler: 3, mode: .async, delay: 0, due: start, thread: 1,
          parent: 0, site: 0),
        .begin(time: begin, action: id, thread: 100 + id % 5, run: 1),
      ]
    }
      + (first..<first + 5).map { id in
        .end(time: start + Self.ms, action: id, thread: 100 + id % 5, run: 1, duration: Self.ms)
      }
  }

  private static func explosions(_ events: [TraceEvent]) -> [Finding] {
    var header = TraceHeader(clock: .virtual, start: "", process: "t", pid: 1)
    header.cores = 1
    let trace = Trace(
      header: header, events: events.sorted { $0.time < $1.time },
      schedulers: [
        3: SchedulerRecord(id: 3, label: "net", kind: "concurrent", family: "v", time: 0)
      ],
      closing: .init(written: Int64(events.count), dropped: 0))
    return FindingsAnalysis.findings(in: ReplayEngine(trace: trace))
  }

  func testAnExplosionThatFlickersAroundTheLimitIsOneEpisode() throws {
    // Two bursts of five threads (limit 4), 5 ms apart: one episode from the first burst's fifth
    // begin to the second burst's end.
    let close = Self.explosions(Self.burst(from: 1, at: 0) + Self.burst(from: 11, at: 5 * Self.ms))
    XCTAssertEqual(close.map(\.kind), [.threadExplosion])
    XCTAssertEqual(close.first?.time, 4 * Self.ms / 10)
    XCTAssertEqual(close.first?.duration, 6 * Self.ms - 4 * Self.ms / 10)
    // 50 ms apart, they are two episodes.
    let apart = Self.explosions(Self.burst(from: 1, at: 0) + Self.burst(from: 11, at: 50 * Self.ms))
    XCTAssertEqual(apart.map(\.time), [4 * Self.ms / 10, 50 * Self.ms + 4 * Self.ms / 10])
  }

  func testWorkDueBeforeTheCloseLineIsLostEvenAfterTheLastEvent() throws {
    var trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1),
      events: [
        .schedule(
          time: 0, action: 1, scheduler: 3, mode: .after, delay: 20 * Self.ms, due: 20 * Self.ms,
          thread: 1, parent: 0, site: 0)
      ],
      schedulers: [
        3: SchedulerRecord(id: 3, label: "net", kind: "concurrent", family: "v", time: 0)
      ],
      closing: .init(written: 1, dropped: 0))
    XCTAssertEqual(
      FindingsAnalysis.findings(in: ReplayEngine(trace: trace)).first?.severity, .info,
      "due after the end as far as the events go")
    trace.closedAt = 50 * Self.ms
    let lost = try XCTUnwrap(FindingsAnalysis.findings(in: ReplayEngine(trace: trace)).first)
    XCTAssertEqual(lost.kind, .lostWork)
    XCTAssertEqual(lost.severity, .warning, "the recording went on until 50 ms")
    trace.closedAt = 25 * Self.ms
    let notYet = try XCTUnwrap(FindingsAnalysis.findings(in: ReplayEngine(trace: trace)).first)
    XCTAssertEqual(notYet.severity, .info, "due 5 ms before the close: not late yet, not lost")
    XCTAssertTrue(notYet.message.hasSuffix("5.000ms after it was due: not late yet"))
  }
}

extension FindingsAnalysisTests {
  /// A timer and a one-shot still pending at the end of a trace closed at `closedAt`, cut as a
  /// slice to `sliceTo` when given.
  private static func endOfTrace(closedAt: Int64, sliceTo: Int64?) -> [Finding] {
    var header = TraceHeader(clock: .virtual, start: "", process: "t", pid: 1)
    if let sliceTo {
      header.metadata = [
        TraceHeader.sliceFromKey: "0", TraceHeader.sliceToKey: String(sliceTo),
        TraceHeader.sliceSourceKey: "app.trace",
      ]
    }
    var trace = Trace(
      header: header,
      events: [
        .schedule(
          time: 0, action: 1, scheduler: 3, mode: .repeating, delay: 10 * ms, due: 10 * ms,
          thread: 1, parent: 0, site: 0),
        .schedule(
          time: 0, action: 2, scheduler: 3, mode: .after, delay: 5 * ms, due: 5 * ms, thread: 1,
          parent: 0, site: 0),
      ],
      schedulers: [
        3: SchedulerRecord(id: 3, label: "net", kind: "serial", family: "v", time: 0)
      ],
      closing: .init(written: 2, dropped: 0))
    trace.closedAt = closedAt
    return FindingsAnalysis.findings(in: ReplayEngine(trace: trace))
  }

  func testASliceCutBeforeTheAppsEndLeaksNothingAndLosesWorkOnlyAsAHint() {
    let whole = Self.endOfTrace(closedAt: 50 * Self.ms, sliceTo: nil)
    XCTAssertEqual(Set(whole.map(\.kind)), [.leakedTimer, .lostWork])
    XCTAssertEqual(whole.first { $0.kind == .lostWork }?.severity, .warning)

    let cut = Self.endOfTrace(closedAt: 50 * Self.ms, sliceTo: 50 * Self.ms)
    XCTAssertEqual(cut.map(\.kind), [.lostWork], "the timer may have been cancelled later")
    XCTAssertEqual(cut.first?.severity, .info)
    XCTAssertTrue(cut.first?.message.contains("where the window ends") ?? false)

    let closedInside = Self.endOfTrace(closedAt: 40 * Self.ms, sliceTo: 50 * Self.ms)
    XCTAssertEqual(
      Set(closedInside.map(\.kind)), [.leakedTimer, .lostWork], "the app closed inside the window")
  }
}
