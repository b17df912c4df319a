import ChronoscopeCore
import ChronoscopeTraceFormat

/// What the trace says about one action when it was scheduled; the rest of its life is found
/// with ``ReplayEngine/life(of:)``. ``ReplayEngine/action(_:)`` makes one from what the replay
/// keeps (``ActionRecord``) and the event that scheduled the action.
package struct ReplayAction: Sendable, Hashable {
  /// What the replay keeps of it.
  let record: ActionRecord
  /// When it was scheduled.
  package let scheduledAt: Int64
  /// The thread that scheduled it (not necessarily the one it runs on: see
  /// ``ReplayEngine/runningThread(of:)`` and ``ActionLife/Run/thread``).
  package let scheduledOn: ThreadID
  package let site: UInt32

  /// The action `record` describes, scheduled by `event`.
  init(_ record: ActionRecord, scheduledBy event: ReplayEvent) {
    self.record = record
    scheduledAt = event.time
    scheduledOn = event.thread
    site = event.scheduleSite ?? 0
  }

  /// When it was first due.
  package var due: Int64 { record.due }
  /// The delay, or the interval of repeating work, in ns.
  package var delay: Int64 { record.delay }
  /// Its id in the trace.
  package var id: ActionID { record.id }
  /// The scheduler it was scheduled on.
  package var scheduler: SchedulerID { record.scheduler }
  /// How it was scheduled.
  package var mode: TraceEvent.ScheduleMode { record.mode }
  /// For a `sync`: it ran inline because its thread already held the scheduler (waiting would
  /// have deadlocked).
  package var ranInline: Bool { record.ranInline }
  /// The action that was running on the scheduling thread when this one was scheduled.
  package var parent: ActionIndex? { record.parent }
  /// Whether it repeats.
  package var isRepeating: Bool { record.isRepeating }
  /// The event that scheduled it.
  var scheduleEvent: EventIndex { record.scheduleEvent }

  /// When run `number` (from 1) is due: the first due time plus whole intervals for repeating
  /// work, whose rhythm does not shift when a run is late.
  package func due(ofRun number: Int) -> Int64 { record.due(ofRun: number) }
}

/// What a replay keeps of each action (40 bytes, one per action: on a large trace, a good part
/// of its memory): a ``ReplayAction`` without what the event that scheduled it says — when, on
/// which thread, from which call site. What steps and passes over the events read per event is
/// here, so they never look up that event.
package struct ActionRecord: Sendable, Hashable {
  /// When it was first due.
  package let due: Int64
  /// The delay, or the interval of repeating work, in ns.
  package let delay: Int64
  /// Its id in the trace.
  package let id: ActionID
  /// The scheduler it was scheduled on.
  package let scheduler: SchedulerID
  private let parentSlot: UInt32
  private let scheduleOffset: UInt32
  /// The scheduler's slot in the replay's tallies, set once every scheduler is known.
  var schedulerSlot: UInt32 = 0
  /// How it was scheduled.
  package let mode: TraceEvent.ScheduleMode
  /// For a `sync`: it ran inline (see ``ReplayAction/ranInline``).
  package let ranInline: Bool

  init(
    id: ActionID, scheduler: SchedulerID, mode: TraceEvent.ScheduleMode, due: Int64, delay: Int64,
    parent: ActionIndex?, scheduleEvent: EventIndex, ranInline: Bool = false
  ) {
    self.due = due
    self.delay = delay
    self.id = id
    self.scheduler = scheduler
    parentSlot = parent?.rawValue ?? .max
    scheduleOffset = UInt32(truncatingIfNeeded: scheduleEvent.offset)
    self.mode = mode
    self.ranInline = ranInline
  }

  /// The event that scheduled it.
  var scheduleEvent: EventIndex { EventIndex(Int(scheduleOffset)) }

  /// The action that was running on the scheduling thread when this one was scheduled.
  package var parent: ActionIndex? { parentSlot == .max ? nil : ActionIndex(parentSlot) }

  /// Whether it repeats.
  package var isRepeating: Bool { mode == .repeating }

  /// When run `number` (from 1) is due (see ``ReplayAction/due(ofRun:)``).
  package func due(ofRun number: Int) -> Int64 {
    guard isRepeating, number > 1 else { return due }
    return due.adding(saturating: Int64(number - 1).multiplied(saturating: delay))
  }
}
