import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

final class ReplayEngineTests: XCTestCase {
  static let recordings = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  static func recording(_ name: String) throws -> Trace {
    try XCTUnwrap(
      TraceReader.read(path: recordings.appendingPathComponent("\(name).trace").path).trace)
  }

  func testSteppingForwardThenBackReturnsIdenticalStateAtEveryPosition() throws {
    for name in ["busy-app", "virtual-timeout", "timeout-timeout"] {
      var replay = ReplayEngine(trace: try Self.recording(name), keyframeInterval: 64)
      var forward: [ReplaySnapshot] = [ReplaySnapshot(replay)]
      while replay.stepForward() { forward.append(ReplaySnapshot(replay)) }
      XCTAssertEqual(replay.position, replay.eventCount)
      XCTAssertTrue(replay.pendingCount() == 0 || name == "busy-app", name)
      var backward: [ReplaySnapshot] = [ReplaySnapshot(replay)]
      while replay.stepBackward() { backward.append(ReplaySnapshot(replay)) }
      XCTAssertEqual(forward, backward.reversed(), name)
    }
  }

  func testSeekingAnywhereEqualsSteppingFromTheStart() throws {
    let trace = try Self.recording("busy-app")
    var stepped = ReplayEngine(trace: trace, keyframeInterval: 100)
    var expected: [ReplaySnapshot] = [ReplaySnapshot(stepped)]
    while stepped.stepForward() { expected.append(ReplaySnapshot(stepped)) }
    var seeker = ReplayEngine(trace: trace, keyframeInterval: 100)
    var generator = SplitMix64(seed: 7)
    for _ in 0..<300 {
      let target = Int.random(in: 0...seeker.eventCount, using: &generator)
      seeker.seek(to: target)
      XCTAssertEqual(ReplaySnapshot(seeker), expected[target], "seek to \(target)")
      seeker._checkInvariants()
    }
  }

  func testSeekingByTimeLandsOnTheLastEventAtOrBeforeIt() throws {
    var replay = ReplayEngine(trace: try Self.recording("virtual-timeout"))
    replay.seek(toTime: 1_500_000_000)
    XCTAssertEqual(replay.now, 1_000_000_000)
    XCTAssertEqual(replay.event(EventIndex(replay.position)).time, 3_000_000_000)
    replay.seek(toTime: -1)
    XCTAssertEqual(replay.position, 0)
    replay.seek(toTime: .max)
    XCTAssertEqual(replay.position, replay.eventCount)
  }

  func testPendingActionsAtKnownInstantsOfTheTimeoutRecording() throws {
    var replay = ReplayEngine(trace: try Self.recording("virtual-timeout"))
    let label = { (action: ActionIndex) in
      replay.scheduler(replay.action(action).scheduler)?.label ?? "?"
    }
    // Scenario 1 at time 0, after the service started: the work (due 1 s) and the timeout (due
    // 2 s) are pending, soonest first.
    replay.seek(to: replay.firstIndex(after: 0).offset)
    let pending = replay.pending(first: 10)
    XCTAssertEqual(pending.map { replay.action($0).due }, [1_000_000_000, 2_000_000_000])
    XCTAssertEqual(pending.map(label), ["timeout-service", "timeout-service"])
    XCTAssertEqual(replay.running(), [])
    // At 1 s the work ran and cancelled the timeout: once that cancel is applied, nothing of
    // scenario 1 is pending.
    let timeout = try XCTUnwrap(replay.index(of: ActionID(rawValue: 3)))
    let cancel = try XCTUnwrap(
      replay.eventIndices.first {
        replay.event($0).kind == .cancel && replay.event($0).action == timeout
      })
    replay.seek(to: cancel.number)
    XCTAssertEqual(replay.now, 1_000_000_000)
    XCTAssertEqual(replay.pendingCount(), 0)
    XCTAssertEqual(replay.state(of: timeout), .done)
    let life = replay.life(of: timeout)
    XCTAssertEqual(life.runs, [])
    XCTAssertEqual(life.cancelledAt, 1_000_000_000)
    XCTAssertEqual(life.cancelledBy.map { replay.action($0).id }, ActionID(rawValue: 2))
    XCTAssertFalse(life.cancelledAfterStart)
  }

