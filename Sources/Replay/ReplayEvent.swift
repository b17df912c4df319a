import TraceFormat

/// An event as the replay keeps it: 24 bytes, with the action as a dense index into the
/// replay's action table.
public struct ReplayEvent: Sendable, Hashable {
  /// Trace time in nanoseconds.
  public var time: Int64
  /// Index into ``ReplayEngine/actions``; ``ReplayEvent/noAction`` for marks.
  public var action: UInt32
  /// The thread it happened on (for a hop, the thread it hopped to).
  public var thread: UInt32
  /// Run number (begin, end), source thread (hop), mark index (mark), cancelling action's
  /// index + 1 or 0 (cancel).
  public var detail: UInt32
  /// What happened.
  public var kind: TraceEvent.Kind
  /// For a cancel: whether the action had started.
  public var started: Bool

  /// The `action` value of events that concern no action.
  public static let noAction = UInt32.max
}
