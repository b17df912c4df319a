import ChronoscopeCore
import ChronoscopeTraceFormat
import Synchronization

/// Replays a trace on a virtual clock: for any cursor position it answers which actions are
/// pending, which are running and on which thread, and how each scheduler and thread stands; it steps
/// forward and back exactly.
///
/// ```swift
/// var replay = ReplayEngine(trace: trace)
/// replay.seek(toTime: 1_250_000_000)      // 1.25 s
/// replay.pending(first: 10)               // the ten soonest-due pending actions
/// replay.threadState(ThreadID(rawValue: 4)).running
/// replay.stepBackward()
/// ```
///
/// The cursor is a count of applied events: at position 0 nothing has happened; at position `i`
/// the events `0..<i` have, and the event at `i - 1` is the current one. Events are replayed in
/// time order (the file's order among equal times). Events of actions the trace never scheduled
/// are left out (the reader warns about them).
///
/// - Complexity: a step is O(1), or O(log r) for an action that ran r times; a seek is O(`keyframeInterval` + live actions) whatever the
///   distance, because the live sets are snapshotted every `keyframeInterval` events — or, while
///   more actions than that are live, every as many events as there are live actions, so that the
///   snapshots together hold at most about one entry per event — and a seek starts from the
///   nearest snapshot or from the cursor, whichever is closer.
@_spi(Benchmarks) public struct ReplayEngine: Sendable {
  /// What preparing made, which nothing changes afterwards. Kept behind one reference, so a
  /// copy of the engine costs a retain, and a loop that reads an engine held inside a struct it
  /// mutates (the findings pass, the export) does not copy it before every call: measured, that
  /// copied 416 bytes up to four times per event.
  private let prepared: Prepared

  /// The trace's header.
  package var header: TraceHeader { prepared.header }
  /// Whether the trace ended with a `close` line; without one the process may have crashed and
  /// the last moments may be missing.
  package var isClosed: Bool { prepared.isClosed }
  /// The signal and thread, when the recorder wrote what it held as the process crashed.
  package var crash: Trace.Crash? { prepared.crash }
  /// When the recorder last said it dropped events (``Trace/lastDropTime``), if it did.
  package var lastDropTime: Int64? { prepared.lastDropTime }
  /// Each `dropped` line that counted events (``Trace/drops``).
  package var drops: [TraceDrop] { prepared.drops }
  /// How many runs were left out because the trace never scheduled their work (its `schedule`
  /// dropped, or before a slice's window): their `begin`s.
  package var unscheduledRuns: Int { prepared.unscheduledRuns }
  /// When the recording closed, if the trace says (its `close` line).
  package var closedAt: Int64? { prepared.closedAt }
  /// The schedulers, by id.
  @_spi(Benchmarks) public var schedulers: [SchedulerRecord] { prepared.schedulers }
  /// The threads, by id, with titles that identify them.
  package var threads: [ThreadInfo] { prepared.threads }
  /// The marks; ``ReplayEvent/markIndex`` indexes them.
  package var marks: [MarkRecord] { prepared.marks }
  /// The threads' waits outside any run (``TraceEvent/Kind/wait``), in time order.
  package var waits: [TraceEvent] { prepared.waits }
  /// The Swift tasks the trace names, by id: empty for a trace without `task` lines.
  package var tasks: [TaskInfo] { prepared.tasks }

  var events: [ReplayEvent] { prepared.events }
  var actions: [ActionRecord] { prepared.actions }
  var callSites: [UInt32: CallSiteRecord] { prepared.callSites }
  var schedulerSlots: SlotTable { prepared.schedulerSlots }
  var threadSlots: SlotTable { prepared.threadSlots }
  var indexByID: SlotTable? { prepared.indexByID }
  var onlyBegins: [UInt32] { prepared.onlyBegins }
  var repeatedBegins: [UInt32: [UInt32]] { prepared.repeatedBegins }
  var firstRuns: [UInt32: UInt32] { prepared.firstRuns }
  var taskSlots: [UInt32] { prepared.taskSlots }
  var actionEvents: ActionEventIndex { prepared.actionEvents() }
  var works: [WorkRecord] { prepared.works }
  var workOfAction: [UInt32: UInt32] { prepared.workOfAction }
  var keyframeInterval: Int { prepared.keyframeInterval }

