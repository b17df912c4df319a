import ChronoscopeTraceFormat

/// Makes the replay's events and actions from trace events in time order, batch by batch: from
/// a trace in memory (``ReplayEngine/init(consuming:keyframeInterval:makingKeyframes:progress:)``),
/// or from the reader as it reads, so that the trace's events never exist whole
/// (``ReplayEngine/read(path:keyframeInterval:makingKeyframes:reading:preparing:)``).
///
/// Every action reference becomes a dense index. Events of actions never scheduled are left
/// out, and `task` events only say whose work an action is. Scheduler slots are not known until
/// every scheduler is (a file may define one after its first use), so ``finish(schedulerSlots:)``
/// sets them.
final class TablesBuilder: TraceEventStream {
  struct Tables {
    var events: [ReplayEvent] = []
    var actions: [ActionRecord] = []
    var actionIndices = SlotTable()
    var threads = Set<UInt32>()
    /// Action slot → the runtime id of the task it is work of (its `task` line).
    var taskOfAction: [UInt32: UInt64] = [:]
    /// Action slot → the index in ``Trace/works`` of what the app named it (its `work` line).
    var workOfAction: [UInt32: UInt32] = [:]
    /// The `wait` events, each a ``ReplayEvent`` of its own holding its index here.
    var waits: [TraceEvent] = []
    /// How many `begin`s were left out as work never scheduled: runs whose schedule the
    /// recorder dropped, or that a slice or flight recorder's window cut off.
    var unscheduledBegins = 0
  }

  /// What the pass keeps from one event to the next. A struct the pass works on as a local:
  /// on the class's own stored properties, every access paid a dynamic exclusivity check, a
  /// fifth of the pass's time.
  private struct Pass {
    var tables = Tables()
    var received = 0
    var refused = false
    var latestTime = Int64.min
    var lastThread: UInt32?
  }

  private var pass = Pass()
  /// How many events were taken.
  var received: Int { pass.received }
  /// Whether an event came earlier than the one before it, and was refused: what was made is
  /// then of no use.
  var refused: Bool { pass.refused }
  /// Faults the tables' pages in a little ahead of the pass (see ``PagePopulator``).
  private var populator: PagePopulator?
  private let progress: ((Double) -> Void)?
  private var expected = 0

  /// - Parameter progress: Called now and then with the fraction of the expected events taken.
  init(progress: ((Double) -> Void)? = nil) {
    self.progress = progress
  }

  deinit { populator?.stop() }

  func reserve(events: Int) {
    reserve(events: events, actions: events, populating: false)
  }

  /// Sizes the tables for `events` events and `actions` actions at most, once: growing by
  /// doubling copied the actions (40 bytes each) about twice over. Room never written costs
  /// address space, not memory.
  func reserve(events: Int, actions: Int, populating: Bool = true) {
    guard pass.tables.events.capacity == 0 else { return }
    expected = events
    pass.tables.events.reserveCapacity(events)
    pass.tables.actions.reserveCapacity(actions)
    guard populating else { return }
    populator = PagePopulator([
      Self.reserved(&pass.tables.actions), Self.reserved(&pass.tables.events),
    ])
  }

  func take(_ events: UnsafeBufferPointer<TraceEvent>) -> Bool {
    // Moved out and back, so the arrays stay uniquely referenced and the loop below works on
    // a local.
    var pass = self.pass
    self.pass = Pass()
    defer { self.pass = pass }
    guard !pass.refused else { return false }
    // The populator knows the arrays' addresses: they must not grow while it runs.
    if pass.tables.events.count + events.count > pass.tables.events.capacity
      || pass.tables.actions.count + events.count > pass.tables.actions.capacity
    {
      populator?.stop()
      populator = nil
    }
    for event in events {
      guard event.time >= pass.latestTime else {
        pass.refused = true
        return false
      }
      pass.latestTime = event.time
      Self.add(event, to: &pass)
      pass.received += 1
      if pass.received & 0xFFFF == 0 { passed(pass) }
    }
    return true
  }

  private func passed(_ pass: Pass) {
    if let progress, pass.received & 0xF_FFFF == 0, expected > 0 {
      progress(min(Double(pass.received) / Double(expected), 1))
    }
    populator?.passed([
      pass.tables.actions.count * MemoryLayout<ActionRecord>.stride,
      pass.tables.events.count * MemoryLayout<ReplayEvent>.stride,
    ])
  }

