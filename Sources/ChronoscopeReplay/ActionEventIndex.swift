/// Each action's related events, as offsets into the replay's event list, grouped by action and
/// in time order within a group: its own events after its schedule (hops, begins, ends,
/// cancels), the schedules of the actions it scheduled, and the cancels it made. What
/// ``ReplayEngine/life(of:)`` reads instead of every event after the action's schedule.
///
/// Both tables are packed as the lanes' index is (``PackedOffsets``): the groups follow the
/// actions in the order they were scheduled, so 64 neighbouring offsets mostly lie close, and
/// where each group starts ascends. About 2 bytes a related event (every event of an action but
/// the schedules of actions without a parent, plus one more for each cancel another action
/// made) and 2 an action.
struct ActionEventIndex: Sendable {
  /// By action slot, where its group starts in `offsets`; one more entry closes the last.
  private let starts: PackedOffsets
  private let offsets: PackedOffsets
  private let actionCount: Int

  /// Indexes `events`, whose actions are `actions`.
  ///
  /// - Complexity: O(n + a) for n events and a actions: three passes over the events.
  init(events: UnsafeBufferPointer<ReplayEvent>, actions: [ActionRecord]) {
    actionCount = actions.count
    // Counted into the slot after each group's, then summed into where each group starts.
    var starts = [UInt32](repeating: 0, count: actions.count + 1)
    starts.withUnsafeMutableBufferPointer { starts in
      Self.forEachLink(in: events, actions: actions) { owner, _ in starts[owner + 1] &+= 1 }
      for slot in 0..<actions.count { starts[slot + 1] &+= starts[slot] }
    }
    // Each related event to its group's next place, twice (see `PackedOffsets`).
    offsets = PackedOffsets(count: Int(starts[actions.count])) { put in
      var next = starts
      next.withUnsafeMutableBufferPointer { next in
        Self.forEachLink(in: events, actions: actions) { owner, offset in
          put(Int(next[owner]), UInt32(truncatingIfNeeded: offset))
          next[owner] &+= 1
        }
      }
    }
    self.starts = PackedOffsets(count: starts.count) { put in
      for slot in starts.indices { put(slot, starts[slot]) }
    }
  }

  /// Calls `link` with (action slot, event offset) for every event in every group it belongs
  /// to, in time order.
  private static func forEachLink(
    in events: UnsafeBufferPointer<ReplayEvent>, actions: [ActionRecord],
    _ link: (Int, Int) -> Void
  ) {
    actions.withUnsafeBufferPointer { actions in
      for offset in events.indices {
        guard let subject = events[offset].action else { continue }
        switch events[offset].kind {
        case .schedule:
          // Only the schedule that made the action (a repeated id's later ones change nothing),
          // and only in its parent's group: its own is in its record.
          let record = actions[subject.int]
          if record.scheduleEvent.offset == offset, let parent = record.parent, parent != subject {
            link(parent.int, offset)
          }
        case .cancel:
          link(subject.int, offset)
          if let canceller = events[offset].cancelledBy, canceller != subject {
            link(canceller.int, offset)
          }
        case .begin, .end, .hop, .mark, .task, .work, .wait:
          link(subject.int, offset)
        }
      }
    }
  }

  /// The offsets of `action`'s related events, ascending.
  ///
  /// - Complexity: O(1); reading them, O(1) each.
  func events(of action: ActionIndex) -> some Sequence<Int> {
    let group =
      action.int >= 0 && action.int < actionCount
      ? Int(starts[action.int])..<Int(starts[action.int + 1]) : 0..<0
    return group.lazy.map { [offsets] in Int(offsets[$0]) }
  }

  /// How many related events `action` has.
  func count(of action: ActionIndex) -> Int {
    guard action.int >= 0, action.int < actionCount else { return 0 }
    return Int(starts[action.int + 1]) - Int(starts[action.int])
  }

  /// The bytes the index takes.
  var storedBytes: Int { starts.storedBytes + offsets.storedBytes }
}