  private(set) var keyframes: [Keyframe] = []
  /// Whether ``keyframes`` holds the snapshots of the whole trace, not only its start.
  private var keyframesMade = false

  /// The number of events applied.
  package internal(set) var position = 0
  var live: LiveState

  /// "No event" or "no action" in the tables above.
  static let none = UInt32.max
  /// In ``onlyBegins``: the action ran more than once. (No event has this offset: offsets are 32
  /// bits, and four billion events would take a file of hundreds of gigabytes.)
  static let ranMoreThanOnce = UInt32.max - 1

  /// The tables preparing makes; see the forwarding properties above for what each holds.
  private final class Prepared: Sendable {
    let header: TraceHeader
    let isClosed: Bool
    let crash: Trace.Crash?
    let closedAt: Int64?
    let lastDropTime: Int64?
    let drops: [TraceDrop]
    let unscheduledRuns: Int
    let schedulers: [SchedulerRecord]
    let threads: [ThreadInfo]
    let marks: [MarkRecord]
    /// The trace's `wait` events, in time order: a ``TraceEvent/Kind/wait`` in ``events`` holds
    /// its index here.
    let waits: [TraceEvent]
    /// What the app named its work (``Trace/works``), and by action slot the index of each
    /// named action's.
    let works: [WorkRecord]
    let workOfAction: [UInt32: UInt32]
    let tasks: [TaskInfo]
    let events: [ReplayEvent]
    let actions: [ActionRecord]
    let callSites: [UInt32: CallSiteRecord]
    let schedulerSlots: SlotTable
    let threadSlots: SlotTable
    /// Action slots by trace id; nil when the ids ascend with the slots, as a recorder numbers
    /// them, and a search finds them (the table took 4 to 5 bytes an action).
    let indexByID: SlotTable?
    /// By action slot, the begin of its only run; `none` when it never ran, and
    /// `ranMoreThanOnce` when its begins are in ``repeatedBegins``. What redoing or undoing an
    /// event needs of the runs before it — an end's begin, a begin's run ordinal — is found
    /// here and there, where a link per event cost 4 bytes an event.
    let onlyBegins: [UInt32]
    /// The begins of every action that ran more than once, in order, by action slot: undoing
    /// run k finds run k − 1 here, and an end the begin of its run. Kept apart because most
    /// actions run once.
    let repeatedBegins: [UInt32: [UInt32]]
    /// By action slot, the run number of its first begin in the trace when that is above 1: a
    /// window (a slice, a flight recorder's dump) that starts after runs it no longer holds.
    /// Runs are numbered on from it.
    let firstRuns: [UInt32: UInt32]
    /// By action slot, the slot in ``tasks`` of the task it is work of, or `none`; empty when
    /// the trace names no task.
    let taskSlots: [UInt32]
    /// Each action's own events, its children's schedules and the cancels it made, so that an
    /// action's life reads those and not every event after it: made the first time a life is
    /// asked for, once for every copy of the replay. Made with the tables, it cost every command
    /// that never asks (`check`, `stats`, `export`) its time, and `view` 2.7 bytes an event
    /// before its first frame, which took its peak past 48 (Benchmarks/README.md).
    private let lazyActionEvents = Mutex<ActionEventIndex?>(nil)

    /// The index of each action's events, made now if it is not yet.
    ///
    /// - Complexity: O(n) the first time, for n events; then O(1).
    func actionEvents() -> ActionEventIndex {
      lazyActionEvents.withLock { index in
        if let index { return index }
        let made = events.withUnsafeBufferPointer { events in
          ActionEventIndex(events: events, actions: actions)
        }
        index = made
        return made
      }
    }
    let keyframeInterval: Int

