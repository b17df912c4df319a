import Synchronization

/// A handle to scheduled work with one `cancel()` for one-shot, delayed and repeating actions.
///
/// ```swift
/// let heartbeat = scheduler.every(.seconds(1)) { ping() }
/// heartbeat.cancel()  // no further runs
/// ```
///
/// Cancelling is idempotent and safe from any thread. Work that has not started will never run;
/// work already running finishes (a repeating action then does not run again). Every family lets
/// go of the work on cancel, so what the closure captured is released at once — not when the
/// work would have been due — and a timer whose closure captures its owner does not keep it.
///
/// Not open: a handle's state is this module's to guard (its `Sendable` conformance is checked by
/// hand), so other modules cannot subclass it. A scheduler that keeps its bookkeeping in the
/// handle (the virtual clock: one allocation per action instead of two) makes a ``SlotTask``.
// @unchecked Sendable: its own state is an atomic and a mutex; the subclasses in this module keep
// theirs immutable or guarded, and say how.
public class SchedulerTask: @unchecked Sendable {
  private let cancelled = Atomic<Bool>(false)
  /// Whether the work already ran to completion when the handle was made (inline schedulers):
  /// cancelling can change nothing, so decorators need not watch it.
  package final let isFinished: Bool
  /// Who to tell on cancel: nothing, one ``CancellationObserver`` (the common case, stored as is),
  /// or a ``CancelHandlerList``. One word, so the handle stays small: the virtual clock keeps its
  /// hot fields in the same cache line.
  ///
  /// Held retained by hand, not as an `AnyObject?`: a mutex of a plain word costs nothing to
  /// destroy, where `Mutex<AnyObject?>`'s deinit went through `Optional`'s generic value witness
  /// (with a metadata lookup) for every handle, nil or not (measured: Benchmarks/README.md,
  /// "Figures behind the code").
  private let onCancel: Mutex<Unmanaged<AnyObject>?>

  /// Makes a handle.
  ///
  /// - Parameter onCancel: Called once, on the thread that first calls ``cancel()``. Decorators
  ///   use it to forward cancellation to the task they wrap.
  public init(onCancel: (@Sendable () -> Void)? = nil) {
    self.onCancel = Mutex(
      onCancel.map { .passRetained(CancelHandlerList([.closure($0)]) as AnyObject) })
    isFinished = false
  }

  /// Makes a handle with no one to tell yet, finished or not: what this module's schedulers
  /// call, with nothing to wrap.
  init(finished: Bool) {
    onCancel = Mutex(nil)
    isFinished = finished
  }

  deinit {
    // Nothing else can reach the handle any more; the lock is free and uncontended.
    onCancel.withLock { $0 }?.release()
  }

  /// Whether ``cancel()`` has been called.
  public final var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Stops the work from running (again). Later calls do nothing.
  public final func cancel() {
    guard
      cancelled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else { return }
    let taken = onCancel.withLock { handlers in
      defer { handlers = nil }
      return handlers
    }
    Self.notify(taken?.takeRetainedValue())
    didCancel()
  }

  /// Called once, on the thread that first calls ``cancel()``, after the observers: a subclass
  /// that holds the work lets go of it here. The work may be running on another thread at that
  /// moment; it finishes with its own reference.
  func didCancel() {}

  /// Adds `handler` to what runs on the first ``cancel()``; runs it at once if that has happened.
  ///
  /// Decorators (such as the recording scheduler) observe cancellation this way without wrapping
  /// the handle, so every layer sees the same one.
  package final func whenCancelled(_ handler: @escaping @Sendable () -> Void) {
    add(.closure(handler))
  }

  /// Tells `observer` about the first ``cancel()``, or at once if that has happened: like
  /// ``whenCancelled(_:)``, without allocating anything for the first observer.
  package final func whenCancelled(notify observer: any CancellationObserver) {
    add(.observer(observer))
  }

  private func add(_ handler: CancelHandler) {
    let runNow = onCancel.withLock { handlers -> Bool in
      if isCancelled { return true }
      if handlers == nil, case .observer(let observer) = handler {
        handlers = .passRetained(observer as AnyObject)
      } else {
        let list = CancelHandlerList(
          Self.handlers(in: handlers?.takeUnretainedValue()) + [handler])
        handlers?.release()
        handlers = .passRetained(list)
      }
      return false
    }
    if runNow { handler.run() }
  }

  private static func notify(_ handlers: AnyObject?) {
    for handler in Self.handlers(in: handlers) { handler.run() }
  }

  /// The handlers `onCancel` holds: a list, a single observer, or none.
  private static func handlers(in stored: AnyObject?) -> [CancelHandler] {
    if let list = stored as? CancelHandlerList { return list.handlers }
    if let observer = stored as? any CancellationObserver { return [.observer(observer)] }
    return []
  }

  /// A handle for work that has already finished; cancelling it does nothing.
  package static func finished() -> SchedulerTask { SchedulerTask(finished: true) }
}

/// What a ``SlotTask`` tells when it is cancelled: the scheduler that keeps the work in a slot.
package protocol SlotOwner: AnyObject, Sendable {
  /// Cancels the work in `slot` if the slot still holds the work given `ticket`.
  func cancelSlot(_ slot: UInt32, ticket: UInt64)
}

/// The handle of a scheduler that keeps its work in numbered slots (the virtual clock): one
/// allocation per action, holding what cancelling needs and nothing that running reads.
// @unchecked Sendable (as its superclass): every stored property is immutable.
package final class SlotTask: SchedulerTask, @unchecked Sendable {
  private let owner: any SlotOwner
  private let slot: UInt32
  private let ticket: UInt64

  package init(owner: any SlotOwner, slot: UInt32, ticket: UInt64) {
    self.owner = owner
    self.slot = slot
    self.ticket = ticket
    super.init(finished: false)
  }

  override func didCancel() { owner.cancelSlot(slot, ticket: ticket) }
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

/// Several cancel handlers, in the order they were added; immutable.
private final class CancelHandlerList: Sendable {
  let handlers: [CancelHandler]
  init(_ handlers: [CancelHandler]) { self.handlers = handlers }
}
