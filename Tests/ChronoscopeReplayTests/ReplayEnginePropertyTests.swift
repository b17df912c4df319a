import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import XCTest

/// Properties of the replay on random traces — well-formed lives and hostile ones alike (begins
/// without schedules, ends without begins, cancels of finished work, out-of-order times, extreme
/// times): stepping to the end and back returns exactly to the start, every position seen on the
/// way back is the one seen on the way forward, and a seek equals stepping. Seeds are fixed.
final class ReplayEnginePropertyTests: XCTestCase {
  static func randomTrace(_ random: inout SplitMix64) -> Trace {
    let actions = UInt32(1 + random.next() % 8)
    func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    var time: Int64 = 0
    var events: [TraceEvent] = []
    for _ in 0..<(random.next() % 80) {
      // Mostly forward in small steps; now and then an extreme or a step back.
      time = pick([
        time, min(time, .max - 1_000) + 1, min(time, .max - 1_000) + 10, 0, .max,
        TraceLimits.maximumTime,
      ])
      let action = UInt32(1 + random.next() % UInt64(actions))
      let thread = UInt32(random.next() % 4)
      switch random.next() % 10 {
      case 0, 1:
        events.append(
          .schedule(
            time: time, action: action, scheduler: UInt32(random.next() % 4),
            mode: pick(TraceEvent.ScheduleMode.allCases), delay: pick([0, 10, Int64.max]),
            due: pick([time, min(time, .max - 5) + 5, Int64.max, 0]), thread: thread,
            parent: UInt32(random.next() % 3), site: 0))
      case 2, 3, 4:
        events.append(
          .begin(time: time, action: action, thread: thread, run: pick([1, 2, 7, UInt32.max])))
      case 5, 6:
        events.append(
          .end(
            time: time, action: action, thread: thread, run: pick([1, 2, UInt32.max]),
            duration: pick([0, 3, Int64.max])))
      case 7: events.append(.hop(time: time, action: action, from: thread, to: thread &+ 1))
      case 8:
        events.append(
          .cancel(
            time: time, action: action, thread: thread, by: UInt32(random.next() % 3),
            started: random.next() % 2 == 0))
      default: events.append(.mark(time: time, thread: thread, mark: 0))
      }
    }
    return Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "property", pid: 1),
      events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "virtual", time: 0),
        2: SchedulerRecord(id: 2, label: "work", kind: "concurrent", family: "virtual", time: 0),
      ], marks: [MarkRecord(name: "m")])
  }

  func testSteppingARandomTraceToTheEndAndBackReturnsExactlyToTheStart() {
    for seed in 1...200 {
      var random = SplitMix64(seed: UInt64(seed))
      let trace = Self.randomTrace(&random)
      var replay = ReplayEngine(trace: trace, keyframeInterval: 1 + Int(random.next() % 8))
      replay._checkInvariants()
      var forward = [ReplaySnapshot(replay)]
      while replay.stepForward() {
        forward.append(ReplaySnapshot(replay))
        if replay.position % 7 == 0 { replay._checkInvariants() }
      }
      replay._checkInvariants()
      var backward = [ReplaySnapshot(replay)]
      while replay.stepBackward() { backward.append(ReplaySnapshot(replay)) }
      replay._checkInvariants()
      XCTAssertEqual(replay.position, 0, "seed \(seed)")
      XCTAssertEqual(backward.last, forward.first, "seed \(seed): back at the start")
      XCTAssertEqual(forward, backward.reversed(), "seed \(seed)")
      assertRandomSeeks(10, of: &replay, land: forward, &random, seed: seed)
      for action in replay.actionIndices { _ = replay.life(of: action).runs.map(\.lateness) }
    }
  }

  /// Keyframes made on a copy (on another thread, in the inspector) are taken by the replay it
  /// was copied from, whose cursor stays; those of another replay, even of the same trace, are
  /// not.
  func testKeyframesAreAdoptedFromACopyOfTheSameReplayOnly() {
    for seed in 1...100 {
      var random = SplitMix64(seed: UInt64(seed))
      let trace = Self.randomTrace(&random)
      let interval = 1 + Int(random.next() % 8)
      let states = Self.steppedStates(of: trace, keyframeInterval: interval)

      var replay = ReplayEngine(trace: trace, keyframeInterval: interval, makingKeyframes: false)
      replay.adoptKeyframes(from: ReplayEngine(trace: trace, keyframeInterval: interval))
      XCTAssertFalse(replay.hasKeyframes, "seed \(seed): another replay's keyframes")
      var copy = replay
      copy.makeKeyframes()
      let cursor = Int(random.next() % UInt64(replay.eventCount + 1))
      replay.seek(to: cursor)
      replay.adoptKeyframes(from: copy)
      XCTAssertTrue(replay.hasKeyframes, "seed \(seed)")
      XCTAssertEqual(ReplaySnapshot(replay), states[cursor], "seed \(seed): the cursor stays")
      assertRandomSeeks(10, of: &replay, land: states, &random, seed: seed)
      replay._checkInvariants()
    }
  }

  /// Seeks `replay` `count` times to random positions; each must show what stepping there
  /// showed (`states`).
  private func assertRandomSeeks(
    _ count: Int, of replay: inout ReplayEngine, land states: [ReplaySnapshot],
    _ random: inout SplitMix64, seed: Int, file: StaticString = #filePath, line: UInt = #line
  ) {
    for _ in 0..<count {
      let target = Int(random.next() % UInt64(replay.eventCount + 1))
      replay.seek(to: target)
      XCTAssertEqual(
        ReplaySnapshot(replay), states[target], "seed \(seed): seek to \(target)", file: file,
        line: line)
    }
  }

  /// What a replay of `trace` shows at every position, stepping from the start.
  private static func steppedStates(of trace: Trace, keyframeInterval: Int) -> [ReplaySnapshot] {
    var stepped = ReplayEngine(trace: trace, keyframeInterval: keyframeInterval)
    var states = [ReplaySnapshot(stepped)]
    while stepped.stepForward() { states.append(ReplaySnapshot(stepped)) }
    return states
  }

  /// A replay prepared without keyframes is the same replay: every seek lands on what stepping
  /// builds, before its keyframes are made and after, and making them later keeps the cursor
  /// wherever it was.
  func testKeyframesMadeLaterChangeNothingASeekLandsOn() {
    for seed in 1...200 {
      var random = SplitMix64(seed: UInt64(seed))
      let trace = Self.randomTrace(&random)
      let interval = 1 + Int(random.next() % 8)
      let states = Self.steppedStates(of: trace, keyframeInterval: interval)

      var replay = ReplayEngine(trace: trace, keyframeInterval: interval, makingKeyframes: false)
      XCTAssertFalse(replay.hasKeyframes, "seed \(seed)")
      replay._checkInvariants()
      assertRandomSeeks(5, of: &replay, land: states, &random, seed: seed)
      let cursor = replay.position
      replay.makeKeyframes()
      XCTAssertTrue(replay.hasKeyframes, "seed \(seed)")
      XCTAssertEqual(replay.position, cursor, "seed \(seed): the cursor stays")
      XCTAssertEqual(ReplaySnapshot(replay), states[cursor], "seed \(seed): and what it shows")
      replay._checkInvariants()
      assertRandomSeeks(10, of: &replay, land: states, &random, seed: seed)
    }
  }

  /// The first pending actions are the pending set sorted (soonest due, then scheduled first,
  /// then action), however the cursor got there, for the first few and for all; and the filtered
  /// path, given every scheduler, agrees.
  func testTheFirstPendingActionsAreThePendingSetSorted() {
    for seed in 1...200 {
      var random = SplitMix64(seed: UInt64(seed))
      let trace = Self.randomTrace(&random)
      var replay = ReplayEngine(trace: trace, keyframeInterval: 1 + Int(random.next() % 8))
      let everyScheduler = Set(replay.actionIndices.map { replay.action($0).scheduler })
      func check(_ how: String) {
        let sorted = replay.pending(first: .max, in: everyScheduler)
        let keys = sorted.map { action in
          (replay.nextDue(of: action) ?? 0, replay.action(action).scheduledAt, action)
        }
        XCTAssertTrue(
          zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "seed \(seed) \(how): sorted")
        XCTAssertEqual(sorted.count, replay.pendingCount(), "seed \(seed) \(how)")
        for count in [0, 1, 3, sorted.count, .max] {
          XCTAssertEqual(
            replay.pending(first: count), Array(sorted.prefix(count)),
            "seed \(seed) \(how): first \(count)")
        }
      }
      check("at the start")
      while replay.stepForward() { check("forward at \(replay.position)") }
      while replay.stepBackward() { check("back at \(replay.position)") }
      for _ in 0..<10 {
        replay.seek(to: Int(random.next() % UInt64(replay.eventCount + 1)))
        check("seek to \(replay.position)")
      }
    }
  }

  /// The same with many pending actions, where the first few are kept in one pass (a bounded
  /// heap) rather than sorted.
  func testTheFirstFewOfManyPendingActionsAreTheSoonestDue() {
    var random = SplitMix64(seed: 42)
    var events: [TraceEvent] = []
    for action in 1...1_000 {
      let delay = Int64(random.next() % 50) * 1_000  // many share a due time
      events.append(
        .schedule(
          time: Int64(action), action: UInt32(action), scheduler: UInt32(1 + action % 2),
          mode: .after, delay: delay, due: Int64(action) + delay, thread: 1, parent: 0, site: 0))
    }
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "many", pid: 1), events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "a", kind: "serial", family: "virtual", time: 0),
        2: SchedulerRecord(id: 2, label: "b", kind: "serial", family: "virtual", time: 0),
      ])
    var replay = ReplayEngine(trace: trace)
    replay.seek(to: replay.eventCount)
    let key = { (action: ActionIndex) in
      (replay.nextDue(of: action) ?? 0, replay.action(action).scheduledAt, action)
    }
    let all = replay.actionIndices.sorted { key($0) < key($1) }
    for count in [1, 7, 10, 249, 250, 251, 999, 1_000, 5_000] {
      XCTAssertEqual(replay.pending(first: count), Array(all.prefix(count)), "first \(count)")
    }
    let onA = all.filter { replay.action($0).scheduler == SchedulerID(rawValue: 1) }
    XCTAssertEqual(replay.pending(first: 10, in: [SchedulerID(rawValue: 1)]), Array(onA.prefix(10)))
  }

  /// Found reading `pending(first:)` for issue 9: a count beyond the pending set reserved that
  /// much room (`Int.max` trapped).
  func testAskingForMorePendingActionsThanExistGivesThemAll() {
    var replay = ReplayEngine(
      trace: Trace(
        header: TraceHeader(clock: .virtual, start: "", process: "p", pid: 1),
        events: [
          .schedule(
            time: 0, action: 1, scheduler: 1, mode: .async, delay: 0, due: 5, thread: 1,
            parent: 0, site: 0)
        ]))
    replay.seek(to: 1)
    XCTAssertEqual(replay.pending(first: Int.max).count, 1)
    XCTAssertEqual(replay.pending(first: Int.min), [])
  }
}