    /// Prepares the tables of `trace` (see ``ReplayEngine/init(trace:keyframeInterval:makingKeyframes:progress:)``);
    /// with `takingEvents`, takes the trace's events and hands back their memory as it goes
    /// (see ``ReplayEngine/init(consuming:keyframeInterval:makingKeyframes:progress:)``).
    convenience init(
      trace: inout Trace, takingEvents: Bool, keyframeInterval: Int,
      progress: ((Double) -> Void)?
    ) {
      var ordered: [TraceEvent]
      if takingEvents {
        // Taken, the events have one owner left, so they are not copied to be ordered or
        // handed back.
        ordered = trace.events
        trace.events = []
        ReplayEngine.putInTimeOrder(&ordered)
      } else {
        ordered = ReplayEngine.timeOrdered(trace.events)
      }
      let builder = TablesBuilder(progress: progress.map { report in { report($0 * 0.8) } })
      builder.reserve(events: ordered.count, actions: ordered.count { $0.kind == .schedule })
      ReplayEngine.feed(&ordered, to: builder, handingBack: takingEvents)
      self.init(
        trace: trace, built: builder, keyframeInterval: keyframeInterval, progress: progress)
    }

    /// Prepares the tables of `trace`, whose events `builder` took (`trace.events` is not
    /// read).
    init(
      trace: Trace, built builder: TablesBuilder, keyframeInterval: Int,
      progress: ((Double) -> Void)?
    ) {
      header = trace.header
      isClosed = trace.closing != nil
      crash = trace.crash
      closedAt = trace.closing == nil ? nil : trace.closedAt
      lastDropTime = trace.lastDropTime
      drops = trace.drops
      marks = trace.marks
      works = trace.works
      callSites = trace.callSites
      self.keyframeInterval = max(keyframeInterval, 1)
      schedulers = trace.schedulers.values.sorted { $0.id < $1.id }
      schedulerSlots = SlotTable(schedulers.map(\.id))
      var tables = builder.finish(schedulerSlots: schedulerSlots)
      progress?(0.8)
      // Moved out, so that the history pass writes into them without copying them first.
      var events = tables.events
      tables.events = []
      actions = tables.actions
      unscheduledRuns = tables.unscheduledBegins
      let ascending = zip(actions, actions.dropFirst()).allSatisfy {
        $0.id.rawValue < $1.id.rawValue
      }
      indexByID = ascending ? nil : tables.actionIndices
      tables.actionIndices = SlotTable()
      (tasks, taskSlots) = ReplayEngine.tasks(
        tables.taskOfAction, names: trace.taskNames, actions: actions)
      workOfAction = tables.workOfAction
      waits = tables.waits

      let threadIDs = tables.threads.union(trace.threadNames.keys).sorted()
      threadSlots = SlotTable(threadIDs)
      let history = ReplayEngine.history(
        events: &events, actions: actions, threadSlots: threadSlots,
        progress: progress.map { report in { report(0.8 + 0.2 * $0) } })
      self.events = events
      onlyBegins = history.onlyBegins
      repeatedBegins = history.repeatedBegins
      firstRuns = history.firstRuns

      let titles = ThreadInfo.titles(
        for: threadIDs.map { (ThreadID(rawValue: $0), trace.threadNames[$0]) })
      threads = zip(threadIDs.indices, titles).map { slot, title in
        let id = threadIDs[slot]
        return ThreadInfo(
          id: ThreadID(rawValue: id), recordedName: trace.threadNames[id], title: title,
          schedulers: history.served[slot].sorted())
      }
    }
  }

