import HeapModule
import TraceFormat

/// Replays a trace on a virtual clock: for any cursor position it answers which actions are
/// pending, which are running, and how each queue stands, and it steps forward and back exactly.
///
/// ```swift
/// var replay = ReplayEngine(trace: trace)
/// replay.seek(toTime: 1_250_000_000)      // 1.25 s
/// replay.pending                          // action indices waiting to run, soonest due first
/// replay.stepBackward()
/// ```
///
/// The cursor is a count of applied events: at position 0 nothing has happened; at position `i`
/// the events `0..<i` have, and `events[i - 1]` is the current one. Events are replayed in time
/// order (the file's order among equal times).
///
/// - Complexity: a step is O(1); a seek is O(`keyframeInterval`) whatever the distance, because
///   the live sets (pending, running) are snapshotted every `keyframeInterval` events and a seek
///   starts from the nearest snapshot or from the cursor, whichever is closer. Memory is about
///   25 bytes per event plus about 48 per action, plus the snapshots of live sets.
public struct ReplayEngine: Sendable {
  /// The trace's header and tables (schedulers, call sites, thread names, marks).
  public let header: TraceHeader
  /// The schedulers, by id.
  public let schedulers: [UInt32: SchedulerRecord]
  /// The call sites, by id.
  public let callSites: [UInt32: CallSiteRecord]
  /// Thread names, by id.
  public let threadNames: [UInt32: String]
  /// The marks.
  public let marks: [MarkRecord]
  /// Events in replay order.
  public let events: [ReplayEvent]
  /// Actions, indexed by ``ReplayEvent/action``.
  public let actions: [ReplayAction]

  /// For each event, the state its action was in before it.
  private let priorStates: [ActionState]
  private let keyframeInterval: Int
  private var keyframes: [Keyframe]

  /// The number of events applied.
  public private(set) var position = 0
  private var pendingSet = Set<UInt32>()
  private var runningSet = Set<UInt32>()
  private var cancelledWhileRunning = Set<UInt32>()

  private struct Keyframe: Sendable {
    var pending: Set<UInt32>
    var running: Set<UInt32>
    var cancelledWhileRunning: Set<UInt32>
  }

  /// Prepares a replay of `trace` with the cursor at the start.
  ///
  /// - Parameters:
  ///   - keyframeInterval: Events between snapshots of the live sets.
  ///   - progress: Called now and then with the fraction prepared.
  public init(trace: Trace, keyframeInterval: Int = 4096, progress: ((Double) -> Void)? = nil) {
    header = trace.header
    schedulers = trace.schedulers
    callSites = trace.callSites
    threadNames = trace.threadNames
    marks = trace.marks
    self.keyframeInterval = max(keyframeInterval, 1)

    let ordered = Self.timeOrdered(trace.events)
    var actionIndex: [UInt32: UInt32] = [:]
    var actions: [ReplayAction] = []
    var events: [ReplayEvent] = []
    events.reserveCapacity(ordered.count)
    for (offset, event) in ordered.enumerated() {
      var index = ReplayEvent.noAction
      if event.kind == .schedule {
        if let existing = actionIndex[event.action] {
          index = existing  // a duplicate id: the reader warned; keep the first schedule
        } else {
          index = UInt32(actions.count)
          actionIndex[event.action] = index
          actions.append(
            ReplayAction(
              id: event.action, scheduler: event.scheduler, mode: event.mode,
              scheduledAt: event.time,
              due: event.due, delay: event.delay, thread: event.thread,
              parent: event.parent.flatMap { actionIndex[$0] }, site: event.site,
              scheduleEvent: offset))
        }
      } else if event.kind != .mark {
        guard let known = actionIndex[event.action] else { continue }  // never scheduled: skipped
        index = known
      }
      let detail: UInt32 =
        switch event.kind {
        case .begin, .end: event.run
        case .hop: event.fromThread
        case .mark: UInt32(event.markIndex ?? 0)
        case .cancel: event.parent.flatMap { actionIndex[$0] }.map { $0 + 1 } ?? 0
        case .schedule: 0
        }
      events.append(
        ReplayEvent(
          time: event.time, action: index, thread: event.thread, detail: detail, kind: event.kind,
          started: event.started))
    }
    self.events = events
    self.actions = actions

    // One forward pass records each event's prior state (so stepping back is exact) and the
    // keyframes.
    var states = [ActionState](repeating: .unscheduled, count: actions.count)
    var priors = [ActionState](repeating: .unscheduled, count: events.count)
    var pending = Set<UInt32>()
    var running = Set<UInt32>()
    var cancelled = Set<UInt32>()
    var keyframes: [Keyframe] = [Keyframe(pending: [], running: [], cancelledWhileRunning: [])]
    for (offset, event) in events.enumerated() {
      if event.action != ReplayEvent.noAction {
        let action = Int(event.action)
        let prior = states[action]
        priors[offset] = prior
        let next = Self.transition(event.kind, from: prior, repeating: actions[action].isRepeating)
        states[action] = next
        Self.move(event.action, from: prior, to: next, &pending, &running, &cancelled)
      }
      if (offset + 1) % self.keyframeInterval == 0 {
        keyframes.append(
          Keyframe(pending: pending, running: running, cancelledWhileRunning: cancelled))
        if let progress, keyframes.count % 64 == 0 {
          progress(Double(offset) / Double(events.count))
        }
      }
    }
    priorStates = priors
    self.keyframes = keyframes
    progress?(1)
  }

