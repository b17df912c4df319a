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
  package let site: UInt32
  private let parentSlot: UInt32
  private let scheduleOffset: UInt32
  /// The queue's slot in the replay's tallies.
  let queueSlot: UInt32
  /// How it was scheduled.
  public let mode: TraceEvent.ScheduleMode
  /// For a `sync`: it ran inline because its thread already held the scheduler (waiting would
  /// have deadlocked).
  public let ranInline: Bool

  init(
    id: ActionID, queue: QueueID, mode: TraceEvent.ScheduleMode, scheduledAt: Int64, due: Int64,
    delay: Int64, scheduledOn: ThreadID, parent: ActionIndex?, site: UInt32,
    scheduleEvent: EventIndex, queueSlot: Int, ranInline: Bool = false
  ) {
    self.ranInline = ranInline
    self.scheduledAt = scheduledAt
    self.due = due
    self.delay = delay
    self.id = id
    self.queue = queue
    self.scheduledOn = scheduledOn
    self.site = site
    parentSlot = parent?.rawValue ?? .max
    scheduleOffset = UInt32(truncatingIfNeeded: scheduleEvent.offset)
    self.queueSlot = UInt32(truncatingIfNeeded: queueSlot)
    self.mode = mode
  }

  /// The event that scheduled it.
  var scheduleEvent: EventIndex { EventIndex(Int(scheduleOffset)) }

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