  /// Prepares a replay of `trace` with the cursor at the start.
  ///
  /// - Parameters:
  ///   - keyframeInterval: Events between snapshots of the live sets.
  ///   - makingKeyframes: Whether to make those snapshots now; without them seeks are O(n) until
  ///     ``makeKeyframes(progress:)``.
  ///   - progress: Called now and then with the fraction prepared.
  /// - Complexity: O(n log n) for n events when the file is out of time order, else O(n).
  @_spi(Benchmarks) public init(
    trace: Trace, keyframeInterval: Int = 4096, makingKeyframes: Bool = true,
    progress: ((Double) -> Void)? = nil
  ) {
    var trace = trace
    self.init(
      trace: &trace, takingEvents: false, keyframeInterval: keyframeInterval,
      makingKeyframes: makingKeyframes, progress: progress)
  }

  /// Prepares a replay of `trace` as ``init(trace:keyframeInterval:makingKeyframes:progress:)``
  /// does, taking its events: the memory they fill is handed back to the system as the
  /// replay's tables are made from them, so the two are never both whole in memory. On ten
  /// million events that is half a gigabyte less at the peak.
  ///
  /// Pass the last copy of the trace (`ReplayEngine(consuming: consume trace)`, or a trace just
  /// read): while another copy shares its events they are copied first, which costs the time and
  /// memory this saves.
  package init(
    consuming trace: consuming Trace, keyframeInterval: Int = 4096, makingKeyframes: Bool = true,
    progress: ((Double) -> Void)? = nil
  ) {
    self.init(
      trace: &trace, takingEvents: true, keyframeInterval: keyframeInterval,
      makingKeyframes: makingKeyframes, progress: progress)
  }

  private init(
    trace: inout Trace, takingEvents: Bool, keyframeInterval: Int, makingKeyframes: Bool,
    progress: ((Double) -> Void)?
  ) {
    // Progress runs through the passes in proportion to what they cost (measured on a 10M-event
    // trace): the tables, the history, then the stepping that makes the keyframes (half).
    let share = makingKeyframes ? 0.5 : 1
    self.init(
      prepared: Prepared(
        trace: &trace, takingEvents: takingEvents, keyframeInterval: keyframeInterval,
        progress: progress.map { report in { report($0 * share) } }),
      makingKeyframes: makingKeyframes, progress: progress)
  }

  /// Prepares a replay of `trace`, whose events `builder` took as the file was read (see
  /// ``read(path:keyframeInterval:makingKeyframes:reading:preparing:)``).
  init(
    trace: Trace, built builder: TablesBuilder, keyframeInterval: Int, makingKeyframes: Bool,
    progress: ((Double) -> Void)?
  ) {
    let share = makingKeyframes ? 0.5 : 1
    // The tables (the first 80% of preparing) were made while reading: what is left counts
    // from 0.
    self.init(
      prepared: Prepared(
        trace: trace, built: builder, keyframeInterval: keyframeInterval,
        progress: progress.map { report in { report(max($0 - 0.8, 0) / 0.2 * share) } }),
      makingKeyframes: makingKeyframes, progress: progress)
  }

  private init(prepared: Prepared, makingKeyframes: Bool, progress: ((Double) -> Void)?) {
    let share = makingKeyframes ? 0.5 : 1
    self.prepared = prepared
    progress?(share)
    live = LiveState(
      schedulers: prepared.schedulers.count, threads: prepared.threads.count,
      tasks: prepared.tasks.count)
    keyframes = [Keyframe(live, at: 0)]
    if makingKeyframes {
      makeKeyframes(progress: progress.map { report in { report(0.5 + 0.5 * $0) } })
    }
  }

  /// Whether seeks start from snapshots of the live sets (see ``makeKeyframes(progress:)``).
  package var hasKeyframes: Bool { keyframesMade }

