/// Where an action is at the replay's cursor.
package enum ActionState: UInt8, Sendable {
  /// Not scheduled yet.
  case unscheduled
  /// Scheduled, waiting to run (a repeating action between runs is pending too).
  case pending
  /// Running.
  case running
  /// Running, and cancelled meanwhile: it finishes this run and does not run again.
  case runningCancelled
  /// Finished, or cancelled before it ran.
  case done
}
