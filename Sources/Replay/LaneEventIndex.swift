import TraceFormat

/// Each lane's events of each kind, in time order, as offsets into the replay's event list:
/// what lets a view find the events of one lane in a stretch of time with a search instead of a
/// scan, however dense the stretch. 4 bytes an event.
package struct LaneEventIndex: Sendable {
  /// How lanes are keyed.
  package enum Grouping: Sendable, Hashable {
    /// By the queue of the event's action (queue slots); marks are on no queue.
    case queue
    /// By the thread the event happened on (thread slots).
    case thread
    /// By the Swift task the event's action is work of (task slots).
    case task
  }

  package static let kinds = TraceEvent.Kind.allCases.count
  /// Where each (lane slot, kind) run starts in `offsets`; one more entry closes the last.
  private let starts: [UInt32]
  private let offsets: [UInt32]

  package init() {
    starts = [0]
    offsets = []
  }

  fileprivate init(starts: [UInt32], offsets: [UInt32]) {
    self.starts = starts
    self.offsets = offsets
  }

  /// The event offsets of lane `slot`'s events of `kind`, in time order.
  package func events(lane slot: Int, kind: TraceEvent.Kind) -> ArraySlice<UInt32> {
    let run = slot * Self.kinds + Int(kind.rawValue)
    guard run >= 0, run + 1 < starts.count else { return [] }
    return offsets[Int(starts[run])..<Int(starts[run + 1])]
  }
}

extension ReplayEngine {
  /// Indexes the events by lane under `grouping`.
  ///
  /// - Complexity: O(n) for n events: two passes, no hashing for queues and tasks, and one
  ///   lookup per change of thread for threads.
  package func laneEventIndex(by grouping: LaneEventIndex.Grouping) -> LaneEventIndex {
    let kinds = LaneEventIndex.kinds
    let slots =
      switch grouping {
      case .queue: queueSlotCount
      case .thread: threadSlotCount
      case .task: tasks.count
      }
    // The last thread looked up: nil before the first, as any id (UInt32.max too) may occur.
    var lastThread: UInt32?
    var lastThreadSlot = -1
    func run(_ event: ReplayEvent) -> Int {
      let slot: Int
      switch grouping {
      case .queue:
        guard let action = event.action else { return -1 }
        slot = Int(actions[action.int].queueSlot)
      case .thread:
        let thread = event.thread.rawValue
        if thread != lastThread {
          lastThread = thread
          lastThreadSlot = threadSlots[thread] ?? -1
        }
        slot = lastThreadSlot
      case .task:
        guard let action = event.action, !taskSlots.isEmpty else { return -1 }
        let task = taskSlots[action.int]
        slot = task == Self.none ? -1 : Int(task)
      }
      return slot < 0 ? -1 : slot * kinds + Int(event.kind.rawValue)
    }
    var starts = [UInt32](repeating: 0, count: slots * kinds + 1)
    for event in events {
      let run = run(event)
      if run >= 0 { starts[run + 1] &+= 1 }
    }
    for run in 0..<(starts.count - 1) { starts[run + 1] &+= starts[run] }
    var next = starts
    lastThread = nil  // The second pass must give every event the run the first gave it.
    var offsets = [UInt32](repeating: 0, count: Int(starts[starts.count - 1]))
    for offset in events.indices {
      let run = run(events[offset])
      guard run >= 0 else { continue }
      offsets[Int(next[run])] = UInt32(truncatingIfNeeded: offset)
      next[run] &+= 1
    }
    return LaneEventIndex(starts: starts, offsets: offsets)
  }
}
