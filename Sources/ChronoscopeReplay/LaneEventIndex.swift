import ChronoscopeCore
import ChronoscopeTraceFormat

/// Each lane's events of each kind, in time order, as offsets into the replay's event list:
/// what lets a view find the events of one lane in a stretch of time with a search instead of a
/// scan, however dense the stretch. About 2 bytes an event (see ``PackedOffsets``).
package struct LaneEventIndex: Sendable {
  /// How lanes are keyed.
  package enum Grouping: Sendable, Hashable {
    /// By the scheduler of the event's action (scheduler slots); marks are on no scheduler.
    case scheduler
    /// By the thread the event happened on (thread slots).
    case thread
    /// By the Swift task the event's action is work of (task slots).
    case task
  }

  package static let kinds = TraceEvent.Kind.allCases.count
  /// Where each (lane slot, kind) run starts in `offsets`, then the run of every mark, whatever
  /// its lane; one more entry closes the last.
  private let starts: [UInt32]
  private let offsets: PackedOffsets

  package init() {
    starts = [0, 0]
    offsets = PackedOffsets()
  }

  fileprivate init(starts: [UInt32], offsets: PackedOffsets) {
    self.starts = starts
    self.offsets = offsets
  }

  /// The event offsets of lane `slot`'s events of `kind`, in time order.
  package func events(lane slot: Int, kind: TraceEvent.Kind) -> LaneEvents {
    let run = slot * Self.kinds + Int(kind.rawValue)
    guard run >= 0, run < marksRun else { return LaneEvents(offsets, 0..<0) }
    return LaneEvents(offsets, Int(starts[run])..<Int(starts[run + 1]))
  }

  /// How many events of `kind` lane `slot` has: what ``events(lane:kind:)`` holds, without
  /// making it (which retains the offsets' storage).
  ///
  /// - Complexity: O(1).
  package func count(lane slot: Int, kind: TraceEvent.Kind) -> Int {
    let run = slot * Self.kinds + Int(kind.rawValue)
    guard run >= 0, run < marksRun else { return 0 }
    return Int(starts[run + 1]) - Int(starts[run])
  }

  /// How many events lane `slot` has, of every kind: a lane's runs lie side by side.
  ///
  /// - Complexity: O(1).
  package func count(lane slot: Int) -> Int {
    let (first, last) = (slot * Self.kinds, (slot + 1) * Self.kinds)
    guard first >= 0, last <= marksRun else { return 0 }
    return Int(starts[last]) - Int(starts[first])
  }

  /// The offsets of every mark, in time order, whatever lane it is on: grouped by scheduler or by
  /// task, a mark is on none.
  package var marks: LaneEvents {
    LaneEvents(offsets, Int(starts[marksRun])..<Int(starts[marksRun + 1]))
  }

  /// The run of the marks: the last.
  private var marksRun: Int { starts.count - 2 }
}

/// One lane's events of one kind: their offsets in the replay's event list, ascending.
package struct LaneEvents: RandomAccessCollection, Sendable {
  private let offsets: PackedOffsets
  private let range: Range<Int>

  fileprivate init(_ offsets: PackedOffsets, _ range: Range<Int>) {
    self.offsets = offsets
    self.range = range
  }

  package var startIndex: Int { range.lowerBound }
  package var endIndex: Int { range.upperBound }
  package subscript(position: Int) -> UInt32 { offsets[position] }

  /// One run of every offset of `runs` (which share none), ascending, packed as an index's:
  /// for a view over more runs than it should search one by one.
  ///
  /// - Complexity: O(n / 64 + k) for k offsets below n.
  package static func merging(_ runs: [LaneEvents]) -> LaneEvents {
    // A bit per event up to the largest: set, then read in order, twice (see `PackedOffsets`).
    let end = runs.reduce(0) { $1.isEmpty ? $0 : Swift.max($0, Int($1[$1.endIndex - 1]) + 1) }
    var bits = [UInt64](repeating: 0, count: (end + 63) / 64)
    var count = 0
    for run in runs {
      for offset in run { bits[Int(offset >> 6)] |= 1 << (offset & 63) }
      count += run.count
    }
    let offsets = PackedOffsets(count: count) { put in
      var place = 0
      for word in bits.indices {
        var rest = bits[word]
        while rest != 0 {
          put(place, UInt32(truncatingIfNeeded: word << 6 | rest.trailingZeroBitCount))
          place += 1
          rest &= rest &- 1
        }
      }
    }
    return LaneEvents(offsets, 0..<count)
  }

  /// The first place whose event offset is `offset` or more (`endIndex` if none).
  ///
  /// - Complexity: O(log n).
  package func firstPlace(atOrAfter offset: Int) -> Int {
    (startIndex..<endIndex).partitioningIndex { Int(self[$0]) >= offset }
  }
}

/// Event offsets in 2 bytes each where they can be: the offsets are cut into blocks of 64, and
/// a block whose offsets lie within 65,536 of its smallest keeps them as 16-bit differences
/// from it, any other block as they are. An index of lanes holds runs of ascending offsets, so
/// the wide blocks are those of a lane with fewer than one event in a thousand, and those where
/// one run ends and the next begins: about 2.1 bytes an event on a trace of busy lanes, 4.1 at
/// worst, where plain offsets took 4. (Fewer than 2³¹ offsets: a block's start keeps its kind
/// in the top bit.)
struct PackedOffsets: Sendable {
  private struct Block {
    /// The smallest offset of a narrow block.
    var base: UInt32
    /// Where the block's first value is in `narrow`, or, with the top bit set, in `wide`.
    var start: UInt32
  }

