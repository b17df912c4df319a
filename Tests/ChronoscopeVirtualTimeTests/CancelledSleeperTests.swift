import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Dispatch
import Foundation
import Synchronization
import Testing
import XCTest

/// A sleeper cancelled while nobody moves the clock ends at once, and its task finishes while
/// the test awaits it — as with swift-clocks' `TestClock`, whose "racing sleep and cancellation"
/// stress test these port: plain `Task {}`s each sleeping on the clock, each cancelled by a
/// racing detached task, the clock never moved, then `await task.value`.
///
/// Each loop stops at its first failure: before the fix, every task waited for a move until the
/// clock's watchdog ended its wait (ten seconds), so a thousand would have taken hours.
final class CancelledSleeperTests: XCTestCase, @unchecked Sendable {
  /// Made before the test, outside its task, as swift-clocks' tests make their `TestClock`
  /// (with the test case): the tasks the test starts are not the clock's until they sleep on
  /// it. Made in `setUp` and let go in `tearDown`, not with the test case: XCTest keeps every
  /// test case of the run, and a clock kept alive routes the runtime's jobs until its idle limit.
  private var clockMadeBefore: VirtualAsyncClock?

  override func setUp() {
    super.setUp()
    clockMadeBefore = VirtualAsyncClock()
  }

  override func tearDown() {
    clockMadeBefore = nil
    super.tearDown()
  }

  /// swift-clocks' stress test itself: each task becomes the clock's when it sleeps, and a
  /// detached task races to cancel it (before, during or after the sleep begins).
  func testRacingSleepAndCancellationNeverMovesTheClock() async throws {
    let clock = try XCTUnwrap(clockMadeBefore)
    for attempt in 1...1_000 {
      let task = Task { try await clock.sleep(for: .seconds(1)) }
      Task.detached { task.cancel() }
      if let failure = await cancellationFailure(of: task) {
        return XCTFail("attempt \(attempt): \(failure)")
      }
    }
    XCTAssertEqual(clock.now.offset, .zero)
    XCTAssertEqual(clock.clock.pendingActions.count, 0)
    XCTAssertEqual(clock.waiting, [])
  }

  /// In a test that made the clock, the tasks it starts are the clock's from their first job, and
  /// wait for a move to start: cancelled before they ever ran, they end without one.
  func testATaskCancelledBeforeItRanEndsWithoutAMove() async {
    let clock = VirtualAsyncClock()
    for attempt in 1...1_000 {
      let task = Task { try await clock.sleep(for: .seconds(1)) }
      task.cancel()
      if let failure = await cancellationFailure(of: task) {
        return XCTFail("attempt \(attempt): \(failure)")
      }
    }
    XCTAssertEqual(clock.now.offset, .zero)
    XCTAssertEqual(clock.waiting, [])
  }

  /// Each task is asleep on the clock when another thread cancels it: its resumption is the
  /// clock's, and nobody moves the clock.
  func testASleepCancelledFromAnotherTaskEndsWithoutAMove() async {
    let clock = VirtualAsyncClock()
    for attempt in 1...200 {
      let task = Task { try await clock.sleep(for: .seconds(1)) }
      await clock.advance()
      XCTAssertEqual(clock.waiting.count, 1, "attempt \(attempt): asleep")
      DispatchQueue.global().async { task.cancel() }
      if let failure = await cancellationFailure(of: task) {
        return XCTFail("attempt \(attempt): \(failure)")
      }
    }
    XCTAssertEqual(clock.now.offset, .zero)
    XCTAssertEqual(clock.waiting, [])
  }

  /// What a cancelled task does after its sleep ends is done by the next move, whoever cancelled
  /// it: a move waits for it.
  func testAMoveWaitsForWhatACancelledTaskDoes() async {
    let clock = VirtualAsyncClock()
    for attempt in 1...200 {
      let cleanedUp = Mutex(false)
      let task = Task {
        do { try await clock.sleep(for: .seconds(1)) } catch { cleanedUp.withLock { $0 = true } }
      }
      await clock.advance()
      task.cancel()
      await clock.advance()
      guard cleanedUp.withLock({ $0 }) else {
        return XCTFail("attempt \(attempt): the move returned before the task's reaction ran")
      }
    }
  }

  func testAVirtualTaskCanBeAwaited() async throws {
    let clock = VirtualAsyncClock()
    let quick = clock.task { 5 }
    let five = try await quick.value
    XCTAssertEqual(five, 5)

    let sleeper = clock.task {
      try await clock.sleep(for: .seconds(1))
      return 7
    }
    async let seven = sleeper.value
    await clock.advance(by: .seconds(1))
    let value = try await seven
    XCTAssertEqual(value, 7)

    let cancelled = clock.task { try await clock.sleep(for: .seconds(1)) }
    Task.detached { cancelled.cancel() }
    do {
      try await cancelled.value
      XCTFail("a cancelled sleep throws")
    } catch {
      XCTAssertTrue(error is CancellationError, "\(error)")
    }
    XCTAssertEqual(clock.now.offset, .seconds(1))
    try clock.checkNoPendingWork()
  }
}

/// The same under the `.virtualTime` trait, in parallel with the other suites: every task the
/// test starts is in the clock's scope.
@Suite(.virtualTime) struct CancelledSleeperTraitTests {
  /// A Dispatch thread races to cancel each task, mostly before it ever ran.
  @Test func racingSleepAndCancellationUnderTheTrait() async throws {
    let clock = try #require(VirtualAsyncClock.current)
    for _ in 1...1_000 {
      let task = Task { try await clock.sleep(for: .seconds(1)) }
      DispatchQueue.global().async { task.cancel() }
      if let failure = await cancellationFailure(of: task) {
        Issue.record("\(failure)")
        return
      }
    }
    #expect(clock.now.offset == .zero)
  }

  /// A detached task the test starts would wait for a move, as every task it starts does: a
  /// Dispatch thread races to cancel each main-actor task.
  @MainActor @Test func racingSleepAndCancellationOnTheMainActor() async throws {
    let clock = try #require(VirtualAsyncClock.current)
    for _ in 1...1_000 {
      let task = Task { try await clock.sleep(for: .seconds(1)) }
      DispatchQueue.global().async { task.cancel() }
      if let failure = await cancellationFailure(of: task) {
        Issue.record("\(failure)")
        return
      }
    }
    #expect(clock.now.offset == .zero)
  }
}

/// Nil when `task` ended throwing `CancellationError`; else what it ended with.
private func cancellationFailure(of task: Task<Void, any Error>) async -> String? {
  let outcome = await task.result
  if case .failure(let error) = outcome, error is CancellationError { return nil }
  return "\(outcome), not a CancellationError"
}
