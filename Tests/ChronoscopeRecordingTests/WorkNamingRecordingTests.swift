@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
import XCTest

@testable import ChronoscopeRecording

/// Named work, recorded: a per-call name, a scope that follows the work it causes across queues,
/// and work that runs with the context it was scheduled in, never the running thread's.
final class WorkNamingRecordingTests: XCTestCase {
  private func replay(_ path: String) throws -> ReplayEngine {
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics, [])
    return ReplayEngine(trace: try XCTUnwrap(reading.trace))
  }

  /// What the replay says each action of `replay` was named, by trace id.
  private func names(_ replay: ReplayEngine) -> [UInt32: String] {
    var names: [UInt32: String] = [:]
    for action in replay.actionIndices {
      names[replay.action(action).id.rawValue] = replay.work(of: action)?.summary
    }
    return names
  }

  func testAPerCallNameAndAScopeFollowTheWorkTheyCauseAcrossQueues() throws {
    let path = temporaryTracePath()
    let clock = VirtualClock()
    let recorder = try TraceRecorder(path: path, clock: .virtual { clock.now })
    let factory = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
    let network = factory.makeConcurrent(label: "network")
    let state = factory.makeSerial(label: "state")
    state.async(name: "search \"swift\"", ["query": "swift"]) {}  // #1
    WorkContext.with(name: "request", ["id": "42"]) {
      network.after(.milliseconds(30)) {  // #2
        state.async {}  // #4: caused by #2, so it carries the request's context
        state.async(name: "show results") {}  // #5: its own name, the request's id
      }
    }
    state.async {}  // #3: outside any scope
    clock.advance(by: .seconds(1))
    recorder.close()

    let replay = try replay(path)
    XCTAssertEqual(
      names(replay),
      [
        1: "search \"swift\" query=swift", 2: "request id=42", 4: "request id=42",
        5: "show results id=42",
      ])
    XCTAssertTrue(replay.hasNamedWork)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    XCTAssertTrue(
      text.contains(#""e":"work","a":1,"name":"search \"swift\"","fields":{"query":"swift"}}"#),
      text)
  }

  func testWorkRunsInTheContextItWasScheduledInNotTheRunningThreads() throws {
    let path = temporaryTracePath()
    let clock = VirtualClock()
    let recorder = try TraceRecorder(path: path, clock: .virtual { clock.now })
    let queue = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder
    ).makeSerial(label: "q")
    let seen = Locked<[WorkContext?]>([])
    queue.after(.seconds(1)) {  // #1, unnamed
      seen.withLock { $0.append(WorkContext.current) }
      queue.async {}  // #3
    }
    queue.after(.seconds(1), name: "timer") {  // #2
      seen.withLock { $0.append(WorkContext.current) }
    }
    // The test moves the clock from inside a scope of its own: the work it runs must not take it.
    WorkContext.with(name: "test driver") { clock.advance(by: .seconds(2)) }
    recorder.close()

    XCTAssertEqual(seen.value, [nil, WorkContext(name: "timer")])
    XCTAssertEqual(names(try replay(path)), [2: "timer"])
  }

  /// An immediate scheduler runs the work inside the call that schedules it, where the recorder
  /// reads the thread's context once for the schedule and the run (the hot path's shortcut).
  func testInlineRunsSeeTheContextOfTheCallThatScheduledThem() throws {
    let path = temporaryTracePath()
    let recorder = try TraceRecorder(path: path)
    let queue = RecordingScheduler(
      wrapping: ImmediateSchedulerFactory().makeSerial(label: "q"), recorder: recorder)
    let seen = Locked<[WorkContext?]>([])
    let look: @Sendable () -> Void = { seen.withLock { $0.append(WorkContext.current) } }
    queue.async { look() }  // #1: no context
    queue.async(name: "outer", ["id": "1"]) {  // #2
      look()
      queue.async { look() }  // #3: caused by #2, so in its context
    }
    WorkContext.with(name: "scope") {
      queue.async { look() }  // #4
    }
    queue.async { look() }  // #5: none again
    recorder.close()

    let outer = WorkContext(name: "outer", values: ["id": "1"])
    XCTAssertEqual(seen.value, [nil, outer, outer, WorkContext(name: "scope"), nil])
    XCTAssertEqual(names(try replay(path)), [2: "outer id=1", 3: "outer id=1", 4: "scope"])
  }

  func testNamesFollowWorkOnLiveDispatchQueues() throws {
    let path = temporaryTracePath()
    let recorder = try TraceRecorder(path: path)
    let factory = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: recorder)
    let first = factory.makeSerial(label: "first")
    let second = factory.makeSerial(label: "second")
    let done = Locked(false)
    WorkContext.with(name: "request", ["id": "9"]) {
      first.async {
        second.async { done.withLock { $0 = true } }
      }
    }
    XCTAssertEqual(waitUntil(timeout: .seconds(30)) { done.value }, .satisfied)
    recorder.close()
    XCTAssertEqual(names(try replay(path)), [1: "request id=9", 2: "request id=9"])
  }
}