  func testAnActionIsRunningBetweenItsBeginAndEnd() throws {
    var replay = ReplayEngine(trace: try Self.recording("virtual-timeout"))
    let begin = try XCTUnwrap(replay.eventIndices.first { replay.event($0).kind == .begin })
    replay.seek(to: begin.number)
    let action = try XCTUnwrap(replay.event(begin).action)
    XCTAssertEqual(replay.running(), [action])
    XCTAssertEqual(replay.state(of: action), .running)
    replay.stepBackward()
    XCTAssertEqual(replay.state(of: action), .pending)
  }

  func testTheFirstFewPendingActionsAreThePrefixOfTheFullOrder() throws {
    var replay = ReplayEngine(trace: try Self.recording("busy-app"))
    var checked = 0
    for position in stride(from: 0, through: replay.eventCount, by: 97) {
      replay.seek(to: position)
      let all = replay.pending(first: replay.pendingCount())
      XCTAssertEqual(all.count, replay.pendingCount())
      for count in [0, 1, 3, 10, all.count] {
        XCTAssertEqual(replay.pending(first: count), Array(all.prefix(count)), "at \(position)")
      }
      for scheduler in replay.schedulers.prefix(4).map({ SchedulerID(rawValue: $0.id) }) {
        XCTAssertEqual(
          replay.pending(first: all.count, in: [scheduler]),
          all.filter { replay.action($0).scheduler == scheduler })
        XCTAssertEqual(
          replay.pendingCount(in: [scheduler]), replay.schedulerState(scheduler).pending)
      }
      if all.count > 12 { checked += 1 }
    }
    XCTAssertGreaterThan(checked, 3, "some positions have many pending actions")
  }

  func testHopsAreVisibleInAnActionsLife() throws {
    let replay = ReplayEngine(trace: try Self.recording("busy-app"))
    let hop = try XCTUnwrap(replay.eventIndices.map(replay.event).first { $0.kind == .hop })
    let life = replay.life(of: try XCTUnwrap(hop.action))
    XCTAssertEqual(life.runs.first?.hoppedFrom, hop.hoppedFrom)
    XCTAssertEqual(life.runs.first?.thread, hop.thread)
  }

  // MARK: - Synthetic traces for exact numbers

  private static let header = TraceHeader(clock: .virtual, start: "", process: "t", pid: 1)

