import ChronoscopeCore

/// What is live at the replay's cursor: pending and running actions, and per-scheduler and per-thread
/// tallies kept up to date by every step, so views read them without scanning.
struct LiveState: Sendable, Equatable {
  /// A pending action: when it is next due and the begin of its last run (for drift).
  struct Pending: Sendable, Equatable {
    var due: Int64
    var lastBegin: UInt32
  }

  /// Pending actions by slot.
  var pending: [UInt32: Pending] = [:]
  /// Running actions by slot, with the event of the begin of the run under way.
  var running: [UInt32: UInt32] = [:]
  /// Running actions that were cancelled during this run.
  var cancelled = Set<UInt32>()
  /// Pending actions per scheduler slot.
  var pendingByScheduler: [Int32]
  /// Running actions per scheduler slot.
  var runningByScheduler: [Int32]
  /// Running actions per thread slot, in the order their runs began (outermost first).
  var runningByThread: [[UInt32]]
  /// Pending and running actions per task slot.
  var pendingByTask: [Int32]
  var runningByTask: [Int32]

  init(schedulers: Int, threads: Int, tasks: Int) {
    pendingByTask = [Int32](repeating: 0, count: tasks)
    runningByTask = [Int32](repeating: 0, count: tasks)
    // One more slot for actions on a scheduler the trace never defined.
    pendingByScheduler = [Int32](repeating: 0, count: schedulers + 1)
    runningByScheduler = [Int32](repeating: 0, count: schedulers + 1)
    runningByThread = [[UInt32]](repeating: [], count: threads)
  }
}

/// The part of the live state a keyframe keeps; the tallies are rebuilt from it.
struct Keyframe: Sendable {
  /// The cursor position it is the state at.
  var position: Int
  var pending: [UInt32: LiveState.Pending]
  var running: [UInt32: UInt32]
  var cancelled: Set<UInt32>

  init(_ live: LiveState, at position: Int) {
    self.position = position
    pending = live.pending
    running = live.running
    cancelled = live.cancelled
  }
}

extension ActionState {
  var isRunning: Bool { self == .running || self == .runningCancelled }
}

extension ReplayEngine {
  /// Redoes (`forward`) or undoes the event at `offset` on the live state.
  mutating func apply(_ offset: Int, forward: Bool) {
    let event = events[offset]
    guard let action = event.action else { return }
    let slot = action.rawValue
    let info = actions[action.int]
    let prior = events[offset].prior
    let next = Self.transition(event.kind, from: prior, repeating: info.isRepeating)
    guard prior != next else { return }
    let (from, to) = forward ? (prior, next) : (next, prior)
    if from.isRunning, to.isRunning {
      if to == .runningCancelled {
        live.cancelled.insert(slot)
      } else {
        live.cancelled.remove(slot)
      }
      return
    }
    leave(slot, from, schedulerSlot: Int(info.schedulerSlot))
    switch to {
    case .pending:
      let entry: LiveState.Pending
      switch (event.kind, forward) {
      case (.end, true), (.cancel, false):
        // The run before: found once, with its ordinal.
        let run = lastRun(of: action, before: offset)
        entry = .init(
          due: info.due(ofRun: runNumber(ordinal: run.ordinal, of: action) + 1),
          lastBegin: run.begin)
      case (.begin, false):
        // Undoing the first begin restores what the schedule set, whatever that run's number.
        let begin = UInt32(offset)
        let due = runOrdinal(begin) == 1 ? info.due : info.due(ofRun: runNumber(begin))
        entry = .init(due: due, lastBegin: previousBegin(offset))
      default:
        entry = .init(due: info.due, lastBegin: Self.none)
      }
      live.pending[slot] = entry
      live.pendingByScheduler[Int(info.schedulerSlot)] += 1
      tallyTask(of: slot, pending: 1)
    case .running, .runningCancelled:
      let begin =
        forward ? UInt32(truncatingIfNeeded: offset) : lastBegin(of: action, before: offset)
      live.running[slot] = begin
      if to == .runningCancelled { live.cancelled.insert(slot) }
      live.runningByScheduler[Int(info.schedulerSlot)] += 1
      tallyTask(of: slot, running: 1)
      insertRunning(slot, begin: begin)
    case .unscheduled, .done: break
    }
  }

  /// Counts a change in the pending or running work of the task action `slot` is work of, if any.
  @inline(__always)
  private mutating func tallyTask(of slot: UInt32, pending: Int32 = 0, running: Int32 = 0) {
    guard !taskSlots.isEmpty else { return }
    let task = taskSlots[Int(slot)]
    guard task != Self.none else { return }
    live.pendingByTask[Int(task)] += pending
    live.runningByTask[Int(task)] += running
  }

  /// Adds a running action to its thread's list, which stays in the order runs began.
  private mutating func insertRunning(_ slot: UInt32, begin: UInt32) {
    let thread = threadSlot(events[Int(begin)].thread)
    let at =
      live.runningByThread[thread].lastIndex { (live.running[$0] ?? 0) < begin }.map { $0 + 1 } ?? 0
    live.runningByThread[thread].insert(slot, at: at)
  }

