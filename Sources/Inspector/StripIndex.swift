import Replay
import TraceFormat

/// The lanes' events by kind, for the strips (see `LaneEventIndex`): what lets a strip show the
/// most telling event of every column with a few searches, whatever the number of events in the
/// window — a strip that scanned the window's events had to stop somewhere, and then showed a
/// dense stretch as empty.
struct StripIndex: Sendable {
  private let index: LaneEventIndex

  static let empty = StripIndex(index: LaneEventIndex())

  private init(index: LaneEventIndex) {
    self.index = index
  }

  /// Indexes `replay`'s events by their lane under `grouping`.
  ///
  /// - Complexity: O(n) for n events.
  init(_ replay: ReplayEngine, grouping: InspectorState.Grouping) {
    let by: LaneEventIndex.Grouping =
      switch grouping {
      case .byQueue: .queue
      case .byThread: .thread
      case .byTask: .task
      }
    self.init(index: replay.laneEventIndex(by: by))
  }

  /// The lane slot of `key`, if the replay has it.
  static func slot(of key: Lane.Key, in replay: ReplayEngine) -> Int? {
    switch key {
    case .queue(let id): replay.queueSlot(id)
    case .thread(let id): replay.threadSlot(of: id)
    case .task(let id): replay.taskSlot(id)
    }
  }

  /// Kinds from the most telling down, as ``StripCell`` ranks them.
  private static let kindsByPriority = TraceEvent.Kind.allCases.sorted {
    StripCell($0, future: false).priority > StripCell($1, future: false).priority
  }

  /// Fills `cells` (one per column of `strip`) with the most telling event of lane `slot` in
  /// each column — cancels over begins, over ends, over marks, hops and schedules; the earliest
  /// of that kind in the column says whether it is still to come (after `clock`).
  func fill(
    _ cells: inout [StripCell], lane slot: Int, strip: InspectorApp.StripGeometry, clock: Int64,
    replay: ReplayEngine
  ) {
    let windowEnd = strip.windowEnd.adding(saturating: 1)
    for kind in Self.kindsByPriority {
      let events = index.events(lane: slot, kind: kind)
      guard !events.isEmpty else { continue }
      func time(_ position: Int) -> Int64 { replay.event(EventIndex(Int(events[position]))).time }
      var position = events.startIndex
      for column in cells.indices where cells[column].priority < 0 {
        let from = strip.windowStart.adding(
          saturating: Int64(column).multiplied(saturating: strip.columnSpan))
        position = Self.firstPosition(
          from: position, end: events.endIndex, atOrAfter: from, time: time)
        guard position < events.endIndex else { break }
        let found = time(position)
        if found < min(from.adding(saturating: strip.columnSpan), windowEnd) {
          cells[column] = StripCell(kind, future: found > clock)
        }
      }
    }
  }

  /// The first position in `start..<end` whose time is `target` or later (`end` if none): a
  /// gallop from `start`, then a binary search, so a walk along the columns costs little whether
  /// the events are sparse or dense.
  private static func firstPosition(
    from start: Int, end: Int, atOrAfter target: Int64, time: (Int) -> Int64
  ) -> Int {
    guard start < end, time(start) < target else { return start }
    var low = start
    var step = 1
    var high = start + 1
    while high < end, time(high) < target {
      low = high
      step *= 2
      high = min(high + step, end)
    }
    // time(low) < target, and time(high) >= target or high == end.
    var (lower, upper) = (low + 1, high)
    while lower < upper {
      let middle = (lower + upper) / 2
      if time(middle) < target { lower = middle + 1 } else { upper = middle }
    }
    return lower
  }
}
