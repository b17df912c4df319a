import ChronoscopeCore

/// The whole life of one action, from its events: for the inspector's detail view.
@_spi(Benchmarks) public struct ActionLife: Sendable, Equatable {
  /// One run of the action.
  package struct Run: Sendable, Equatable {
    /// Which run, counted from 1 in the order runs began.
    package var number: Int
    /// When it was due: the first due time plus whole intervals for repeating work.
    package var due: Int64
    /// When it began.
    package var began: Int64
    /// When it ended, if it did.
    package var ended: Int64?
    /// The thread it ran on.
    package var thread: ThreadID
    /// The thread it hopped from, if it ran on another thread than the one that scheduled it.
    package var hoppedFrom: ThreadID?

    /// How late it began (negative: early), saturating.
    package var lateness: Int64 { began.subtracting(saturating: due) }
  }

  /// The action.
  package var action: ActionIndex
  /// Every run, in order.
  package var runs: [Run] = []
  /// When it was cancelled, if it was.
  package var cancelledAt: Int64?
  /// The action that cancelled it, if one was running.
  package var cancelledBy: ActionIndex?
  /// Whether it had started when cancelled.
  package var cancelledAfterStart = false
  /// The actions it scheduled, in order.
  package var children: [ActionIndex] = []
  /// The actions it cancelled, in order.
  package var cancelled: [ActionIndex] = []
}