  // MARK: - Where we are

  /// The number of events.
  public var eventCount: Int { events.count }

  /// The current event (the last one applied), if any.
  public var currentEvent: ReplayEvent? { position > 0 ? events[position - 1] : nil }

  /// Virtual time at the cursor: the current event's time, or 0 at the start.
  public var now: Int64 { currentEvent?.time ?? 0 }

  /// The time of the last event.
  public var span: Int64 { events.last?.time ?? 0 }

  /// Actions waiting to run, soonest due first (then by when they were scheduled).
  ///
  /// - Complexity: O(p log p) for p pending actions; use ``pending(first:)`` to show a few.
  public var pending: [Int] { pending(first: pendingSet.count) }

  /// The `count` soonest-due pending actions, in order.
  ///
  /// - Complexity: O(p + count log p): a view of the next few stays fast whatever the size of
  ///   the pending set.
  public func pending(first count: Int) -> [Int] {
    let keys = pendingSet.map {
      PendingKey(
        due: nextDue(of: Int($0)), scheduledAt: actions[Int($0)].scheduledAt, action: Int($0))
    }
    guard count < keys.count / 4 else { return keys.sorted().prefix(count).map(\.action) }
    var heap = Heap(keys)
    var first: [Int] = []
    first.reserveCapacity(count)
    while first.count < count, let next = heap.popMin() { first.append(next.action) }
    return first
  }

  /// How many actions are pending.
  public var pendingCount: Int { pendingSet.count }

  /// Calls `body` with every pending action, in no particular order.
  public func forEachPending(_ body: (Int) -> Void) {
    for action in pendingSet { body(Int(action)) }
  }

  private struct PendingKey: Comparable {
    var due: Int64
    var scheduledAt: Int64
    var action: Int

    static func < (lhs: PendingKey, rhs: PendingKey) -> Bool {
      (lhs.due, lhs.scheduledAt, lhs.action) < (rhs.due, rhs.scheduledAt, rhs.action)
    }
  }

  /// Actions running now, in the order they were scheduled.
  public var running: [Int] { runningSet.map(Int.init).sorted() }

  /// The state of an action at the cursor.
  public func state(of action: Int) -> ActionState {
    let id = UInt32(action)
    if runningSet.contains(id) {
      return cancelledWhileRunning.contains(id) ? .runningCancelled : .running
    }
    if pendingSet.contains(id) { return .pending }
    return actions[action].scheduleEvent < position ? .done : .unscheduled
  }

  /// When a pending action is next due: its first due time, or for a repeating action that has
  /// run, one interval after its last run began.
  public func nextDue(of action: Int) -> Int64 {
    let info = actions[action]
    guard info.isRepeating, let lastBegin = lastEvent(of: action, kind: .begin, before: position)
    else {
      return info.due
    }
    return events[lastBegin].time &+ info.delay
  }

  // MARK: - Moving

  /// Applies the next event; returns false at the end.
  @discardableResult
  public mutating func stepForward() -> Bool {
    guard position < events.count else { return false }
    if let (action, prior, next) = change(at: position) {
      Self.move(action, from: prior, to: next, &pendingSet, &runningSet, &cancelledWhileRunning)
    }
    position += 1
    return true
  }

  /// Undoes the current event; returns false at the start.
  @discardableResult
  public mutating func stepBackward() -> Bool {
    guard position > 0 else { return false }
    position -= 1
    if let (action, prior, next) = change(at: position) {
      Self.move(action, from: next, to: prior, &pendingSet, &runningSet, &cancelledWhileRunning)
    }
    return true
  }

