import Synchronization

/// A handle that holds its work until the work has run for the last time or is cancelled, so
/// that cancelling releases whatever the closure captured at once.
///
/// Live schedulers hand the executor a block that captures this handle, not the work:
///
/// ```swift
/// let task = WorkTask(work)
/// queue.asyncAfter(deadline: due) { task.takeForLastRun()?() }
/// ```
package final class WorkTask: SchedulerTask, @unchecked Sendable {
  // @unchecked Sendable (as its superclass): the work is behind a mutex.
  private let work: Mutex<(@Sendable () -> Void)?>

  package init(_ work: @escaping @Sendable () -> Void) {
    self.work = Mutex(work)
    super.init()
  }

  /// The work for a run after which it runs again (a repeating action); nil once cancelled.
  package var workForRun: (@Sendable () -> Void)? { work.withLock { $0 } }

  /// The work for its last run, which the handle lets go of; nil once cancelled or taken.
  package func takeForLastRun() -> (@Sendable () -> Void)? {
    work.withLock { work in
      defer { work = nil }
      return work
    }
  }

  /// Whether the handle still holds its work.
  package var holdsWork: Bool { work.withLock { $0 != nil } }

  override package func didCancel() { work.withLock { $0 = nil } }
}
