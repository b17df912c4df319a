import Synchronization

/// Which clock owns which Swift task, by the runtime's task id: what lets two clocks driven from
/// two threads (tests run in parallel) each receive only the jobs of the code it started.
///
/// Read on every job the runtime enqueues while a clock is active, from any thread, so a read
/// takes no lock: an open-addressing table of atomics with linear probing. Writes — a task seen
/// for the first time, a clock letting go of its tasks — are rare and serialised by a lock.
///
/// Each slot is a task id and an owner. An owner is a clock's number, which
/// ``GlobalJobRouting`` maps to its router; numbers are never reused, so a stale owner read in a
/// race names a clock that is gone, never another one.
final class TaskOwners: @unchecked Sendable {
  // @unchecked Sendable: the slots are atomics; `writer` serialises every change.
  private static let empty: UInt64 = 0
  private static let tombstone = UInt64.max
  private static let busy = UInt64.max - 1

  /// Slots: more than the tasks any test keeps alive at once, by far (a full table only stops
  /// new tasks from being owned, and says so).
  let capacity: Int
  private let mask: Int
  private let keys: UnsafeMutablePointer<Atomic<UInt64>>
  private let owners: UnsafeMutablePointer<Atomic<UInt64>>
  private let writer = Mutex<Int>(0)  // live entries
  /// The longest probe: a task is never further than this from its home slot, so a lookup of a
  /// task the table does not hold — most jobs of the process — stops here even when the table is
  /// nearly full. A task whose probe is full is not owned (the table says so once).
  private let maxProbe: Int

  init(capacity: Int = 1 << 14) {
    precondition(capacity > 0 && capacity & (capacity - 1) == 0, "a power of two")
    self.capacity = capacity
    mask = capacity - 1
    maxProbe = min(capacity, 128)
    keys = .allocate(capacity: capacity)
    owners = .allocate(capacity: capacity)
    for index in 0..<capacity {
      (keys + index).initialize(to: Atomic(Self.empty))
      (owners + index).initialize(to: Atomic(0))
    }
  }

  deinit {
    keys.deinitialize(count: capacity)
    keys.deallocate()
    owners.deinitialize(count: capacity)
    owners.deallocate()
  }

  private func home(_ task: UInt64) -> Int {
    // Fibonacci hashing: consecutive ids (the runtime counts them up) spread over the table.
    Int(truncatingIfNeeded: (task &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
  }

  /// The owner of `task`, or nil. Lock-free.
  func owner(of task: UInt64) -> UInt64? {
    guard task != Self.empty, task < Self.busy else { return nil }
    var index = home(task)
    for _ in 0..<maxProbe {
      let key = keys[index].load(ordering: .acquiring)
      if key == Self.empty { return nil }
      if key == task {
        let owner = owners[index].load(ordering: .acquiring)
        // The slot could have been let go of and refilled meanwhile: check it still holds it.
        return keys[index].load(ordering: .acquiring) == task ? owner : nil
      }
      index = (index + 1) & mask
    }
    return nil
  }

  /// Makes `owner` the owner of `task` unless it has one; returns the owner it has now, or nil
  /// when the table is full.
  func claim(_ task: UInt64, for owner: UInt64) -> UInt64? {
    guard task != Self.empty, task < Self.busy else { return nil }
    return writer.withLock { live -> UInt64? in
      var index = home(task)
      for _ in 0..<maxProbe {
        let key = keys[index].load(ordering: .acquiring)
        if key == task { return owners[index].load(ordering: .acquiring) }
        if key == Self.empty { break }
        index = (index + 1) & mask
      }
      return insert(task, owner, &live) ? owner : nil
    }
  }

  /// Puts `task` in the first free slot of its probe; false when the table is full. Under
  /// `writer`, for a task not in the table.
  private func insert(_ task: UInt64, _ owner: UInt64, _ live: inout Int) -> Bool {
    var index = home(task)
    for _ in 0..<maxProbe {
      let key = keys[index].load(ordering: .acquiring)
      if key == Self.empty || key == Self.tombstone {
        // A reader that meets `busy` goes on probing; it cannot be looking for `task` yet (only
        // the enqueue that claims it asks, and the claim holds the lock).
        keys[index].store(Self.busy, ordering: .releasing)
        owners[index].store(owner, ordering: .releasing)
        keys[index].store(task, ordering: .releasing)
        live += 1
        return true
      }
      index = (index + 1) & mask
    }
    return false
  }

  /// Makes `owner` the owner of `task`, replacing the one it had; returns whether that changed
  /// anything (false too when the table is full).
  func assign(_ task: UInt64, to owner: UInt64) -> Bool {
    guard task != Self.empty, task < Self.busy else { return false }
    return writer.withLock { live -> Bool in
      var index = home(task)
      for _ in 0..<maxProbe {
        let key = keys[index].load(ordering: .acquiring)
        if key == task {
          let changed = owners[index].load(ordering: .acquiring) != owner
          owners[index].store(owner, ordering: .releasing)
          return changed
        }
        if key == Self.empty { break }
        index = (index + 1) & mask
      }
      return insert(task, owner, &live)
    }
  }

  /// Lets go of those of `tasks` whose owner is still `owner` once `flags` are cleared from it (a
  /// clock that is done: a test's task it made may have moved on to the next clock).
  func release(_ tasks: [UInt64], ownedBy owner: UInt64, ignoring flags: UInt64) {
    guard !tasks.isEmpty else { return }
    writer.withLock { live in
      for task in tasks {
        guard task != Self.empty, task < Self.busy else { continue }
        var index = home(task)
        for _ in 0..<maxProbe {
          let key = keys[index].load(ordering: .acquiring)
          if key == Self.empty { break }
          if key == task {
            if owners[index].load(ordering: .acquiring) & ~flags == owner {
              remove(at: index)
              live -= 1
            }
            break
          }
          index = (index + 1) & mask
        }
      }
    }
  }

  /// Empties slot `index`: to `empty` when no probe runs through it (the next slot is empty),
  /// and then the tombstones just before it too, so that probes stay short as clocks come and
  /// go; to a tombstone otherwise. Under `writer`.
  private func remove(at index: Int) {
    guard keys[(index + 1) & mask].load(ordering: .acquiring) == Self.empty else {
      keys[index].store(Self.tombstone, ordering: .releasing)
      return
    }
    keys[index].store(Self.empty, ordering: .releasing)
    var before = (index - 1) & mask
    while before != index, keys[before].load(ordering: .acquiring) == Self.tombstone {
      keys[before].store(Self.empty, ordering: .releasing)
      before = (before - 1) & mask
    }
  }

  /// How many tasks have an owner.
  var count: Int { writer.withLock { $0 } }
}
