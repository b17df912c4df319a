import TraceFormat

/// What the trace says about one action when it was scheduled; the rest of its life is found
/// with ``ReplayEngine/life(of:)``. Packed to 56 bytes: a replay holds one per action.
public struct ReplayAction: Sendable, Hashable {
  /// When it was scheduled.
  public var scheduledAt: Int64
  /// When it was first due.
  public var due: Int64
  /// The delay, or interval for repeating work, in ns.
  public var delay: Int64
  /// The action's id in the trace.
  public var id: UInt32
  /// The scheduler's id.
  public var scheduler: UInt32
  /// The thread it was scheduled from.
  public var thread: UInt32
  /// The call site id (0: unknown).
  public var site: UInt32
  private var parentIndex: UInt32
  private var scheduleEventIndex: UInt32
  /// How it was scheduled.
  public var mode: TraceEvent.ScheduleMode

  /// Makes an action record.
  public init(
    id: UInt32, scheduler: UInt32, mode: TraceEvent.ScheduleMode, scheduledAt: Int64, due: Int64,
    delay: Int64, thread: UInt32, parent: UInt32?, site: UInt32, scheduleEvent: Int
  ) {
    self.scheduledAt = scheduledAt
    self.due = due
    self.delay = delay
    self.id = id
    self.scheduler = scheduler
    self.thread = thread
    self.site = site
    parentIndex = parent ?? .max
    scheduleEventIndex = UInt32(truncatingIfNeeded: scheduleEvent)
    self.mode = mode
  }

  /// The index of the action that scheduled it, if any.
  public var parent: UInt32? { parentIndex == .max ? nil : parentIndex }

  /// The index of its schedule event.
  public var scheduleEvent: Int { Int(scheduleEventIndex) }

  /// Whether it repeats.
  public var isRepeating: Bool { mode == .repeating }
}
