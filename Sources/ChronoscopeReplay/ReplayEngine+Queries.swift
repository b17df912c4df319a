import ChronoscopeCore
import ChronoscopeTraceFormat
import HeapModule

/// How a scheduler stands at the cursor.
package struct SchedulerState: Sendable, Equatable {
  /// Actions waiting on it.
  package var pending: Int
  /// Actions of it running.
  package var running: Int
}

/// How a thread stands at the cursor.
package struct ThreadState: Sendable, Equatable {
  /// The actions running on it, outermost first (a `sync` run inline nests inside its caller).
  package var running: [ActionIndex]
  /// When the outermost of them began; nil when the thread is idle.
  package var busySince: Int64?
}

/// A run under way at the cursor.
package struct CurrentRun: Sendable, Equatable {
  /// Which run (counted from 1 in the order runs began).
  package var number: Int
  /// When it began.
  package var began: Int64
  /// The thread it runs on.
  package var thread: ThreadID
}

extension ReplayEngine {
  // MARK: - The trace

  /// The number of events.
  @_spi(Benchmarks) public var eventCount: Int { events.count }

  /// Every event's index, in time order.
  @_spi(Benchmarks) public var eventIndices: Range<EventIndex> {
    EventIndex(0)..<EventIndex(events.count)
  }

  /// The event at `index`.
  @_spi(Benchmarks) public func event(_ index: EventIndex) -> ReplayEvent { events[index.offset] }

  /// The number of actions.
  @_spi(Benchmarks) public var actionCount: Int { actions.count }

  /// Every action's index, in order of scheduling.
  package var actionIndices: [ActionIndex] { actions.indices.map { ActionIndex($0) } }

  /// What the trace says about `action` when it was scheduled.
  package func action(_ action: ActionIndex) -> ReplayAction {
    let record = actions[action.int]
    return ReplayAction(record, scheduledBy: events[record.scheduleEvent.offset])
  }

  /// What the replay keeps of `action`: what ``action(_:)`` says but when, on which thread and
  /// from where it was scheduled, without looking up the event that says those (for a pass
  /// over every event).
  package func actionRecord(_ action: ActionIndex) -> ActionRecord { actions[action.int] }

  /// The action with a trace id, if the trace scheduled it.
  ///
  /// - Complexity: O(1), or O(log a) for a actions when their ids ascend as they were scheduled.
  package func index(of id: ActionID) -> ActionIndex? {
    if let indexByID { return indexByID[id.rawValue].map(ActionIndex.init) }
    let low = (0..<actions.count).partitioningIndex { actions[$0].id.rawValue >= id.rawValue }
    return low < actions.count && actions[low].id == id ? ActionIndex(low) : nil
  }

  /// The index of the event that scheduled `action`.
  package func scheduleEvent(of action: ActionIndex) -> EventIndex {
    actions[action.int].scheduleEvent
  }

  /// A scheduler's record, if the trace defined it.
  package func scheduler(_ id: SchedulerID) -> SchedulerRecord? {
    guard let slot = schedulerSlots[id.rawValue] else { return nil }
    return schedulers[slot]
  }

  /// A thread's names and the schedulers it served.
  package func thread(_ id: ThreadID) -> ThreadInfo? {
    guard let slot = threadSlots[id.rawValue] else { return nil }
    return threads[slot]
  }

  /// Where `action` was scheduled in the source, if the trace says.
  /// The call site the trace defines as `id`, if any (a wait's).
  package func callSite(id: UInt32) -> CallSiteRecord? { callSites[id] }

  package func callSite(of action: ActionIndex) -> CallSiteRecord? {
    callSites[self.action(action).site]
  }

  /// The mark a ``TraceEvent/Kind/mark`` event made, if the trace has its text.
  package func mark(of event: ReplayEvent) -> MarkRecord? {
    guard let index = event.markIndex, marks.indices.contains(index) else { return nil }
    return marks[index]
  }

  // MARK: - The cursor

  /// The current event's index (the last one applied), if any.
  package var currentIndex: EventIndex? { position > 0 ? EventIndex(position - 1) : nil }

  /// The current event (the last one applied), if any.
  package var currentEvent: ReplayEvent? { position > 0 ? events[position - 1] : nil }

  /// Virtual time at the cursor: the current event's time, or 0 at the start.
  package var now: Int64 { currentEvent?.time ?? 0 }

  /// The time of the last event.
  @_spi(Benchmarks) public var span: Int64 { events.last?.time ?? 0 }