  /// Makes the snapshots of the live sets that seeks start from, unless they are made already:
  /// one pass stepping through every event (on ten million events, about as long as the rest of
  /// preparing), the cursor left where it was.
  ///
  /// A replay prepared with `makingKeyframes: false` answers everything without them, and a
  /// seek still lands exactly, stepping from the start or the cursor. So what only walks the
  /// events (findings, statistics, export) skips this pass, and the inspector makes it while
  /// the findings are found on another core.
  ///
  /// - Complexity: O(n) for n events.
  @_spi(Benchmarks) public mutating func makeKeyframes(progress: ((Double) -> Void)? = nil) {
    guard !keyframesMade else { return }
    let cursor = position
    // The keyframes come from the stepping code itself, so a seek restores exactly what steps
    // would have built.
    live = LiveState(schedulers: schedulers.count, threads: threads.count, tasks: tasks.count)
    position = 0
    var keyframes = [Keyframe(live, at: 0)]
    keyframes.reserveCapacity(events.count / keyframeInterval + 1)
    var lastKeyframe = 0
    while position < events.count {
      apply(position, forward: true)
      position += 1
      // A snapshot copies the live sets: with a million timers pending, one every 4096 events
      // held gigabytes. Spaced by the live count too, they hold about one entry per event.
      let liveCount = live.pending.count + live.running.count
      if position - lastKeyframe >= max(keyframeInterval, liveCount) {
        keyframes.append(Keyframe(live, at: position))
        lastKeyframe = position
      }
      if let progress, position & 0x3_FFFF == 0 {
        progress(Double(position) / Double(events.count))
      }
    }
    // And one at the end, where a seek often goes (`G`, following a trace): restoring it
    // replaces stepping through up to a keyframe interval of events.
    if lastKeyframe < events.count { keyframes.append(Keyframe(live, at: events.count)) }
    self.keyframes = keyframes
    keyframesMade = true
    live = LiveState(schedulers: schedulers.count, threads: threads.count, tasks: tasks.count)
    position = 0
    seek(to: cursor)
    progress?(1)
  }

  /// Takes the keyframes `copy` made (``makeKeyframes(progress:)``) when it is a copy of this
  /// replay — the same prepared tables — and this one has none yet; the cursor stays where it
  /// is. So the keyframes can be made on another thread, on a copy, while this replay is in
  /// use; a copy of another replay is ignored.
  package mutating func adoptKeyframes(from copy: ReplayEngine) {
    guard copy.prepared === prepared, copy.keyframesMade, !keyframesMade else { return }
    keyframes = copy.keyframes
    keyframesMade = true
  }

  // MARK: - Building

