import Synchronization

/// A handle to scheduled work with one `cancel()` for one-shot, delayed and repeating actions.
///
/// ```swift
/// let heartbeat = scheduler.every(.seconds(1)) { ping() }
/// heartbeat.cancel()  // no further runs
/// ```
///
/// Cancelling is idempotent and safe from any thread. Work that has not started will never run;
/// work already running finishes (a repeating action then does not run again).
public final class SchedulerTask: Sendable {
  private let cancelled = Atomic<Bool>(false)
  private let onCancel: Mutex<(@Sendable () -> Void)?>

  /// Makes a handle.
  ///
  /// - Parameter onCancel: Called once, on the thread that first calls ``cancel()``. Decorators
  ///   use it to forward cancellation to the task they wrap.
  public init(onCancel: (@Sendable () -> Void)? = nil) {
    self.onCancel = Mutex(onCancel)
  }

  /// Whether ``cancel()`` has been called.
  public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Stops the work from running (again). Later calls do nothing.
  public func cancel() {
    guard
      cancelled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else { return }
    let handler = onCancel.withLock { handler in
      defer { handler = nil }
      return handler
    }
    handler?()
  }

  /// A handle for work that has already finished; cancelling it does nothing.
  package static func finished() -> SchedulerTask { SchedulerTask() }
}
