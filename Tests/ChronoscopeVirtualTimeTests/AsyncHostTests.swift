import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Dispatch
import Foundation
import Synchronization
import XCTest

/// The async clock wherever an XCTest test runs it: two clocks at once from two threads, a
/// `@MainActor async` test method, cancelling from an `async` method, due-now sleeps, pending
/// sleeps listed at their caller's line.
final class AsyncHostTests: XCTestCase {
  /// Two tests driving two clocks from two threads at once: each clock runs only the jobs of the
  /// code it started (they used to go to whichever clock was activated last).
  func testTwoClocksDrivenFromTwoThreadsAtOnceEachRunOnlyTheirOwnJobs() {
    let wrong = Locked<[String]>([])
    let finished = DispatchGroup()
    for scenario in [AsyncScenario.timeoutRace, .debounce, .pingPong] {
      finished.enter()
      let thread = Thread {
        let seen = scenario.runRepeatedly(times: min(AsyncScenario.repeats, 200))
        wrong.withLock { $0 += seen.map { "\(scenario): \($0)" } }
        finished.leave()
      }
      thread.start()
    }
    XCTAssertEqual(finished.wait(timeout: .now() + 300), .success, "the three threads finished")
    XCTAssertEqual(wrong.value, [])
  }

  /// A `@MainActor async` test method (swift-clocks' `testRunWithTimeout` has this shape): starting
  /// and moving tasks from it used to spin the main queue's drain forever.
  @MainActor
  func testAMainActorAsyncTestMethodStartsAndMovesTasks() async throws {
    let clock = VirtualAsyncClock()
    let sleeper = clock.task { () -> Duration in
      try await clock.sleep(for: .seconds(1))
      return clock.now.offset
    }
    await clock.advance(by: .seconds(1))
    XCTAssertEqual(try sleeper.result?.get(), .seconds(1))
    let ticks = MainActorCounter()
    let ticking = Task {
      while true {
        try await clock.sleep(for: .seconds(1))
        ticks.value += 1
      }
    }
    await clock.advance(by: .seconds(3))
    XCTAssertEqual(ticks.value, 3, "main-actor code woke at 2, 3 and 4 s, during an async move")
    ticking.cancel()
    await clock.advance()
    try clock.checkNoPendingWork()
  }

  /// `cancel()` from an `async` test method leaves the task finished: its reaction ran on the
  /// calling thread, not on the runtime's pool later.
  func testCancellingFromAnAsyncTestMethodLeavesTheTaskFinished() async throws {
    let clock = VirtualAsyncClock()
    for _ in 0..<200 {
      let sleeper = clock.task { try await clock.sleep(for: .seconds(60)) }
      XCTAssertTrue(sleeper.cancel(), "finished when cancel() returns")
      XCTAssertThrowsError(try sleeper.result?.get()) { XCTAssertTrue($0 is CancellationError) }
    }
    try clock.checkNoPendingWork()
  }

  func testCancelSaysWhenTheTaskGoesOn() throws {
    let clock = VirtualAsyncClock()
    let waiting = Locked<CheckedContinuation<Int, Never>?>(nil)
    // A continuation with no cancellation handler: cancelling its task does not end the wait.
    let stubborn = clock.task {
      await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } }
    }
    XCTAssertFalse(stubborn.cancel(), "still waiting for its continuation")
    waiting.withLock { $0 }?.resume(returning: 3)
    clock.advance()
    XCTAssertEqual(try stubborn.result?.get(), 3)
  }

  /// A sleep due now — `sleep(for: .zero)` — wakes at the next move, not when `task` starts it.
  func testASleepDueNowWaitsForTheNextMove() throws {
    let clock = VirtualAsyncClock()
    let woke = clock.task { () -> Duration in
      try await clock.sleep(for: .zero)
      return clock.now.offset
    }
    XCTAssertNil(woke.result, "task(_:) runs the body until it suspends, and nothing due")
    clock.advance()
    XCTAssertEqual(try woke.result?.get(), .zero, "the next move wakes it, without moving time")
    try clock.checkNoPendingWork()
  }

  func testAnAsyncMoveWakesADueNowSleepToo() async throws {
    let clock = VirtualAsyncClock()
    let woke = clock.task { try await Task.sleep(for: .zero, clock: clock) }
    XCTAssertNil(woke.result)
    await clock.advance()
    XCTAssertNotNil(try woke.result?.get())
  }

  /// A pending sleep names its caller: the line of the call on the clock itself, or — through
  /// `Task.sleep(for:clock:)`, which passes no line — the line that started its task.
  func testAPendingSleepIsListedAtItsCallersLine() {
    let clock = VirtualAsyncClock()
    let taskLine = #line + 1
    clock.task(name: "poll") { try await Task.sleep(for: .seconds(5), clock: clock) }
    let sleepLine = #line + 1
    clock.task { try await clock.sleep(for: .seconds(6)) }
    let listed = clock.clock.pendingActions.map(\.description).joined(separator: "\n")
    XCTAssertTrue(listed.contains("AsyncHostTests.swift:\(taskLine)"), listed)
    XCTAssertTrue(listed.contains("AsyncHostTests.swift:\(sleepLine)"), listed)
    XCTAssertFalse(listed.contains("Swift/Task.swift"), listed)
    XCTAssertTrue(clock.waiting.contains { $0.contains("\"poll\"") }, "\(clock.waiting)")
    XCTAssertThrowsError(try clock.checkNoPendingWork()) { error in
      XCTAssertTrue("\(error)".contains("AsyncHostTests.swift:\(taskLine)"), "\(error)")
    }
  }
}

@MainActor
final class MainActorCounter {
  var value = 0
}

/// A clock nobody moves while code waits on it: after its idle limit (wall-clock time, short
/// here) it says so — naming the clock, what waits and where — and ends the wait. These tests
/// wait on wall-clock time by nature; each waits for a condition, with a deadline of seconds.
final class VirtualAsyncClockIdleTests: XCTestCase {
  func testAnAsyncTestAwaitingASleepNobodyMovesEndsWithAMessage() async {
    let clockLine = #line + 1
    let clock = VirtualAsyncClock(idleLimit: .milliseconds(200))
    let sleepLine = #line + 2
    do {
      try await clock.sleep(for: .seconds(1))
      XCTFail("the sleep ended without a move")
    } catch {
      let text = "\(error)"
      XCTAssertTrue(text.contains("AsyncHostTests.swift:\(clockLine)"), text)
      XCTAssertTrue(text.contains("AsyncHostTests.swift:\(sleepLine)"), text)
      XCTAssertTrue(text.contains("was not moved"), text)
    }
  }

  func testATaskLeftWaitingByASynchronousTestIsEnded() {
    let clock = VirtualAsyncClock(idleLimit: .milliseconds(200))
    let forgotten = clock.task(name: "forgotten") { try await clock.sleep(for: .seconds(1)) }
    // Work that is not the clock's is not held meanwhile (it used to wait for the clock's three
    // seconds of grace).
    let other = DispatchSemaphore(value: 0)
    Task.detached { other.signal() }
    XCTAssertEqual(other.wait(timeout: .now() + 2), .success, "other async work ran at once")
    let ended = Date(timeIntervalSinceNow: 10)
    while !forgotten.isFinished, Date() < ended { usleep(10_000) }
    XCTAssertThrowsError(try forgotten.result?.get()) { error in
      XCTAssertTrue(error is CancellationError || "\(error)".contains("was not moved"), "\(error)")
    }
    XCTAssertEqual(clock.waiting, [], "nothing waits on the clock any more")
  }
}