  private static func add(_ event: TraceEvent, to pass: inout Pass) {
    let id = ActionID(rawValue: event.action)
    let index: ActionIndex?
    switch event.kind {
    case .schedule:
      if let existing = pass.tables.actionIndices[id.rawValue] {
        index = ActionIndex(existing)  // a duplicate id: the reader warned; the first counts
      } else {
        let new = ActionIndex(pass.tables.actions.count)
        pass.tables.actionIndices.insert(id.rawValue, slot: new.rawValue)
        index = new
        pass.tables.actions.append(
          ActionRecord(
            id: id, scheduler: SchedulerID(rawValue: event.scheduler), mode: event.mode,
            due: event.due, delay: event.delay,
            parent: event.parent.flatMap { pass.tables.actionIndices[$0].map(ActionIndex.init) },
            scheduleEvent: EventIndex(pass.tables.events.count), ranInline: event.ranInline))
      }
    case .mark: index = nil
    case .wait:
      if event.thread != pass.lastThread {
        pass.tables.threads.insert(event.thread)
        pass.lastThread = event.thread
      }
      pass.tables.events.append(
        ReplayEvent(event, action: nil, cancelledBy: nil, wait: pass.tables.waits.count))
      pass.tables.waits.append(event)
      return
    case .task:
      // Not a step of the action's life: it says whose work the action is.
      if let known = pass.tables.actionIndices[id.rawValue], let task = event.task {
        pass.tables.taskOfAction[UInt32(known)] = task
      }
      return
    case .work:
      // Not a step either: it names the work. The first line for an action counts.
      if let known = pass.tables.actionIndices[id.rawValue], let work = event.workIndex,
        pass.tables.workOfAction[UInt32(known)] == nil
      {
        pass.tables.workOfAction[UInt32(known)] = UInt32(truncatingIfNeeded: work)
      }
      return
    case .begin, .end, .hop, .cancel:
      guard let known = pass.tables.actionIndices[id.rawValue] else {  // never scheduled
        if event.kind == .begin { pass.tables.unscheduledBegins += 1 }
        return
      }
      index = ActionIndex(known)
    }
    if event.thread != pass.lastThread {
      pass.tables.threads.insert(event.thread)
      pass.lastThread = event.thread
    }
    if event.kind == .hop { pass.tables.threads.insert(event.fromThread) }
    let canceller =
      event.kind == .cancel
      ? event.parent.flatMap { pass.tables.actionIndices[$0].map(ActionIndex.init) } : nil
    pass.tables.events.append(ReplayEvent(event, action: index, cancelledBy: canceller))
  }

  /// The tables, each action given the slot of its scheduler in `schedulerSlots` (the shared last slot
  /// for a scheduler the trace never defined).
  func finish(schedulerSlots: SlotTable) -> Tables {
    populator?.stop()
    populator = nil
    var tables = pass.tables
    pass.tables = Tables()
    // Room reserved for events the file did not hold (lines that were not events, events of
    // actions never scheduled, a reserve that counted every line an action), some of it
    // faulted in by the populator: handed back.
    Self.handBackUnused(&tables.events)
    Self.handBackUnused(&tables.actions)
    tables.actions.withUnsafeMutableBufferPointer { actions in
      for slot in actions.indices {
        actions[slot].schedulerSlot = UInt32(
          truncatingIfNeeded: schedulerSlots[actions[slot].scheduler.rawValue]
            ?? schedulerSlots.count)
      }
    }
    return tables
  }

  /// Hands back the whole pages of `array`'s capacity past its count.
  private static func handBackUnused<Element>(_ array: inout [Element]) {
    let offset = array.count * MemoryLayout<Element>.stride
    var release = PageRelease(UnsafeRawBufferPointer(reserved(&array)), from: offset, chunk: 1)
    release.passed(array.capacity * MemoryLayout<Element>.stride, final: true)
  }

  /// The memory `array` reserved, which nothing may read before it is written. Only its
  /// address goes out (to ``PagePopulator``): the array must not grow past its capacity while
  /// that is in use.
  private static func reserved<Element>(_ array: inout [Element]) -> UnsafeMutableRawBufferPointer {
    let bytes = array.capacity * MemoryLayout<Element>.stride
    return array.withUnsafeMutableBufferPointer { buffer in
      UnsafeMutableRawBufferPointer(start: buffer.baseAddress, count: bytes)
    }
  }
}
