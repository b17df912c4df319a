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
///
/// The class is open so that a scheduler can keep its own bookkeeping in the handle it returns
/// (the virtual clock does: one allocation per action instead of two); everything on it is final.
// @unchecked Sendable: its own state is an atomic and a mutex; subclasses must keep theirs
// immutable or guarded, and say how.
open class SchedulerTask: @unchecked Sendable {
  private let cancelled = Atomic<Bool>(false)
  private let onCancel: Mutex<CancelHandlers>
  /// Whether the work already ran to completion when the handle was made (inline schedulers):
  /// cancelling can change nothing, so decorators need not watch it.
  package final let isFinished: Bool

  /// Makes a handle.
  ///
  /// - Parameter onCancel: Called once, on the thread that first calls ``cancel()``. Decorators
  ///   use it to forward cancellation to the task they wrap.
  public init(onCancel: (@Sendable () -> Void)? = nil) {
    self.onCancel = Mutex(CancelHandlers(first: onCancel.map(CancelHandler.closure)))
    isFinished = false
  }

  private init(finished: Bool) {
    onCancel = Mutex(CancelHandlers())
    isFinished = finished
  }

  /// Whether ``cancel()`` has been called.
  public final var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Stops the work from running (again). Later calls do nothing.
  public final func cancel() {
    guard
      cancelled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else { return }
    let handlers = onCancel.withLock { handlers in
      defer { handlers = CancelHandlers() }
      return handlers
    }
    handlers.first?.run()
    for handler in handlers.rest { handler.run() }
  }

  /// Adds `handler` to what runs on the first ``cancel()``; runs it at once if that has happened.
  ///
  /// Decorators (such as the recording scheduler) observe cancellation this way without wrapping
  /// the handle, so every layer sees the same one.
  package final func whenCancelled(_ handler: @escaping @Sendable () -> Void) {
    add(.closure(handler))
  }

  /// Tells `observer` about the first ``cancel()``, or at once if that has happened: like
  /// ``whenCancelled(_:)``, without allocating a closure.
  package final func whenCancelled(notify observer: any CancellationObserver) {
    add(.observer(observer))
  }

  private func add(_ handler: CancelHandler) {
    let runNow = onCancel.withLock { handlers -> Bool in
      if isCancelled { return true }
      if handlers.first == nil {
        handlers.first = handler
      } else {
        handlers.rest.append(handler)
      }
      return false
    }
    if runNow { handler.run() }
  }

  /// A handle for work that has already finished; cancelling it does nothing.
  package static func finished() -> SchedulerTask { SchedulerTask(finished: true) }
}

/// Something told when a ``SchedulerTask`` is cancelled.
package protocol CancellationObserver: AnyObject, Sendable {
  /// Called once, on the thread that cancelled the task.
  func schedulerTaskCancelled()
}

private enum CancelHandler: Sendable {
  case closure(@Sendable () -> Void)
  case observer(any CancellationObserver)

  func run() {
    switch self {
    case .closure(let closure): closure()
    case .observer(let observer): observer.schedulerTaskCancelled()
    }
  }
}

/// The first handler inline; more (nested decorators) in an array, allocated only then.
private struct CancelHandlers: Sendable {
  var first: CancelHandler?
  var rest: [CancelHandler] = []
}
