import ChronoscopeScheduling
import ChronoscopeSchedulingTesting

/// Retries an operation once, `delay` after a failure is reported: the seeds' example of code
/// that schedules work for later.
///
/// The retry is cancelled when the use case is released, so a screen that goes away does not
/// retry on its behalf.
package final class RetryUseCase: Sendable {
  private let delay: Duration
  private let scheduler: any Scheduler
  private let onRetry: @Sendable () -> Void
  private let pending = Locked<SchedulerTask?>(nil)

  /// Makes a use case that calls `onRetry` on `scheduler`, `delay` after each failure.
  package init(delay: Duration, scheduler: any Scheduler, onRetry: @escaping @Sendable () -> Void) {
    self.delay = delay
    self.scheduler = scheduler
    self.onRetry = onRetry
  }

  deinit { pending.value?.cancel() }

  /// Reports a failure: schedules a retry, replacing one already scheduled.
  package func failed() {
    let onRetry = self.onRetry
    let task = scheduler.after(delay) { onRetry() }
    let previous = pending.withLock { pending in
      defer { pending = task }
      return pending
    }
    previous?.cancel()
  }
}