  private static let shift = 6
  private static let wideFlag: UInt32 = 1 << 31
  private var blocks: [Block] = []
  private var narrow: [UInt16] = []
  private var wide: [UInt32] = []

  init() {}

  /// The offsets `fill` puts in places `0..<count`: it is called twice, with a function that
  /// takes (place, offset), and must put the same offsets in the same places both times. So
  /// the offsets are never held 4 bytes each, even while they are packed.
  init(count: Int, fill: ((Int, UInt32) -> Void) -> Void) {
    let blockCount = (count + (1 << Self.shift) - 1) >> Self.shift
    // The first call finds each block's range.
    var low = [UInt32](repeating: .max, count: blockCount)
    var high = [UInt32](repeating: 0, count: blockCount)
    low.withUnsafeMutableBufferPointer { low in
      high.withUnsafeMutableBufferPointer { high in
        fill { place, offset in
          let block = place >> Self.shift
          low[block] = min(low[block], offset)
          high[block] = max(high[block], offset)
        }
      }
    }
    var blocks = [Block]()
    blocks.reserveCapacity(blockCount)
    var (narrowCount, wideCount) = (0, 0)
    for block in 0..<blockCount {
      let size = min(count - (block << Self.shift), 1 << Self.shift)
      if high[block] &- low[block] <= UInt32(UInt16.max) {
        blocks.append(Block(base: low[block], start: UInt32(truncatingIfNeeded: narrowCount)))
        narrowCount += size
      } else {
        blocks.append(
          Block(base: 0, start: UInt32(truncatingIfNeeded: wideCount) | Self.wideFlag))
        wideCount += size
      }
    }
    low = []
    high = []
    // The second call puts each offset in its block.
    var narrow = [UInt16](repeating: 0, count: narrowCount)
    var wide = [UInt32](repeating: 0, count: wideCount)
    blocks.withUnsafeBufferPointer { blocks in
      narrow.withUnsafeMutableBufferPointer { narrow in
        wide.withUnsafeMutableBufferPointer { wide in
          fill { place, offset in
            let block = blocks[place >> Self.shift]
            let within = place & ((1 << Self.shift) - 1)
            if block.start & Self.wideFlag == 0 {
              narrow[Int(block.start) + within] = UInt16(truncatingIfNeeded: offset &- block.base)
            } else {
              wide[Int(block.start & ~Self.wideFlag) + within] = offset
            }
          }
        }
      }
    }
    self.blocks = blocks
    self.narrow = narrow
    self.wide = wide
  }

  /// The bytes the offsets and their blocks take.
  var storedBytes: Int {
    blocks.count * MemoryLayout<Block>.stride + narrow.count * 2 + wide.count * 4
  }

  /// The offset in place `place`.
  subscript(place: Int) -> UInt32 {
    let block = blocks[place >> Self.shift]
    let within = place & ((1 << Self.shift) - 1)
    if block.start & Self.wideFlag == 0 {
      return block.base &+ UInt32(narrow[Int(block.start) + within])
    }
    return wide[Int(block.start & ~Self.wideFlag) + within]
  }
}

extension ReplayEngine {
  /// Indexes the events by lane under `grouping`.
  ///
  /// - Complexity: O(n) for n events: two passes, no hashing for schedulers and tasks, and one
  ///   lookup per change of thread for threads.
  package func laneEventIndex(by grouping: LaneEventIndex.Grouping) -> LaneEventIndex {
    let kinds = LaneEventIndex.kinds
    let slots =
      switch grouping {
      case .scheduler: schedulerSlotCount
      case .thread: threadSlotCount
      case .task: tasks.count
      }
    // The last thread looked up: nil before the first, as any id (UInt32.max too) may occur.
    var lastThread: UInt32?
    var lastThreadSlot = -1
    func run(_ event: ReplayEvent) -> Int {
      let slot: Int
      switch grouping {
      case .scheduler:
        guard let action = event.action else { return -1 }
        slot = Int(actions[action.int].schedulerSlot)
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
    // The lanes' runs, then the marks' (see `LaneEventIndex.marks`).
    let marksRun = slots * kinds
    var starts = [UInt32](repeating: 0, count: marksRun + 2)
    for event in events {
      let run = run(event)
      if run >= 0 { starts[run + 1] &+= 1 }
      if event.kind == .mark { starts[marksRun + 1] &+= 1 }
    }
    for run in 0..<(starts.count - 1) { starts[run + 1] &+= starts[run] }
    // Each event to its run's next place, twice (see `PackedOffsets`).
    let offsets = PackedOffsets(count: Int(starts[starts.count - 1])) { put in
      var next = starts
      lastThread = nil  // Every pass must give every event the run the first gave it.
      for offset in events.indices {
        if events[offset].kind == .mark {
          put(Int(next[marksRun]), UInt32(truncatingIfNeeded: offset))
          next[marksRun] &+= 1
        }
        let run = run(events[offset])
        guard run >= 0 else { continue }
        put(Int(next[run]), UInt32(truncatingIfNeeded: offset))
        next[run] &+= 1
      }
    }
    return LaneEventIndex(starts: starts, offsets: offsets)
  }
}
