import TraceFormat

/// What the trace says about one action when it was scheduled; the rest of its life is found
/// with ``ReplayEngine/life(of:)``.
public struct ReplayAction: Sendable, Hashable {
  /// The action's id in the trace.
  public var id: UInt32
  /// The scheduler's id.
  public var scheduler: UInt32
  /// How it was scheduled.
  public var mode: TraceEvent.ScheduleMode
  /// When it was scheduled.
  public var scheduledAt: Int64
  /// When it was first due.
  public var due: Int64
  /// The delay, or interval for repeating work, in ns.
  public var delay: Int64
  /// The thread it was scheduled from.
  public var thread: UInt32
  /// The index of the action that scheduled it, if any.
  public var parent: UInt32?
  /// The call site id (0: unknown).
  public var site: UInt32
  /// The index of its schedule event.
  public var scheduleEvent: Int

  /// Whether it repeats.
  public var isRepeating: Bool { mode == .repeating }
}
