import Foundation
import Replay
import TraceFormat
import XCTest

final class ReplayEngineTests: XCTestCase {
  static let recordings = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  static func recording(_ name: String) throws -> Trace {
    try XCTUnwrap(
      TraceReader.read(path: recordings.appendingPathComponent("\(name).trace").path).trace)
  }

  /// Everything the replay answers about one cursor position.
  private struct Observed: Equatable {
    var position: Int
    var now: Int64
    var pending: [Int]
    var running: [Int]
    var states: [ActionState]
  }

  private func observe(_ replay: ReplayEngine) -> Observed {
    Observed(
      position: replay.position, now: replay.now, pending: replay.pending, running: replay.running,
      states: replay.actions.indices.map(replay.state(of:)))
  }

  func testSteppingForwardThenBackReturnsIdenticalStateAtEveryPosition() throws {
    for name in ["busy-app", "virtual-timeout", "timeout-timeout"] {
      var replay = ReplayEngine(trace: try Self.recording(name), keyframeInterval: 64)
      var forward: [Observed] = [observe(replay)]
      while replay.stepForward() { forward.append(observe(replay)) }
      XCTAssertEqual(replay.position, replay.eventCount)
      XCTAssertTrue(replay.pending.isEmpty || name == "busy-app", name)
      var backward: [Observed] = [observe(replay)]
      while replay.stepBackward() { backward.append(observe(replay)) }
      XCTAssertEqual(forward, backward.reversed(), name)
    }
  }

  func testSeekingAnywhereEqualsSteppingFromTheStart() throws {
    let trace = try Self.recording("busy-app")
    var stepped = ReplayEngine(trace: trace, keyframeInterval: 100)
    var expected: [Observed] = [observe(stepped)]
    while stepped.stepForward() { expected.append(observe(stepped)) }
    var seeker = ReplayEngine(trace: trace, keyframeInterval: 100)
    var generator = SeededGenerator(seed: 7)
    for _ in 0..<300 {
      let target = Int.random(in: 0...seeker.eventCount, using: &generator)
      seeker.seek(to: target)
      XCTAssertEqual(observe(seeker), expected[target], "seek to \(target)")
    }
  }

  func testSeekingByTimeLandsOnTheLastEventAtOrBeforeIt() throws {
    var replay = ReplayEngine(trace: try Self.recording("virtual-timeout"))
    replay.seek(toTime: 1_500_000_000)
    XCTAssertEqual(replay.now, 1_000_000_000)
    XCTAssertEqual(replay.events[replay.position].time, 3_000_000_000)
    replay.seek(toTime: -1)
    XCTAssertEqual(replay.position, 0)
    replay.seek(toTime: .max)
    XCTAssertEqual(replay.position, replay.eventCount)
  }

  func testPendingActionsAtKnownInstantsOfTheTimeoutRecording() throws {
    var replay = ReplayEngine(trace: try Self.recording("virtual-timeout"))
    let label = { (action: Int) in replay.schedulers[replay.actions[action].scheduler]?.label ?? "?"
    }
    // Scenario 1 at time 0, after the service started: the work (due 1 s) and the timeout (due
    // 2 s) are pending, soonest first.
    replay.seek(to: replay.firstIndex(after: 0))
    XCTAssertEqual(replay.pending.map { replay.actions[$0].due }, [1_000_000_000, 2_000_000_000])
    XCTAssertEqual(replay.pending.map(label), ["timeout-service", "timeout-service"])
    XCTAssertEqual(replay.running, [])
    // At 1 s the work ran and cancelled the timeout: once that cancel is applied, nothing of
    // scenario 1 is pending.
    let timeout = 2
    let cancel = try XCTUnwrap(
      replay.events.firstIndex { $0.kind == .cancel && $0.action == UInt32(timeout) })
    replay.seek(to: cancel + 1)
    XCTAssertEqual(replay.now, 1_000_000_000)
    XCTAssertEqual(replay.pending, [])
    XCTAssertEqual(replay.state(of: timeout), .done)
    let life = replay.life(of: timeout)
    XCTAssertEqual(life.runs, [])
    XCTAssertEqual(life.cancelledAt, 1_000_000_000)
    XCTAssertEqual(life.cancelledBy, 1)
    XCTAssertFalse(life.cancelledAfterStart)
  }

  func testAnActionIsRunningBetweenItsBeginAndEnd() throws {
    var replay = ReplayEngine(trace: try Self.recording("virtual-timeout"))
    let begin = try XCTUnwrap(replay.events.firstIndex { $0.kind == .begin })
    replay.seek(to: begin + 1)
    let action = Int(replay.events[begin].action)
    XCTAssertEqual(replay.running, [action])
    XCTAssertEqual(replay.state(of: action), .running)
    replay.stepBackward()
    XCTAssertEqual(replay.state(of: action), .pending)
  }

  func testARepeatingActionIsPendingBetweenRunsAndDoneAfterCancel() throws {
    var replay = ReplayEngine(trace: try Self.recording("busy-app"))
    let heartbeat = try XCTUnwrap(replay.actions.indices.first { replay.actions[$0].isRepeating })
    let ends = replay.events.indices.filter {
      replay.events[$0].action == UInt32(heartbeat) && replay.events[$0].kind == .end
    }
    XCTAssertGreaterThan(ends.count, 2)
    replay.seek(to: ends[1] + 1)
    XCTAssertEqual(replay.state(of: heartbeat), .pending)
    let interval = replay.actions[heartbeat].delay
    let secondBegin = try XCTUnwrap(
      replay.lastEvent(of: heartbeat, kind: .begin, before: replay.position))
    XCTAssertEqual(replay.nextDue(of: heartbeat), replay.events[secondBegin].time + interval)
    replay.seek(to: replay.eventCount)
    XCTAssertEqual(replay.state(of: heartbeat), .done)
    XCTAssertNotNil(replay.life(of: heartbeat).cancelledAt)
  }

  func testTheFirstFewPendingActionsAreThePrefixOfTheFullOrder() throws {
    var replay = ReplayEngine(trace: try Self.recording("busy-app"))
    var checked = 0
    for position in stride(from: 0, through: replay.eventCount, by: 97) {
      replay.seek(to: position)
      let all = replay.pending
      XCTAssertEqual(all.count, replay.pendingCount)
      for count in [0, 1, 3, 10, all.count] {
        XCTAssertEqual(replay.pending(first: count), Array(all.prefix(count)), "at \(position)")
      }
      var unordered: [Int] = []
      replay.forEachPending { unordered.append($0) }
      XCTAssertEqual(unordered.sorted(), all.sorted())
      if all.count > 12 { checked += 1 }
    }
    XCTAssertGreaterThan(checked, 3, "some positions have many pending actions")
  }

  func testHopsAreVisibleInAnActionsLife() throws {
    let replay = ReplayEngine(trace: try Self.recording("busy-app"))
    let hop = try XCTUnwrap(replay.events.first { $0.kind == .hop })
    let life = replay.life(of: Int(hop.action))
    XCTAssertEqual(life.runs.first?.hoppedFrom, hop.detail)
    XCTAssertEqual(life.runs.first?.thread, hop.thread)
  }
}

/// A tiny deterministic generator for reproducible random seeks.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
