import ChronoscopeCore

/// The whole life of one action, from its events: for the inspector's detail view.
public struct ActionLife: Sendable, Equatable {
  /// One run of the action.
  public struct Run: Sendable, Equatable {
    /// Which run, counted from 1 in the order runs began.
    public var number: Int
    /// When it was due: the first due time plus whole intervals for repeating work.
    public var due: Int64
    /// When it began.
    public var began: Int64
    /// When it ended, if it did.
    public var ended: Int64?
    /// The thread it ran on.
    public var thread: ThreadID
    /// The thread it hopped from, if it ran on another thread than the one that scheduled it.
    public var hoppedFrom: ThreadID?

    /// How late it began (negative: early), saturating.
    public var lateness: Int64 { began.subtracting(saturating: due) }
  }

  /// The action.
  public var action: ActionIndex
  /// Every run, in order.
  public var runs: [Run] = []
  /// When it was cancelled, if it was.
  public var cancelledAt: Int64?
  /// The action that cancelled it, if one was running.
  public var cancelledBy: ActionIndex?
  /// Whether it had started when cancelled.
  public var cancelledAfterStart = false
  /// The actions it scheduled, in order.
  public var children: [ActionIndex] = []
  /// The actions it cancelled, in order.
  public var cancelled: [ActionIndex] = []
}
