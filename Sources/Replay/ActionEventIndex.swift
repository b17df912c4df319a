/// Each action's related events, as offsets into the replay's event list, grouped by action and
/// in time order within a group: its own events after its schedule (hops, begins, ends,
/// cancels), the schedules of the actions it scheduled, and the cancels it made. What
/// ``ReplayEngine/life(of:)`` reads instead of every event after the action's schedule.
///
/// Two flat arrays, as the other tables: 4 bytes an action for where its group starts, and 4
/// bytes a related event (every event of an action but the schedules of actions without a
/// parent, plus one more for each cancel another action made).
struct ActionEventIndex: Sendable {
  /// By action slot, where its group starts in `offsets`; one more entry closes the last.
  private let starts: [UInt32]
  private let offsets: [UInt32]

  /// Indexes `events`, whose actions are `actions`.
  ///
  /// - Complexity: O(n + a) for n events and a actions: two passes over the events.
  init(events: UnsafeBufferPointer<ReplayEvent>, actions: [ActionRecord]) {
    // Counted into the slot after each group's, summed into where each group starts, then each
    // start advanced past its group while filling: it ends where the next group starts, so the
    // table moved up one place is the starts, with no second table of cursors.
    var starts = [UInt32](repeating: 0, count: actions.count + 1)
    starts.withUnsafeMutableBufferPointer { starts in
      Self.forEachLink(in: events, actions: actions) { owner, _ in starts[owner + 1] &+= 1 }
      for slot in 0..<actions.count { starts[slot + 1] &+= starts[slot] }
    }
    var offsets = [UInt32](repeating: 0, count: Int(starts[actions.count]))
    starts.withUnsafeMutableBufferPointer { starts in
      offsets.withUnsafeMutableBufferPointer { offsets in
        Self.forEachLink(in: events, actions: actions) { owner, offset in
          offsets[Int(starts[owner])] = UInt32(truncatingIfNeeded: offset)
          starts[owner] &+= 1
        }
      }
      for slot in stride(from: actions.count, to: 0, by: -1) { starts[slot] = starts[slot - 1] }
      if !starts.isEmpty { starts[0] = 0 }
    }
    self.starts = starts
    self.offsets = offsets
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
        case .begin, .end, .hop, .mark, .task, .work:
          link(subject.int, offset)
        }
      }
    }
  }

  /// The offsets of `action`'s related events, ascending.
  ///
  /// - Complexity: O(1).
  func events(of action: ActionIndex) -> ArraySlice<UInt32> {
    guard action.int >= 0, action.int + 1 < starts.count else { return [] }
    return offsets[Int(starts[action.int])..<Int(starts[action.int + 1])]
  }

  /// The bytes the index takes.
  var storedBytes: Int { (starts.count + offsets.count) * MemoryLayout<UInt32>.stride }
}