  /// The trace's end: when the recording closed or crashed, else its last event
  /// (`Trace.end(lastEvent:closedAt:crash:)`); what `show`, `stats`, `slice` and the inspector's
  /// header call the end.
  package var end: Int64 { Trace.end(lastEvent: span, closedAt: closedAt, crash: crash) }

  /// How many actions are pending, on every scheduler, on those in `schedulers`, or that are work of the
  /// tasks in `tasks`.
  ///
  /// - Complexity: O(1), or O(`schedulers.count` + `tasks.count`).
  package func pendingCount(in schedulers: Set<SchedulerID>? = nil, of tasks: Set<TaskID>? = nil)
    -> Int
  {
    if let tasks { return tasks.reduce(0) { $0 + taskState($1).pending } }
    guard let schedulers else { return live.pending.count }
    return schedulers.reduce(0) { $0 + schedulerState($1).pending }
  }

  /// The `count` soonest-due pending actions (then by when they were scheduled), on every scheduler,
  /// on those in `schedulers`, or that are work of the tasks in `tasks`.
  ///
  /// - Complexity: O(p log count) for p pending actions, in one pass that keeps the best
  ///   `count` seen, looking no action up unless a filter needs it: a view of the next few
  ///   costs well under a millisecond per hundred thousand pending actions, and nothing is kept
  ///   up to date by the steps for it.
  @_spi(Benchmarks) public func pending(
    first count: Int, in schedulers: Set<SchedulerID>? = nil, of tasks: Set<TaskID>? = nil
  ) -> [ActionIndex] {
    guard count > 0 else { return [] }
    let filtered = schedulers != nil || tasks != nil
    var best = Heap<PendingKey>()
    for (slot, entry) in live.pending {
      if filtered {
        // A cache miss per action on a big trace: only when a filter needs it.
        if let schedulers, !schedulers.contains(actions[Int(slot)].scheduler) { continue }
        if let tasks, !isWork(slot, of: tasks) { continue }
      }
      let key = PendingKey(due: entry.due, slot: slot)
      if best.count < count {
        best.insert(key)
      } else if let latest = best.max, key < latest {
        best.replaceMax(with: key)
      }
    }
    return best.unordered.sorted().map { ActionIndex(Int($0.slot)) }
  }

  /// A pending action's place in ``pending(first:in:of:)``: due, then scheduled. Actions are
  /// numbered in the order they were scheduled (the tables are built in time order), so the
  /// slot orders them as their schedule times do, ties by the file's order — no lookup needed.
  private struct PendingKey: Comparable {
    var due: Int64
    var slot: UInt32

    static func < (lhs: PendingKey, rhs: PendingKey) -> Bool {
      (lhs.due, lhs.slot) < (rhs.due, rhs.slot)
    }
  }

  /// Actions running now, in the order they were scheduled; only those on `schedulers`, running on
  /// `threads` or that are work of `tasks`, when given.
  ///
  /// - Complexity: O(r log r) for r running actions.
  @_spi(Benchmarks) public func running(
    in schedulers: Set<SchedulerID>? = nil, on threads: Set<ThreadID>? = nil,
    of tasks: Set<TaskID>? = nil
  ) -> [ActionIndex] {
    live.running.compactMap { slot, begin -> ActionIndex? in
      if let schedulers, !schedulers.contains(actions[Int(slot)].scheduler) { return nil }
      if let threads, !threads.contains(events[Int(begin)].thread) { return nil }
      if let tasks, !isWork(slot, of: tasks) { return nil }
      return ActionIndex(slot)
    }.sorted()
  }

  /// What the app named `action` (its name and values), if it did.
  ///
  /// - Complexity: O(1).
  package func work(of action: ActionIndex) -> WorkRecord? {
    guard let index = workOfAction[action.rawValue] else { return nil }
    return works.indices.contains(Int(index)) ? works[Int(index)] : nil
  }

  /// Whether any action of the trace is named work.
  package var hasNamedWork: Bool { !workOfAction.isEmpty }

  /// The task `action` is work of, if the trace says.
  package func task(of action: ActionIndex) -> TaskID? { taskInfo(of: action)?.id }

  /// The task `action` is work of, if the trace names one: what the inspector's lanes by task
  /// and the export call its runs by (``TaskInfo/title``, `typist (task 2)`).
  ///
  /// - Complexity: O(1).
  package func taskInfo(of action: ActionIndex) -> TaskInfo? {
    guard !taskSlots.isEmpty else { return nil }
    let slot = taskSlots[action.int]
    return slot == Self.none ? nil : tasks[Int(slot)]
  }

