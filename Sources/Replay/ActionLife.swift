/// The whole life of one action, from its events: for the inspector's detail view.
public struct ActionLife: Sendable, Equatable {
  /// One run of the action.
  public struct Run: Sendable, Equatable {
    /// Which run (1 for one-shot actions).
    public var number: UInt32
    /// When it began.
    public var began: Int64
    /// When it ended, if it did.
    public var ended: Int64?
    /// The thread it ran on.
    public var thread: UInt32
    /// The thread it hopped from, if it ran on another thread than the one that scheduled it.
    public var hoppedFrom: UInt32?
  }

  /// The action's index.
  public var action: Int
  /// Every run, in order.
  public var runs: [Run]
  /// When it was cancelled, if it was.
  public var cancelledAt: Int64?
  /// The index of the action that cancelled it, if one was running.
  public var cancelledBy: Int?
  /// Whether it had started when cancelled.
  public var cancelledAfterStart: Bool
  /// Indices of the actions it scheduled.
  public var children: [Int]
}
