import TraceFormat

/// What the trace says about one action when it was scheduled; the rest of its life is found
/// with ``ReplayEngine/life(of:)``. A replay holds one per action.
public struct ReplayAction: Sendable, Hashable {
  /// When it was scheduled.
  public let scheduledAt: Int64
  /// When it was first due.
  public let due: Int64
  /// The delay, or the interval of repeating work, in ns.
  public let delay: Int64
  /// Its id in the trace.
  public let id: ActionID
  /// The queue it was scheduled on.
  public let queue: QueueID
  /// The thread that scheduled it (not necessarily the one it runs on: see
  /// ``ReplayEngine/runningThread(of:)`` and ``ActionLife/Run/thread``).
  public let scheduledOn: ThreadID
  let site: UInt32
  private let parentSlot: UInt32
  let scheduleEvent: EventIndex
  /// How it was scheduled.
  public let mode: TraceEvent.ScheduleMode

  init(
    id: ActionID, queue: QueueID, mode: TraceEvent.ScheduleMode, scheduledAt: Int64, due: Int64,
    delay: Int64, scheduledOn: ThreadID, parent: ActionIndex?, site: UInt32,
    scheduleEvent: EventIndex
  ) {
    self.scheduledAt = scheduledAt
    self.due = due
    self.delay = delay
    self.id = id
    self.queue = queue
    self.scheduledOn = scheduledOn
    self.site = site
    parentSlot = parent?.rawValue ?? .max
    self.scheduleEvent = scheduleEvent
    self.mode = mode
  }

  /// The action that was running on the scheduling thread when this one was scheduled.
  public var parent: ActionIndex? { parentSlot == .max ? nil : ActionIndex(parentSlot) }

  /// Whether it repeats.
  public var isRepeating: Bool { mode == .repeating }

  /// When run `number` (from 1) is due: the first due time plus whole intervals for repeating
  /// work, whose rhythm does not shift when a run is late.
  public func due(ofRun number: Int) -> Int64 {
    guard isRepeating, number > 1 else { return due }
    return due.adding(saturating: Int64(number - 1).multiplied(saturating: delay))
  }
}
