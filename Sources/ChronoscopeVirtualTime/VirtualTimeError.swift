import ChronoscopeScheduling

/// Why driving a ``VirtualClock`` stopped, or what a teardown check found.
public enum VirtualTimeError: Error, CustomStringConvertible {
  /// `run(maxSteps:)` ran that many actions and work was still pending — often an endless
  /// repeating timer. Cancel it, or advance by a fixed span instead of running until idle.
  /// An `advance` that ran its `maxSteps` with work still due in its span fails the running
  /// test with this message (a 1 ns timer advanced by years).
  case stepLimitExceeded(steps: Int, pending: [PendingAction])
  /// `run(horizon:)` reached the horizon with work still due after it.
  case horizonExceeded(horizon: Duration, pending: [PendingAction])
  /// `checkNoPendingWork()`, called at `checkedAt` (the test), found work that would still run.
  case leftoverWork(pending: [PendingAction], checkedAt: CallSite)
  /// `VirtualAsyncClock.checkNoPendingWork()`, called at `checkedAt`, found tasks it started
  /// that have not finished — waiting in a sleep (listed in `pending` with the other work) or
  /// for something that will not come, such as a stream's next element. It cancelled them.
  case unfinishedTasks(count: Int, pending: [PendingAction], checkedAt: CallSite)
  /// Code waited on the `VirtualAsyncClock` made at `clock` for `idleFor` with nobody moving it:
  /// a test that forgot to move the clock, or awaits something only a move would bring. What
  /// waited is listed; its sleeps threw this error and its tasks were cancelled.
  case notMoved(clock: CallSite, waiting: [String], idleFor: Duration)

  public var description: String {
    switch self {
    case .stepLimitExceeded(let steps, let pending):
      "virtual clock stopped after \(steps) steps with work still pending:\n" + list(pending)
    case .horizonExceeded(let horizon, let pending):
      "virtual clock reached its horizon \(horizon) with work still pending:\n" + list(pending)
    case .leftoverWork(let pending, let checkedAt):
      "\(checkedAt.fileID):\(checkedAt.line): \(pending.count) action(s) still pending:\n"
        + list(pending)
    case .unfinishedTasks(let count, let pending, let checkedAt):
      "\(checkedAt.fileID):\(checkedAt.line): \(count) task(s) started on the virtual clock have not finished (now cancelled)"
        + (pending.isEmpty ? "" : "; pending:\n" + list(pending))
    case .notMoved(let clock, let waiting, let idleFor):
      "\(clock.fileID):\(clock.line): the VirtualAsyncClock made here was not moved for \(idleFor) while code waited on it; its sleeps now throw and its tasks are cancelled. Move it (advance, run) or end the test with checkNoPendingWork(). Waiting:\n"
        + waiting.prefix(20).map { "  - \($0)" }.joined(separator: "\n")
    }
  }

  private func list(_ pending: [PendingAction]) -> String {
    pending.prefix(20).map { "  - \($0)" }.joined(separator: "\n")
      + (pending.count > 20 ? "\n  … and \(pending.count - 20) more" : "")
  }
}
