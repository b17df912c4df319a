/// The queue a ``VirtualClock`` runs its work from: each entry names a slot of work and when it
/// is due; entries leave in order of due time, and entries due at the same time in the order they
/// were inserted.
///
/// A four-ary min-heap of 16-byte entries, each node's four children on one 64-byte cache line,
/// compared as single 128-bit numbers. A clock only ever takes the earliest entry, so it needs
/// no min-max heap (swift-collections' `Heap`, the clock's queue before, which also keeps no
/// order among equal elements, so its entries carried a 64-bit sequence number beside the key):
/// with a million entries queued, taking the front costs about one cache miss per level below
/// those the cache holds, and a four-ary heap has half the levels of a binary one.
///
/// The insertion order is a 32-bit sequence number inside the key. When the numbers run out,
/// the entries queued then are numbered again from zero in the order they leave, which changes
/// no order.
struct DueQueue: ~Copyable {
  /// One queued run of the work in `slot`: a plain value, so moving entries costs no reference
  /// counting, and one 128-bit number, so comparing two is one comparison with no branch.
  struct Entry {
    /// From the high bits down: the due time with its sign bit flipped (so that unsigned order
    /// is signed order), the insertion sequence number, the slot. Sequence numbers are unique
    /// among queued entries, so the slot never decides an order.
    private let key: UInt128

    fileprivate init(due: Int64, sequence: UInt32, slot: UInt32) {
      key =
        UInt128(UInt64(bitPattern: due) ^ Self.signBit) << 64 | UInt128(sequence) << 32
        | UInt128(slot)
    }

    private static let signBit: UInt64 = 1 << 63

    var due: Int64 { Int64(bitPattern: UInt64(truncatingIfNeeded: key >> 64) ^ Self.signBit) }
    var slot: UInt32 { UInt32(truncatingIfNeeded: key) }
    fileprivate var sequence: UInt32 { UInt32(truncatingIfNeeded: key >> 32) }

    /// Whether `self` leaves the queue before `other`: due earlier, or as due and inserted
    /// earlier.
    @inline(__always)
    func precedes(_ other: Entry) -> Bool { key < other.key }
  }

  /// Where the root is in `storage`: the children of the entry at logical index `i` are at
  /// `4i + 1 ... 4i + 4`, so at physical `4(i + 1)`, a multiple of four entries from the
  /// 64-byte-aligned base: one cache line.
  private static let rootOffset = 3
  private static let lineBytes = 64

  private var storage: UnsafeMutablePointer<Entry>
  private var capacity: Int
  /// How many entries are queued.
  private(set) var count = 0
  private var nextSequence: UInt32 = 0
  /// The sequence number at which the entries are numbered again (`UInt32.max` but in tests).
  private let sequenceLimit: UInt32

  init(sequenceLimit: UInt32 = .max) {
    precondition(sequenceLimit > 0)
    self.sequenceLimit = sequenceLimit
    capacity = 61  // 64 entries with the root's offset: a kilobyte
    storage = Self.allocate(capacity)
  }

  deinit { Self.deallocate(storage) }

  /// The entry that leaves first.
  ///
  /// - Complexity: O(1).
  var min: Entry? { count > 0 ? storage[0] : nil }

  /// The entries in no particular order.
  var unordered: [Entry] { Array(UnsafeBufferPointer(start: storage, count: count)) }

  /// Queues the work in `slot`, due at `due`, behind every entry already queued for `due`.
  ///
  /// - Complexity: O(log n), and O(n log n) once every 2³² − 1 insertions.
  mutating func insert(due: Int64, slot: UInt32) {
    if nextSequence >= sequenceLimit { renumber() }
    if count == capacity { grow() }
    let entry = Entry(due: due, sequence: nextSequence, slot: slot)
    nextSequence += 1
    count += 1
    place(entry, upFrom: count - 1)
  }

  /// Puts back an entry taken with ``removeMin()``, in its place in the order (its due time and
  /// sequence number unchanged): for a clock that looked past the first entry and chose another.
  ///
  /// - Complexity: O(log n).
  mutating func reinsert(_ entry: Entry) {
    if count == capacity { grow() }
    count += 1
    place(entry, upFrom: count - 1)
  }