  private static func trace(_ events: [TraceEvent], threads: [UInt32: String] = [:]) -> Trace {
    Trace(
      header: header, events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "virtual", time: 0),
        2: SchedulerRecord(id: 2, label: "work", kind: "concurrent", family: "virtual", time: 0),
      ],
      threadNames: threads, closing: .init(written: Int64(events.count), dropped: 0))
  }

  func testRunningWorkCountsOnTheThreadItRunsOnNotTheOneThatScheduledIt() throws {
    var replay = ReplayEngine(
      trace: Self.trace([
        .schedule(
          time: 0, action: 7, scheduler: 2, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
          site: 0),
        .hop(time: 5, action: 7, from: 1, to: 4),
        .begin(time: 5, action: 7, thread: 4, run: 1),
        .end(time: 9, action: 7, thread: 4, run: 1, duration: 4),
      ]))
    let main = ThreadID(rawValue: 1)
    let worker = ThreadID(rawValue: 4)
    replay.seek(to: 1)
    XCTAssertEqual(replay.threadState(main).running, [])
    XCTAssertNil(replay.threadState(main).busySince)
    XCTAssertEqual(replay.schedulerState(SchedulerID(rawValue: 2)).pending, 1)
    XCTAssertEqual(replay.schedulerState(SchedulerID(rawValue: 2)).running, 0)
    replay.seek(to: 3)
    let action = try XCTUnwrap(replay.index(of: ActionID(rawValue: 7)))
    XCTAssertEqual(replay.threadState(worker).running, [action])
    XCTAssertEqual(replay.threadState(worker).busySince, 5)
    XCTAssertEqual(replay.threadState(main).running, [], "not on the scheduling thread")
    XCTAssertEqual(replay.currentRun(of: action)?.thread, worker)
    XCTAssertEqual(replay.running(on: [worker]), [action])
    XCTAssertEqual(replay.running(on: [main]), [])
    XCTAssertEqual(replay.schedulerState(SchedulerID(rawValue: 2)).pending, 0)
    XCTAssertEqual(replay.schedulerState(SchedulerID(rawValue: 2)).running, 1)
    replay.stepForward()
    XCTAssertEqual(replay.threadState(worker).running, [])
    replay._checkInvariants()
  }

  func testARepeatingActionIsNextDueOnItsRhythmNotOneIntervalAfterALateRun() throws {
    // Every 10 ns from 10: run 1 began late at 14, run 2 at 27.
    var replay = ReplayEngine(
      trace: Self.trace([
        .schedule(
          time: 0, action: 1, scheduler: 1, mode: .repeating, delay: 10, due: 10, thread: 1,
          parent: 0, site: 0),
        .begin(time: 14, action: 1, thread: 1, run: 1),
        .end(time: 15, action: 1, thread: 1, run: 1, duration: 1),
        .begin(time: 27, action: 1, thread: 1, run: 2),
        .end(time: 28, action: 1, thread: 1, run: 2, duration: 1),
        .cancel(time: 29, action: 1, thread: 1, by: 0, started: true),
      ]))
    let timer = try XCTUnwrap(replay.index(of: ActionID(rawValue: 1)))
    replay.seek(to: 3)
    XCTAssertEqual(replay.nextDue(of: timer), 20, "first due + 1 interval, not 14 + 10")
    XCTAssertEqual(replay.lastRun(of: timer)?.lateness, 4)
    replay.seek(to: 5)
    XCTAssertEqual(replay.nextDue(of: timer), 30)
    XCTAssertEqual(replay.lastRun(of: timer)?.lateness, 7, "drift grows: 27 against 20")
    XCTAssertEqual(replay.life(of: timer).runs.map(\.due), [10, 20])
    replay.seek(to: 6)
    XCTAssertNil(replay.nextDue(of: timer))
    replay.stepBackward()
    XCTAssertEqual(replay.nextDue(of: timer), 30, "undoing the cancel restores the rhythm")
    replay.seek(to: 3)
    replay.stepForward()
    replay.stepBackward()
    XCTAssertEqual(replay.nextDue(of: timer), 20)
    replay._checkInvariants()
  }

  func testAWindowThatStartsAfterEarlierRunsNumbersRunsAsTheTraceDoes() throws {
    // A flight recorder's dump: the timer (every 10 ns from 10) is held from its run 60 on.
    var replay = ReplayEngine(
      trace: Self.trace([
        .schedule(
          time: 0, action: 1, scheduler: 1, mode: .repeating, delay: 10, due: 10, thread: 1,
          parent: 0, site: 0),
        .begin(time: 602, action: 1, thread: 1, run: 60),
        .end(time: 603, action: 1, thread: 1, run: 60, duration: 1),
        .begin(time: 611, action: 1, thread: 1, run: 61),
        .end(time: 612, action: 1, thread: 1, run: 61, duration: 1),
      ]))
    let timer = try XCTUnwrap(replay.index(of: ActionID(rawValue: 1)))
    replay.seek(to: 2)
    XCTAssertEqual(replay.currentRun(of: timer)?.number, 60, "the Running panel's run number")
    replay.seek(to: 3)
    XCTAssertEqual(replay.nextDue(of: timer), 610, "run 61's due, on the rhythm")
    XCTAssertEqual(replay.lastRun(of: timer)?.lateness, 2, "run 60 was due at 600")
    replay.seek(to: 5)
    XCTAssertEqual(replay.life(of: timer).runs.map(\.number), [60, 61])
    XCTAssertEqual(replay.life(of: timer).runs.map(\.due), [600, 610])
    replay.stepBackward()
    XCTAssertEqual(replay.currentRun(of: timer)?.number, 61)
    replay.stepBackward()
    XCTAssertEqual(replay.nextDue(of: timer), 610, "stepping back over run 61's begin")
    replay._checkInvariants()
  }

  func testEventsOfActionsNeverScheduledDoNotShiftPositions() throws {
    // The reader warns about the stray begin and end; the replay leaves them out, and the real
    // action's schedule position must count only what it kept.
    var replay = ReplayEngine(
      trace: Self.trace([
        .begin(time: 0, action: 99, thread: 1, run: 1),
        .end(time: 1, action: 99, thread: 1, run: 1, duration: 1),
        .schedule(
          time: 2, action: 1, scheduler: 1, mode: .async, delay: 0, due: 2, thread: 1, parent: 0,
          site: 0),
        .begin(time: 3, action: 1, thread: 1, run: 1),
        .end(time: 4, action: 1, thread: 1, run: 1, duration: 1),
      ]))
    XCTAssertEqual(replay.eventCount, 3)
    let action = try XCTUnwrap(replay.index(of: ActionID(rawValue: 1)))
    XCTAssertEqual(replay.scheduleEvent(of: action), EventIndex(0))
    XCTAssertEqual(replay.state(of: action), .unscheduled)
    replay.seek(to: 1)
    XCTAssertEqual(replay.state(of: action), .pending)
    XCTAssertEqual(replay.life(of: action).runs.count, 1)
    replay.seek(to: 3)
    XCTAssertEqual(replay.state(of: action), .done)
  }

  func testHostileTimesAndRunNumbersDoNotTrap() throws {
    var replay = ReplayEngine(
      trace: Self.trace([
        .schedule(
          time: 0, action: 1, scheduler: 9, mode: .repeating, delay: .max, due: .max, thread: 1,
          parent: 0, site: 0),
        .begin(time: 1, action: 1, thread: 1, run: 0),
        .end(time: 2, action: 1, thread: 1, run: .max, duration: .min),
        .begin(time: 3, action: 1, thread: 1, run: 0),
        .cancel(time: 4, action: 1, thread: 1, by: 1, started: true),
        .end(time: 5, action: 1, thread: 1, run: 0, duration: 0),
      ]))
    let action = try XCTUnwrap(replay.index(of: ActionID(rawValue: 1)))
    replay.seek(to: 3)
    XCTAssertEqual(replay.nextDue(of: action), .max, "due + interval saturates")
    XCTAssertEqual(
      replay.schedulerState(SchedulerID(rawValue: 9)).pending, 1, "an undefined scheduler")
    XCTAssertEqual(replay.schedulerState(SchedulerID(rawValue: 8)).pending, 0)
    replay.seek(to: replay.eventCount)
    XCTAssertEqual(replay.life(of: action).runs.map(\.number), [1, 2])
    replay._checkInvariants()
    while replay.stepBackward() {}
    replay._checkInvariants()
  }

  func testThreadTitlesAreWholeAndUnique() {
    let titles = ThreadInfo.titles(for: [
      (ThreadID(rawValue: 1), "main"), (ThreadID(rawValue: 4), "-qos.overcommit"),
      (ThreadID(rawValue: 5), "oot.default-qos"), (ThreadID(rawValue: 6), "io"),
      (ThreadID(rawValue: 7), "io"), (ThreadID(rawValue: 8), nil),
      (ThreadID(rawValue: 9), "database"),
    ])
    XCTAssertEqual(
      titles, ["main", "worker 4", "worker 5", "io (6)", "io (7)", "worker 8", "database"])
  }

  func testThreadsKnowWhichSchedulersTheyServed() throws {
    let replay = ReplayEngine(trace: try Self.recording("busy-app"))
    let served = replay.threads.filter { !$0.schedulers.isEmpty }
    XCTAssertGreaterThan(served.count, 2)
    XCTAssertEqual(Set(replay.threads.map(\.title)).count, replay.threads.count, "unique titles")
    XCTAssertFalse(replay.threads.contains { $0.title.utf8.count == 15 }, "no cut fragments")
  }
}