  private mutating func leave(_ slot: UInt32, _ state: ActionState, schedulerSlot: Int) {
    switch state {
    case .pending:
      live.pending[slot] = nil
      live.pendingByScheduler[schedulerSlot] -= 1
      tallyTask(of: slot, pending: -1)
    case .running, .runningCancelled:
      if let begin = live.running.removeValue(forKey: slot) {
        let thread = threadSlot(events[Int(begin)].thread)
        if let at = live.runningByThread[thread].lastIndex(of: slot) {
          live.runningByThread[thread].remove(at: at)
        }
      }
      live.cancelled.remove(slot)
      live.runningByScheduler[schedulerSlot] -= 1
      tallyTask(of: slot, running: -1)
    case .unscheduled, .done: break
    }
  }

  /// Restores a keyframe and rebuilds the tallies from it.
  mutating func restore(_ keyframe: Keyframe) {
    live = LiveState(schedulers: schedulers.count, threads: threads.count, tasks: tasks.count)
    live.pending = keyframe.pending
    live.running = keyframe.running
    live.cancelled = keyframe.cancelled
    for slot in keyframe.pending.keys {
      live.pendingByScheduler[Int(actions[Int(slot)].schedulerSlot)] += 1
      tallyTask(of: slot, pending: 1)
    }
    for (slot, begin) in keyframe.running {
      live.runningByScheduler[Int(actions[Int(slot)].schedulerSlot)] += 1
      tallyTask(of: slot, running: 1)
      insertRunning(slot, begin: begin)
    }
  }

  /// The begin of the run before the one begun at `offset`, or `none` for a first run.
  func previousBegin(_ offset: Int) -> UInt32 {
    let run = runOrdinal(UInt32(truncatingIfNeeded: offset))
    guard run > 1, let action = events[offset].action,
      let begins = repeatedBegins[action.rawValue], begins.indices.contains(run - 2)
    else { return Self.none }
    return begins[run - 2]
  }

  /// The run ordinal of the begin event at `offset` — 1 for the action's first begin in the
  /// trace, 2 for its second… — for finding earlier begins; 0 for none, or for a begin the
  /// replay ignores (its action was not pending).
  func runOrdinal(_ begin: UInt32) -> Int {
    guard events.indices.contains(Int(begin)), events[Int(begin)].kind == .begin,
      events[Int(begin)].prior == .pending, let action = events[Int(begin)].action
    else { return 0 }
    guard onlyBegins[action.int] == Self.ranMoreThanOnce else { return 1 }
    let begins = repeatedBegins[action.rawValue] ?? []
    return Self.countBelow(Int(begin), in: begins) + 1
  }

  /// The begin of `action`'s last run begun before the event at `offset`, or `none`.
  ///
  /// - Complexity: O(1) for an action that ran once, O(log runs) otherwise.
  func lastBegin(of action: ActionIndex, before offset: Int) -> UInt32 {
    lastRun(of: action, before: offset).begin
  }

  /// The begin and the ordinal (see ``runOrdinal(_:)``) of `action`'s last run begun before the
  /// event at `offset`; `none` and 0 when there is none.
  func lastRun(of action: ActionIndex, before offset: Int) -> (begin: UInt32, ordinal: Int) {
    let only = onlyBegins[action.int]
    switch only {
    case Self.none: return (Self.none, 0)
    case Self.ranMoreThanOnce:
      let begins = repeatedBegins[action.rawValue] ?? []
      let earlier = Self.countBelow(offset, in: begins)
      return earlier == 0 ? (Self.none, 0) : (begins[earlier - 1], earlier)
    default: return Int(only) < offset ? (only, 1) : (Self.none, 0)
    }
  }

  /// How many of `begins` (ascending) are below `offset`.
  private static func countBelow(_ offset: Int, in begins: [UInt32]) -> Int {
    begins.partitioningIndex { Int($0) >= offset }
  }

  /// The number of the run begun at `offset`, as the trace numbers it; 0 for none. Runs are
  /// numbered on from the action's first begin in the trace: in a window (a slice, a flight
  /// recorder's dump) that starts after runs it no longer holds, that is the trace's number for
  /// it, not 1. A run's due time follows this number.
  func runNumber(_ begin: UInt32) -> Int {
    guard let action = events.indices.contains(Int(begin)) ? events[Int(begin)].action : nil
    else { return 0 }
    return runNumber(ordinal: runOrdinal(begin), of: action)
  }

  /// The number of the run begun at `begin` (see ``runNumber(_:)``); 0 for an event that began
  /// no run.
  package func runNumber(begunAt begin: EventIndex) -> Int {
    guard events.indices.contains(begin.offset) else { return 0 }
    return runNumber(UInt32(truncatingIfNeeded: begin.offset))
  }

  /// The number of `action`'s `ordinal`th run in the trace (see ``runNumber(_:)``), 0 for the
  /// 0th (no run): the one rule for numbering runs, which the findings pass follows too.
  package func runNumber(ordinal: Int, of action: ActionIndex) -> Int {
    // Most traces are not windows: no hashing per begin on the findings pass's hot loop.
    guard ordinal > 0, !firstRuns.isEmpty, let first = firstRuns[action.rawValue] else {
      return max(ordinal, 0)
    }
    return ordinal + Int(first) - 1
  }

  func threadSlot(_ thread: ThreadID) -> Int { threadSlots[thread.rawValue] ?? 0 }
}