  /// The tasks named by `taskOfAction`, in order of id, and each action's task slot.
  fileprivate static func tasks(
    _ taskOfAction: [UInt32: UInt64], names: [UInt64: String], actions: [ActionRecord]
  ) -> ([TaskInfo], [UInt32]) {
    guard !taskOfAction.isEmpty else { return ([], []) }
    let ids = Set(taskOfAction.values).sorted()
    let slotOf = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, UInt32($0)) })
    var slots = [UInt32](repeating: none, count: actions.count)
    var counts = [Int](repeating: 0, count: ids.count)
    // (task slot, scheduler) pairs sorted, rather than a set per task: a server that starts a task
    // per request can leave a million tasks in a trace.
    var pairs: [(slot: UInt32, scheduler: UInt32)] = []
    pairs.reserveCapacity(taskOfAction.count)
    for (action, task) in taskOfAction {
      guard let slot = slotOf[task] else { continue }
      slots[Int(action)] = slot
      counts[Int(slot)] += 1
      pairs.append((slot, actions[Int(action)].scheduler.rawValue))
    }
    pairs.sort { ($0.slot, $0.scheduler) < ($1.slot, $1.scheduler) }
    var schedulers = [[SchedulerID]](repeating: [], count: ids.count)
    for pair in pairs where schedulers[Int(pair.slot)].last?.rawValue != pair.scheduler {
      schedulers[Int(pair.slot)].append(SchedulerID(rawValue: pair.scheduler))
    }
    let infos = ids.indices.map {
      TaskInfo(
        id: TaskID(rawValue: ids[$0]), name: names[ids[$0]], schedulers: schedulers[$0],
        actionCount: counts[$0])
    }
    return (infos, slots)
  }

  /// Hands `ordered`, in time order, to `builder`; with `handingBack`, the pages of `ordered`
  /// are handed back behind it (what is left of it afterwards must not be read: it reads as
  /// zeros).
  private static func feed(
    _ ordered: inout [TraceEvent], to builder: TablesBuilder, handingBack: Bool
  ) {
    func feed(_ events: UnsafeBufferPointer<TraceEvent>) {
      var release =
        handingBack
        ? PageRelease(UnsafeRawBufferPointer(events), from: 0, chunk: PageRelease.defaultChunk)
        : nil
      var start = 0
      while start < events.count {
        let end = min(start + 0x1_0000, events.count)
        let taken = builder.take(UnsafeBufferPointer(rebasing: events[start..<end]))
        assert(taken, "events in time order are never refused")
        release?.passed(end * MemoryLayout<TraceEvent>.stride)
        start = end
      }
    }
    if handingBack {
      // Mutable access: a buffer that another array shares is copied here, never dropped.
      ordered.withUnsafeMutableBufferPointer { feed(UnsafeBufferPointer($0)) }
    } else {
      ordered.withUnsafeBufferPointer(feed)
    }
  }

  fileprivate struct History {
    var onlyBegins: [UInt32]
    var repeatedBegins: [UInt32: [UInt32]] = [:]
    var firstRuns: [UInt32: UInt32] = [:]
    /// By thread slot.
    var served: [Set<SchedulerID>]
  }

  /// One pass over the events through the state machine: each event's prior state (written
  /// into the event), the begins of each action's runs, and which schedulers each thread ran work
  /// for.
  fileprivate static func history(
    events: inout [ReplayEvent], actions: [ActionRecord], threadSlots: SlotTable,
    progress: ((Double) -> Void)?
  ) -> History {
    events.withUnsafeMutableBufferPointer { events in
      history(events: events, actions: actions, threadSlots: threadSlots, progress: progress)
    }
  }

  private static func history(
    events: UnsafeMutableBufferPointer<ReplayEvent>, actions: [ActionRecord],
    threadSlots: SlotTable, progress: ((Double) -> Void)?
  ) -> History {
    var history = History(
      onlyBegins: [UInt32](repeating: none, count: actions.count),
      served: [Set<SchedulerID>](repeating: [], count: threadSlots.count))
    // The scheduler each thread last ran, so a run of work from one scheduler costs no hashing.
    var lastServed = [UInt32](repeating: none, count: threadSlots.count)
    var states = [ActionState](repeating: .unscheduled, count: actions.count)
    for offset in events.indices {
      if let progress, offset & 0xF_FFFF == 0 { progress(Double(offset) / Double(events.count)) }
      let event = events[offset]
      guard let action = event.action else { continue }
      let slot = action.int
      let prior = states[slot]
      events[offset].prior = prior
      let next = transition(event.kind, from: prior, repeating: actions[slot].isRepeating)
      states[slot] = next
      guard next != prior else { continue }
      switch event.kind {
      case .begin:
        let begin = UInt32(truncatingIfNeeded: offset)
        switch history.onlyBegins[slot] {
        case none:
          history.onlyBegins[slot] = begin
          if let run = event.run, run > 1 { history.firstRuns[UInt32(slot)] = run }
        case ranMoreThanOnce:
          history.repeatedBegins[UInt32(slot)]?.append(begin)
        case let first:
          history.repeatedBegins[UInt32(slot)] = [first, begin]
          history.onlyBegins[slot] = ranMoreThanOnce
        }
        if let thread = threadSlots[event.thread.rawValue],
          lastServed[thread] != actions[slot].schedulerSlot
        {
          lastServed[thread] = actions[slot].schedulerSlot
          history.served[thread].insert(actions[slot].scheduler)
        }
      case .end, .cancel, .schedule, .hop, .mark, .task, .work, .wait: break
      }
    }
    return history
  }

  /// `events` in time order, the file's among equal times.
  fileprivate static func timeOrdered(_ events: [TraceEvent]) -> [TraceEvent] {
    guard let order = timeOrder(of: events) else { return events }
    return order.map { events[$0] }
  }

  /// Puts `events` in time order, the file's among equal times, in place: a large trace out of
  /// order then holds its events once, not twice.
  fileprivate static func putInTimeOrder(_ events: inout [TraceEvent]) {
    guard var order = timeOrder(of: events) else { return }
    // Each cycle of the permutation moves its events along it, one saved aside.
    events.withUnsafeMutableBufferPointer { events in
      for start in events.indices where order[start] != start {
        let first = events[start]
        var hole = start
        while true {
          let next = order[hole]
          order[hole] = hole
          if next == start { break }
          events[hole] = events[next]
          hole = next
        }
        events[hole] = first
      }
    }
  }

  /// Where each event of the time order is in `events`, or nil when they are in order already.
  /// The places are sorted (8 bytes each), not the events paired with them (56): a large trace
  /// out of order held three copies of its events.
  private static func timeOrder(of events: [TraceEvent]) -> [Int]? {
    var sorted = true
    for index in events.indices.dropFirst() where events[index].time < events[index - 1].time {
      sorted = false
      break
    }
    if sorted { return nil }
    var order = Array(events.indices)
    events.withUnsafeBufferPointer { events in
      order.sort { (events[$0].time, $0) < (events[$1].time, $1) }
    }
    return order
  }

  // MARK: - State machine

  /// What `kind` does to an action in `state`: the one state machine every stage shares.
  package static func transition(
    _ kind: TraceEvent.Kind, from state: ActionState, repeating: Bool
  )
    -> ActionState
  {
    switch (kind, state) {
    case (.schedule, .unscheduled): .pending
    case (.begin, .pending): .running
    case (.end, .running): repeating ? .pending : .done
    case (.end, .runningCancelled): .done
    case (.cancel, .pending): .done
    case (.cancel, .running): .runningCancelled
    default: state
    }
  }

  // MARK: - Moving

  /// Applies the next event; returns false at the end.
  ///
  /// - Complexity: O(1), amortized; O(log r) for an action that ran r times.
  @discardableResult
  @_spi(Benchmarks) public mutating func stepForward() -> Bool {
    guard position < events.count else { return false }
    apply(position, forward: true)
    position += 1
    checkStepInvariants()
    return true
  }

  /// Undoes the current event; returns false at the start.
  ///
  /// - Complexity: O(1), amortized; O(log r) for an action that ran r times.
  @discardableResult
  @_spi(Benchmarks) public mutating func stepBackward() -> Bool {
    guard position > 0 else { return false }
    position -= 1
    apply(position, forward: false)
    checkStepInvariants()
    return true
  }

  /// Moves the cursor to `target` applied events (clamped to `0...eventCount`).
  ///
  /// - Complexity: O(`keyframeInterval` + live actions).
  @_spi(Benchmarks) public mutating func seek(to target: Int) {
    let target = min(max(target, 0), events.count)
    // The last keyframe at or before the target.
    var (low, high) = (0, keyframes.count)
    while high - low > 1 {
      let middle = (low + high) / 2
      if keyframes[middle].position <= target { low = middle } else { high = middle }
    }
    let keyframe = keyframes[low]
    if abs(target - position) > target - keyframe.position {
      restore(keyframe)
      position = keyframe.position
    }
    while position < target { stepForward() }
    while position > target { stepBackward() }
  }

  /// Moves the cursor to the last event at or before `time` (nanoseconds).
  @_spi(Benchmarks) public mutating func seek(toTime time: Int64) {
    seek(to: firstIndex(after: time).offset)
  }

  /// The first event later than `time`, or the end index when there is none.
  ///
  /// - Complexity: O(log n).
  package func firstIndex(after time: Int64) -> EventIndex {
    EventIndex((0..<events.count).partitioningIndex { events[$0].time > time })
  }
}