/// Task lines: not steps, but what the replay groups work by when asked for task lanes.
final class ReplayTaskTests: XCTestCase {
  func testTaskTalliesFollowEveryStepBothWays() {
    // Task 7 sleeps (#1) and, woken, runs a job (#3); task 9 runs a job (#2) meanwhile. #4 is
    // nobody's task; a task line of an action never scheduled is ignored.
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1),
      events: [
        .schedule(
          time: 0, action: 1, scheduler: 1, mode: .after, delay: 50, due: 50, thread: 1,
          parent: 0, site: 0),
        .task(time: 0, action: 1, task: 7),
        .schedule(
          time: 10, action: 2, scheduler: 2, mode: .async, delay: 0, due: 10, thread: 1,
          parent: 0, site: 0),
        .task(time: 10, action: 2, task: 9),
        .task(time: 10, action: 99, task: 9),
        .begin(time: 20, action: 2, thread: 1, run: 1),
        .end(time: 30, action: 2, thread: 1, run: 1, duration: 10),
        .begin(time: 50, action: 1, thread: 1, run: 1),
        .end(time: 50, action: 1, thread: 1, run: 1, duration: 0),
        .schedule(
          time: 50, action: 3, scheduler: 2, mode: .async, delay: 0, due: 50, thread: 1,
          parent: 1, site: 0),
        .task(time: 50, action: 3, task: 7),
        .schedule(
          time: 60, action: 4, scheduler: 2, mode: .async, delay: 0, due: 60, thread: 1,
          parent: 0, site: 0),
        .begin(time: 70, action: 3, thread: 1, run: 1),
      ],
      schedulers: [
        1: SchedulerRecord(id: 1, label: "sleeps", kind: "concurrent", family: "clock", time: 0),
        2: SchedulerRecord(id: 2, label: "actor", kind: "serial", family: "actor", time: 0),
      ])
    var replay = ReplayEngine(trace: trace, keyframeInterval: 2)
    XCTAssertEqual(replay.eventCount, 9, "task lines are not steps")
    XCTAssertEqual(replay.tasks.map(\.id), [TaskID(rawValue: 7), TaskID(rawValue: 9)])
    XCTAssertEqual(replay.tasks.map(\.actionCount), [2, 1])
    XCTAssertEqual(
      replay.task(TaskID(rawValue: 7))?.schedulers,
      [SchedulerID(rawValue: 1), SchedulerID(rawValue: 2)])
    let (seven, nine) = (TaskID(rawValue: 7), TaskID(rawValue: 9))
    func states() -> [String] {
      [seven, nine].map {
        let state = replay.taskState($0)
        return "\(state.pending)p \(state.running)r"
      }
    }
    var forward: [[String]] = [states()]
    while replay.stepForward() {
      replay._checkInvariants()
      forward.append(states())
    }
    XCTAssertEqual(
      forward,
      [
        ["0p 0r", "0p 0r"], ["1p 0r", "0p 0r"], ["1p 0r", "1p 0r"], ["1p 0r", "0p 1r"],
        ["1p 0r", "0p 0r"], ["0p 1r", "0p 0r"], ["0p 0r", "0p 0r"], ["1p 0r", "0p 0r"],
        ["1p 0r", "0p 0r"], ["0p 1r", "0p 0r"],
      ])
    XCTAssertEqual(replay.pendingCount(of: [seven]), 0)
    XCTAssertEqual(replay.pendingCount(), 1, "#4, nobody's task")
    XCTAssertEqual(replay.running(of: [seven]).map { replay.action($0).id.rawValue }, [3])
    XCTAssertNil(replay.task(of: replay.index(of: ActionID(rawValue: 4))!))
    var backward: [[String]] = [states()]
    while replay.stepBackward() {
      replay._checkInvariants()
      backward.append(states())
    }
    XCTAssertEqual(backward, forward.reversed())
    for position in [7, 2, 9, 0, 5] {
      replay.seek(to: position)
      XCTAssertEqual(states(), forward[position], "seek to \(position)")
    }
  }

  /// An action is found by its trace id whether the ids ascend as the actions were scheduled
  /// (a search) or not (a table), and an id the trace never scheduled is found nowhere.
  func testActionsAreFoundByIdInAnyOrderOfIds() {
    for ids in [[1, 5, 9, 200_000], [10, 3, 7, 4_000_000_000], [UInt32.max, 2]] as [[UInt32]] {
      let events = ids.enumerated().map { offset, id in
        TraceEvent.schedule(
          time: Int64(offset), action: id, scheduler: 1, mode: .async, delay: 0,
          due: Int64(offset), thread: 1, parent: 0, site: 0)
      }
      let replay = ReplayEngine(
        trace: Trace(
          header: TraceHeader(clock: .virtual, start: "", process: "ids", pid: 1),
          events: events))
      for (slot, id) in ids.enumerated() {
        XCTAssertEqual(replay.index(of: ActionID(rawValue: id)), ActionIndex(slot), "\(ids)")
      }
      for missing in [0, 4, 8, 11, 199_999, UInt32.max - 1] as [UInt32] {
        XCTAssertNil(replay.index(of: ActionID(rawValue: missing)), "\(missing) in \(ids)")
      }
    }
  }
}

