import ChronoscopeScheduling

/// A description of work waiting on a ``VirtualClock``, for inspection and error messages.
public struct PendingAction: Sendable, CustomStringConvertible {
  /// The label of the scheduler it will run on.
  public let label: String
  /// The kind of that scheduler.
  public let kind: SchedulerKind
  /// When it is due, measured from the clock's start.
  public let due: Duration
  /// Whether it repeats after it runs.
  public let isRepeating: Bool
  /// Where it was scheduled.
  public let callSite: CallSite

  init(scheduler: VirtualScheduler, due: Int64, isRepeating: Bool, callSite: CallSite) {
    label = scheduler.label
    kind = scheduler.kind
    self.due = .nanoseconds(due)
    self.isRepeating = isRepeating
    self.callSite = callSite
  }

  /// `"retry" (serial) due 2.0 seconds, repeating, from Retry.swift:12 in start()`.
  public var description: String {
    "\"\(label)\" (\(kind)) due \(due)\(isRepeating ? ", repeating" : ""), from \(callSite)"
  }
}