  private func isWork(_ slot: UInt32, of tasks: Set<TaskID>) -> Bool {
    task(of: ActionIndex(slot)).map(tasks.contains) ?? false
  }

  /// The task with id `id`, if the trace names it.
  package func task(_ id: TaskID) -> TaskInfo? {
    taskSlot(id).map { tasks[$0] }
  }

  /// The slot of task `id` in ``tasks``, if the trace names it.
  package func taskSlot(_ id: TaskID) -> Int? {
    // `tasks` is sorted by id.
    let low = (0..<tasks.count).partitioningIndex { tasks[$0].id >= id }
    return low < tasks.count && tasks[low].id == id ? low : nil
  }

  /// How `task`'s work stands at the cursor: its actions pending and running (its sleeps waiting,
  /// its jobs queued or under way).
  ///
  /// - Complexity: O(log t) for t tasks.
  package func taskState(_ task: TaskID) -> SchedulerState {
    guard let slot = taskSlot(task) else { return SchedulerState(pending: 0, running: 0) }
    return SchedulerState(
      pending: Int(live.pendingByTask[slot]), running: Int(live.runningByTask[slot]))
  }

  /// The number of actions running now.
  package var runningCount: Int { live.running.count }

  /// The state of an action at the cursor.
  package func state(of action: ActionIndex) -> ActionState {
    let slot = action.rawValue
    if live.running[slot] != nil {
      return live.cancelled.contains(slot) ? .runningCancelled : .running
    }
    if live.pending[slot] != nil { return .pending }
    return actions[action.int].scheduleEvent.offset < position ? .done : .unscheduled
  }

  /// When a pending action is next due: its first due time, or for repeating work the first due
  /// time plus one interval per run begun (its rhythm, which late runs do not shift). Nil when
  /// the action is not pending.
  package func nextDue(of action: ActionIndex) -> Int64? {
    live.pending[action.rawValue]?.due
  }

  /// For a pending action that has run: its last run, whose lateness shows a timer's drift.
  package func lastRun(of action: ActionIndex) -> ActionLife.Run? {
    guard let begin = live.pending[action.rawValue]?.lastBegin, begin != Self.none else {
      return nil
    }
    return run(begunAt: begin)
  }

  /// The run under way, for a running action.
  package func currentRun(of action: ActionIndex) -> CurrentRun? {
    guard let begin = live.running[action.rawValue] else { return nil }
    let event = events[Int(begin)]
    return CurrentRun(number: runNumber(begin), began: event.time, thread: event.thread)
  }

  private func run(begunAt begin: UInt32) -> ActionLife.Run {
    let event = events[Int(begin)]
    guard let action = event.action else { preconditionFailure("a begin without an action") }
    let number = runNumber(begin)
    return ActionLife.Run(
      number: number, due: actions[action.int].due(ofRun: number), began: event.time, ended: nil,
      thread: event.thread, hoppedFrom: nil)
  }

  /// How `scheduler` stands at the cursor.
  ///
  /// - Complexity: O(1).
  package func schedulerState(_ scheduler: SchedulerID) -> SchedulerState {
    guard let slot = schedulerSlots[scheduler.rawValue] else {
      // A scheduler the trace never defined shares its tally with other such schedulers: count it out.
      return SchedulerState(
        pending: live.pending.keys.count { actions[Int($0)].scheduler == scheduler },
        running: live.running.keys.count { actions[Int($0)].scheduler == scheduler })
    }
    return SchedulerState(
      pending: Int(live.pendingByScheduler[slot]), running: Int(live.runningByScheduler[slot]))
  }

  /// How `thread` stands at the cursor: what runs on it (the thread each run began on, not the
  /// thread that scheduled it) and since when it has been busy.
  ///
  /// - Complexity: O(actions running on it).
  package func threadState(_ thread: ThreadID) -> ThreadState {
    guard let slot = threadSlots[thread.rawValue] else {
      return ThreadState(running: [], busySince: nil)
    }
    let running = live.runningByThread[slot]
    let since = running.first.flatMap { live.running[$0] }.map { events[Int($0)].time }
    return ThreadState(running: running.map { ActionIndex($0) }, busySince: since)
  }

  // MARK: - The whole trace

