/// Why a ``TimeBubble`` could not run its body to its end.
public enum TimeBubbleError: Error, CustomStringConvertible {
  /// The bubble cannot work in this process: `reason` says what is missing (it needs Linux, ELF
  /// libraries with RELA relocations, and the Swift runtime's libraries loaded as shared objects).
  case unsupported(reason: String)
  /// Nothing in the bubble made at `bubble` (`file:line`) could run, no timer was pending, and nothing outside
  /// woke its work for `waitedFor` of real time: the body waits for something that will not come
  /// (a continuation never resumed, a lock, a semaphore, or work on a thread the bubble does not
  /// know). What waited is listed; the body was cancelled.
  case stuck(bubble: String, waiting: [String], waitedFor: Duration)
  /// Work of the bubble made at `bubble` blocked the bubble's one thread (a semaphore's or a
  /// group's `wait()`) for the stuck limit: `reason` says which. The wait was ended, so that the
  /// test could not hang.
  case blocked(bubble: String, reason: String)
  /// Moving the bubble's time failed as a virtual clock's move fails (work that schedules itself
  /// for now, for ever).
  case virtualTime(VirtualTimeError)

  public var description: String {
    switch self {
    case .unsupported(let reason):
      "a time bubble cannot work in this process: \(reason)"
    case .stuck(let bubble, let waiting, let waitedFor):
      "\(bubble): the time bubble made here is stuck: nothing in it can run, no timer of it is pending, and nothing outside woke it for \(waitedFor). The body was cancelled. Waiting:\n"
        + waiting.prefix(20).map { "  - \($0)" }.joined(separator: "\n")
        + "\nCode that waits on a thread it started itself, a blocking call (sleep(), a semaphore, a lock) or I/O is outside the bubble: its time is real, and the bubble cannot see it end."
    case .blocked(let bubble, let reason):
      "\(bubble): the time bubble made here failed: \(reason)"
    case .virtualTime(let error):
      "the time bubble could not move its time: \(error)"
    }
  }
}