  /// What event `index` does to its action: the state before and after.
  @inline(__always)
  private func change(at index: Int) -> (UInt32, ActionState, ActionState)? {
    let event = events[index]
    guard event.action != ReplayEvent.noAction else { return nil }
    let prior = priorStates[index]
    let repeating = actions[Int(event.action)].isRepeating
    return (event.action, prior, Self.transition(event.kind, from: prior, repeating: repeating))
  }

  /// Moves the cursor to `target` (clamped to `0...eventCount`).
  public mutating func seek(to target: Int) {
    let target = min(max(target, 0), events.count)
    let keyframe = target / keyframeInterval
    let fromKeyframe = target - keyframe * keyframeInterval
    if abs(target - position) > fromKeyframe {
      let snapshot = keyframes[keyframe]
      pendingSet = snapshot.pending
      runningSet = snapshot.running
      cancelledWhileRunning = snapshot.cancelledWhileRunning
      position = keyframe * keyframeInterval
    }
    while position < target { stepForward() }
    while position > target { stepBackward() }
  }

  /// Moves the cursor to the last event at or before `time` (nanoseconds).
  public mutating func seek(toTime time: Int64) {
    seek(to: firstIndex(after: time))
  }

  /// The index of the first event later than `time`.
  public func firstIndex(after time: Int64) -> Int {
    var low = 0
    var high = events.count
    while low < high {
      let middle = (low + high) / 2
      if events[middle].time <= time { low = middle + 1 } else { high = middle }
    }
    return low
  }

  // MARK: - Questions about the whole trace

  /// The index of the last event of `kind` for `action` before `limit`, if any.
  public func lastEvent(of action: Int, kind: TraceEvent.Kind, before limit: Int) -> Int? {
    var index = min(limit, events.count) - 1
    let start = actions[action].scheduleEvent
    while index > start {
      if events[index].action == UInt32(action), events[index].kind == kind { return index }
      index -= 1
    }
    return nil
  }

  /// Everything that happened to `action`, from its schedule to the end of the trace.
  ///
  /// - Complexity: O(events after it was scheduled).
  public func life(of action: Int) -> ActionLife {
    var life = ActionLife(
      action: action, runs: [], cancelledAt: nil, cancelledBy: nil, cancelledAfterStart: false,
      children: [])
    let id = UInt32(action)
    var pendingHop: UInt32?
    for index in actions[action].scheduleEvent..<events.count {
      let event = events[index]
      if event.kind == .schedule, index != actions[action].scheduleEvent,
        actions[Int(event.action)].parent == id
      {
        life.children.append(Int(event.action))
      }
      guard event.action == id else { continue }
      switch event.kind {
      case .hop: pendingHop = event.detail
      case .begin:
        life.runs.append(
          ActionLife.Run(
            number: event.detail, began: event.time, ended: nil, thread: event.thread,
            hoppedFrom: pendingHop))
        pendingHop = nil
      case .end:
        if let last = life.runs.indices.last { life.runs[last].ended = event.time }
      case .cancel:
        if life.cancelledAt == nil {
          life.cancelledAt = event.time
          life.cancelledBy = event.detail > 0 ? Int(event.detail - 1) : nil
          life.cancelledAfterStart = event.started
        }
      case .schedule, .mark: break
      }
    }
    return life
  }

  // MARK: - State machine

  static func transition(_ kind: TraceEvent.Kind, from state: ActionState, repeating: Bool)
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

  private static func move(
    _ action: UInt32, from old: ActionState, to new: ActionState, _ pending: inout Set<UInt32>,
    _ running: inout Set<UInt32>, _ cancelled: inout Set<UInt32>
  ) {
    guard old != new else { return }
    switch old {
    case .pending: pending.remove(action)
    case .running: running.remove(action)
    case .runningCancelled:
      running.remove(action)
      cancelled.remove(action)
    case .unscheduled, .done: break
    }
    switch new {
    case .pending: pending.insert(action)
    case .running: running.insert(action)
    case .runningCancelled:
      running.insert(action)
      cancelled.insert(action)
    case .unscheduled, .done: break
    }
  }

  private static func timeOrdered(_ events: [TraceEvent]) -> [TraceEvent] {
    var sorted = true
    for index in events.indices.dropFirst() where events[index].time < events[index - 1].time {
      sorted = false
      break
    }
    if sorted { return events }
    return events.enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }.map(\.element)
  }
}
