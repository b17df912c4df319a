import ChronoscopeScheduling
import Foundation

/// Waits until `condition` holds or `timeout` passes, and says which happened.
///
/// For tests of live schedulers and of async code. The condition is checked again at once when a
/// ``Locked`` value changes (from any thread or task) or on ``wakeWaiters()``, so a wait on a
/// `Locked` value ends as soon as the work that sets it is done. Any other state — an atomic, an
/// actor's property, a scheduler's side effect — is seen too, by checks that start 100 µs apart
/// and back off to 10 ms apart: a wait never outlasts its condition by more than that, and the
/// libraries an app links carry no hook for it. Called on the main thread, it keeps the main run
/// loop — and so the main queue and `OperationQueue.main` — running while it waits, so work
/// scheduled on a main scheduler can run.
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
  let signal = WaitSignal.shared
  let onMain = Thread.isMainThread
  var interval = WaitBackOff.first
  return signal.withWaiter(onMainThread: onMain) {
    while true {
      let seen = signal.currentGeneration
      if ConditionCheck.holds(condition) { return .satisfied }
      let now = Date()
      if now >= deadline { return .timedOut }
      let next = min(deadline, now.addingTimeInterval(interval))
      if onMain {
        // Returns after the run loop handles one source (main-queue work, or the wake-up
        // block a change posts) or at the next check.
        _ = RunLoop.current.run(mode: .default, before: next)
        interval = min(interval * 2, WaitBackOff.last)
      } else if signal.wait(after: seen, until: next) {
        interval = WaitBackOff.first  // woken by a change: the next may follow soon
      } else {
        interval = min(interval * 2, WaitBackOff.last)
      }
    }
  }
}

/// Makes every ``waitUntil(timeout:_:)`` in progress check its condition again at once.
///
/// ``Locked`` does this on each change; other state is seen within 10 ms without it.
public func wakeWaiters() {
  WaitSignal.shared.wakeAll()
}

/// How far apart ``waitUntil(timeout:_:)`` checks a condition nothing woke it for: from 100 µs,
/// doubling, to 10 ms.
enum WaitBackOff {
  static let first: TimeInterval = 0.000_1
  static let last: TimeInterval = 0.01
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