/// Windows of a longer recording, replayed as the recording numbered them.
final class ReplayWindowTests: XCTestCase {
  /// A window (a slice, a flight recorder's dump) that starts at a repeating action's fourth
  /// run: after each end the action is due on the trace's numbering of its runs, and stepping
  /// back through every event restores exactly what stepping forward saw, with its runs and
  /// cancel in place.
  func testAWindowsRepeatingWorkKeepsItsRhythmBothWays() {
    let interval: Int64 = 100
    var events: [TraceEvent] = [
      .schedule(
        time: 0, action: 1, scheduler: 1, mode: .repeating, delay: interval, due: interval,
        thread: 1, parent: 0, site: 0)
    ]
    for run in UInt32(4)...6 {
      let time = Int64(run) * interval
      events.append(.begin(time: time, action: 1, thread: 1, run: run))
      events.append(.end(time: time + 10, action: 1, thread: 1, run: run, duration: 10))
    }
    events.append(.cancel(time: 700, action: 1, thread: 1, by: 0, started: false))
    let replay = ReplayEngine(
      trace: Trace(
        header: TraceHeader(clock: .virtual, start: "", process: "window", pid: 1),
        events: events,
        schedulers: [
          1: SchedulerRecord(id: 1, label: "q", kind: "serial", family: "virtual", time: 0)
        ]))
    let action = ActionIndex(0)
    var stepping = replay
    var forward: [ReplaySnapshot] = [ReplaySnapshot(stepping)]
    var duesAfterEnds: [Int64?] = []
    while stepping.stepForward() {
      forward.append(ReplaySnapshot(stepping))
      if stepping.event(EventIndex(stepping.position - 1)).kind == .end {
        duesAfterEnds.append(stepping.nextDue(of: action))
      }
    }
    // Runs 4, 5 and 6 ended: next due are runs 5, 6 and 7, on the first run's rhythm.
    XCTAssertEqual(duesAfterEnds, [500, 600, 700])
    XCTAssertEqual(stepping.life(of: action).runs.map(\.number), [4, 5, 6])
    while stepping.position > 0 {
      XCTAssertEqual(
        ReplaySnapshot(stepping), forward[stepping.position], "at \(stepping.position)")
      stepping.stepBackward()
    }
    XCTAssertEqual(ReplaySnapshot(stepping), forward[0])
  }
}