  /// Everything that happened to `action`, from its schedule to the end of the trace.
  ///
  /// - Complexity: O(its events + the actions it scheduled or cancelled): they are indexed
  ///   once, the first time a life is asked for (O(n) for n events, shared by every copy of
  ///   the replay), so what came after it in between is never read.
  @_spi(Benchmarks) public func life(of action: ActionIndex) -> ActionLife {
    life(of: action, reading: actionEvents.events(of: action))
  }

  /// `action`'s life from the events at `offsets` (ascending), which must hold every event it
  /// is made of: ``life(of:)`` reads the indexed ones, and a test every event after the
  /// action's schedule, to check the index.
  package func life(of action: ActionIndex, reading offsets: some Sequence<Int>) -> ActionLife {
    var life = ActionLife(action: action)
    var pendingHop: ThreadID?
    for offset in offsets {
      let event = events[offset]
      guard let subject = event.action else { continue }
      if subject != action {
        if event.kind == .schedule, actions[subject.int].parent == action,
          actions[subject.int].scheduleEvent.offset == offset
        {
          life.children.append(subject)
        } else if event.kind == .cancel, event.cancelledBy == action,
          !life.cancelled.contains(subject)
        {
          life.cancelled.append(subject)
        }
        continue
      }
      switch event.kind {
      case .hop: pendingHop = event.hoppedFrom
      case .begin:
        guard event.prior == .pending else { continue }  // a begin the replay ignores
        var run = run(begunAt: UInt32(offset))
        run.hoppedFrom = pendingHop
        life.runs.append(run)
        pendingHop = nil
      case .end:
        let run = lastRun(of: action, before: offset)
        if run.begin != Self.none, events[offset].prior.isRunning,
          let last = life.runs.indices.last,
          life.runs[last].number == runNumber(ordinal: run.ordinal, of: action)
        {
          life.runs[last].ended = event.time
        }
      case .cancel:
        if life.cancelledAt == nil {
          life.cancelledAt = event.time
          life.cancelledBy = event.cancelledBy
          life.cancelledAfterStart = event.cancelledAfterStart ?? false
        }
      case .schedule, .mark, .task, .work, .wait: break
      }
    }
    return life
  }

  /// How many events ``life(of:)`` reads for `action`: what bounds its cost, for tests.
  package func eventsReadForLife(of action: ActionIndex) -> Int {
    actionEvents.count(of: action)
  }

  /// The bytes the index ``life(of:)`` reads takes, for tests and benchmarks.
  package var lifeIndexBytes: Int { actionEvents.storedBytes }
}

// MARK: - Dense slots, for passes over the events that keep per-scheduler or per-thread state

extension ReplayEngine {
  /// The begin of `action`'s last run begun before the event at `index`, if any: what a pass
  /// over the events needs, without keeping it per action.
  ///
  /// - Complexity: O(1) for an action that ran once, O(log runs) otherwise.
  package func lastBegin(of action: ActionIndex, before index: EventIndex) -> EventIndex? {
    guard actions.indices.contains(action.int) else { return nil }
    let begin = lastBegin(of: action, before: index.offset)
    return begin == Self.none ? nil : EventIndex(Int(begin))
  }
}

extension ReplayEngine {
  /// How many scheduler slots there are: one per defined scheduler, plus one shared by work on schedulers the
  /// trace never defined.
  package var schedulerSlotCount: Int { schedulers.count + 1 }

  /// The scheduler slot of the scheduler `action` was scheduled on, in `0..<schedulerSlotCount`.
  package func schedulerSlot(of action: ActionIndex) -> Int {
    Int(actions[action.int].schedulerSlot)
  }

  /// How many thread slots there are: one per thread seen in the trace.
  package var threadSlotCount: Int { threadSlots.count }

  /// The slot of `thread`, in `0..<threadSlotCount`, if the trace has it.
  package func threadSlot(of thread: ThreadID) -> Int? { threadSlots[thread.rawValue] }

  /// The slot of scheduler `scheduler` (its place in ``schedulers``), if the trace defines it.
  package func schedulerSlot(_ scheduler: SchedulerID) -> Int? {
    schedulerSlots[scheduler.rawValue]
  }

  /// The slot in ``tasks`` of the task `action` is work of, if any.
  package func taskSlot(of action: ActionIndex) -> Int? {
    guard !taskSlots.isEmpty else { return nil }
    let slot = taskSlots[action.int]
    return slot == Self.none ? nil : Int(slot)
  }
}
