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
  //
  // In a struct, not bare: a closure stored as a Mutex's value is re-wrapped in a reabstraction
  // thunk each time `withLock` passes it through its generic `inout`, so a repeating action's
  // work grew a level deeper on every run — slower each time, and a stack overflow after some
  // hundred thousand runs.
  private let work: Mutex<Held>

  private struct Held {
    var work: (@Sendable () -> Void)?
  }

  package init(_ work: @escaping @Sendable () -> Void) {
    self.work = Mutex(Held(work: work))
    super.init(finished: false)
  }

  /// The work for a run after which it runs again (a repeating action); nil once cancelled.
  package var workForRun: (@Sendable () -> Void)? { work.withLock { $0.work } }

  /// The work for its last run, which the handle lets go of; nil once cancelled or taken.
  package func takeForLastRun() -> (@Sendable () -> Void)? {
    work.withLock { held in
      defer { held.work = nil }
      return held.work
    }
  }

  /// Whether the handle still holds its work.
  package var holdsWork: Bool { work.withLock { $0.work != nil } }

  override func didCancel() { work.withLock { $0.work = nil } }
}