  /// Puts `entry` in the hole at `hole` or, moving the hole up past every parent it precedes,
  /// higher.
  @inline(__always)
  private mutating func place(_ entry: Entry, upFrom hole: Int) {
    var hole = hole
    while hole > 0 {
      let parent = (hole &- 1) >> 2
      guard entry.precedes(storage[parent]) else { break }
      storage[hole] = storage[parent]
      hole = parent
    }
    storage[hole] = entry
  }

  /// Removes the entry that leaves first; the queue must not be empty.
  ///
  /// The hole the first entry leaves goes down to a leaf along the earlier child, and the last
  /// entry fills it from there, moving up as far as it must (Floyd's way): the last entry is
  /// among the latest, so it seldom moves up at all, and going down takes no comparison with
  /// it, so the loop's exit is the bottom of the heap, which the branch predictor learns.
  ///
  /// - Complexity: O(log n).
  @discardableResult
  mutating func removeMin() -> Entry {
    precondition(count > 0, "removeMin() on an empty queue")
    let first = storage[0]
    count -= 1
    guard count > 0 else { return first }
    let last = storage[count]
    var hole = 0
    while true {
      let firstChild = hole &* 4 &+ 1
      let best: Int
      if firstChild &+ 3 < count {
        // Two pairs, then their winners: a shorter chain of dependent comparisons than three
        // in a row.
        let left =
          storage[firstChild].precedes(storage[firstChild &+ 1]) ? firstChild : firstChild &+ 1
        let right =
          storage[firstChild &+ 2].precedes(storage[firstChild &+ 3])
          ? firstChild &+ 2 : firstChild &+ 3
        best = storage[left].precedes(storage[right]) ? left : right
      } else if firstChild < count {
        var earliest = firstChild
        var child = firstChild &+ 1
        while child < count {
          if storage[child].precedes(storage[earliest]) { earliest = child }
          child &+= 1
        }
        best = earliest
      } else {
        break
      }
      storage[hole] = storage[best]
      hole = best
    }
    place(last, upFrom: hole)
    return first
  }

  /// Numbers the queued entries again from zero in the order they leave: sorted, they are a
  /// heap already.
  private mutating func renumber() {
    var buffer = UnsafeMutableBufferPointer(start: storage, count: count)
    buffer.sort { $0.precedes($1) }
    for index in buffer.indices {
      let entry = buffer[index]
      buffer[index] = Entry(due: entry.due, sequence: UInt32(index), slot: entry.slot)
    }
    // More than 2³² − 1 entries at once is more memory (64 GiB) than a test has.
    nextSequence = UInt32(count)
  }

  private mutating func grow() {
    let larger = capacity * 2 + Self.rootOffset
    let moved = Self.allocate(larger)
    moved.update(from: storage, count: count)
    Self.deallocate(storage)
    storage = moved
    capacity = larger
  }

  /// Room for `capacity` entries after the root's offset, the base on a cache line.
  private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Entry> {
    let raw = UnsafeMutableRawPointer.allocate(
      byteCount: (capacity + rootOffset) * MemoryLayout<Entry>.stride, alignment: lineBytes)
    return raw.bindMemory(to: Entry.self, capacity: capacity + rootOffset) + rootOffset
  }

  private static func deallocate(_ storage: UnsafeMutablePointer<Entry>) {
    UnsafeMutableRawPointer(storage - rootOffset).deallocate()
  }

  /// Traps if an entry leaves before its parent or two share a sequence number.
  func _checkInvariants() {
    var sequences = Set<UInt32>()
    for index in 0..<count {
      precondition(sequences.insert(storage[index].sequence).inserted, "sequence used twice")
      precondition(storage[index].sequence < nextSequence, "sequence not yet given")
      if index > 0 {
        precondition(
          !storage[index].precedes(storage[(index - 1) / 4]), "entry \(index) before its parent")
      }
    }
  }
}
