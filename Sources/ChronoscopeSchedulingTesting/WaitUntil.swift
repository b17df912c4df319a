import ChronoscopeScheduling
import Foundation

/// Waits until `condition` holds or `timeout` passes, and says which happened.
///
/// For tests of live schedulers: there is no polling interval. The condition is checked again
/// each time a live scheduler finishes an action, a ``Locked`` value is changed (from any
/// thread or task), or on ``wakeWaiters()``, so a wait ends as soon as the work that satisfies it
/// is done. A condition on other state, changed outside a scheduler, needs ``wakeWaiters()``. Called on the main thread, it keeps the main run loop —
/// and so the main queue and `OperationQueue.main` — running while it waits, so work scheduled
/// on a main scheduler can run.
///
/// ```swift
/// let done = Locked(false)
/// background.async { work(); done.withLock { $0 = true } }
/// XCTAssertEqual(waitUntil(timeout: .seconds(10)) { done.value }, .satisfied)
/// ```
///
/// - Parameters:
///   - timeout: The longest to wait; keep it generous, since it only matters on failure.
///   - condition: Checked on the calling thread; must be cheap and must not block.
/// - Returns: `.satisfied` as soon as the condition holds, `.timedOut` if the deadline passed.
@discardableResult
public func waitUntil(timeout: Duration = .seconds(30), _ condition: () -> Bool) -> WaitOutcome {
  let seconds = Double(timeout.clampedNanoseconds) / 1e9
  let deadline = Date(timeIntervalSinceNow: seconds)
  let signal = CompletionSignal.shared
  let onMain = Thread.isMainThread
  return signal.withWaiter(onMainThread: onMain) {
    while true {
      let seen = signal.currentGeneration
      if ConditionCheck.holds(condition) { return .satisfied }
      if Date() >= deadline { return .timedOut }
      if onMain {
        // Returns after the run loop handles one source (main-queue work, or the wake-up
        // block a completion posts) or at the deadline.
        _ = RunLoop.current.run(mode: .default, before: deadline)
      } else if !signal.wait(after: seen, until: deadline) {
        return ConditionCheck.holds(condition) ? .satisfied : .timedOut
      }
    }
  }
}

/// Makes every ``waitUntil(timeout:_:)`` in progress check its condition again.
///
/// Live schedulers do this after each action; call it when a condition changes outside one.
public func wakeWaiters() {
  CompletionSignal.shared.wakeAll()
}

/// Whether this thread is checking a wait's condition: a ``Locked`` read or changed there does
/// not wake the waits (the checking one would wake itself for ever).
enum ConditionCheck {
  @TaskLocal private static var running = false

  static var isRunning: Bool { running }

  static func holds(_ condition: () -> Bool) -> Bool {
    $running.withValue(true) { condition() }
  }
}
