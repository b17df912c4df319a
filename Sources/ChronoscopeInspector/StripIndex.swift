import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

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
      case .byScheduler: .scheduler
      case .byThread: .thread
      case .byTask: .task
      }
    self.init(index: replay.laneEventIndex(by: by))
  }

  /// The lane slot of `key`, if the replay has it.
  static func slot(of key: Lane.Key, in replay: ReplayEngine) -> Int? {
    switch key {
    case .scheduler(let id): replay.schedulerSlot(id)
    case .thread(let id): replay.threadSlot(of: id)
    case .task(let id): replay.taskSlot(id)
    }
  }

  /// Whether the trace has marks.
  var hasMarks: Bool { !index.marks.isEmpty }

  /// Every mark, whatever lane it is on.
  var marks: ScopedEvents { ScopedEvents([index.marks]) }

  /// The events of `lanes`, of every kind.
  func events(
    of lanes: [Lane], in replay: ReplayEngine, mostRuns: Int = ScopedEvents.mostRuns
  ) -> ScopedEvents {
    var runs: [LaneEvents] = []
    // Counted first: most lanes of a trace with very many have few events or none, and making
    // a run retains the index's storage.
    for lane in lanes {
      guard let slot = Self.slot(of: lane.key, in: replay), index.count(lane: slot) > 0 else {
        continue
      }
      for kind in TraceEvent.Kind.allCases where index.count(lane: slot, kind: kind) > 0 {
        runs.append(index.events(lane: slot, kind: kind))
      }
    }
    return ScopedEvents(runs, mostRuns: mostRuns)
  }

  /// Kinds from the most telling down, as ``StripCell`` ranks them.
  private static let kindsByPriority = TraceEvent.Kind.allCases.sorted {
    StripCell($0, future: false).priority > StripCell($1, future: false).priority
  }

  /// Fills `cells` (one per column of `strip`) with the most telling event of lane `slot` in
  /// each column — cancels over begins, over ends, over marks, hops and schedules; the earliest
  /// of that kind in the column says whether it is still to come (after `clock`).
  func fill(
    _ cells: inout [StripCell], lane slot: Int, strip: StripGeometry, clock: Int64,
    replay: ReplayEngine
  ) {
    for kind in Self.kindsByPriority {
      Self.place(
        index.events(lane: slot, kind: kind), as: kind, in: &cells, strip: strip, clock: clock,
        replay: replay)
    }
  }

  /// Fills the empty columns of `cells` with a ◆ where a mark falls, whatever lane it is on;
  /// returns how many marks the window holds.
  func fillMarks(
    _ cells: inout [StripCell], strip: StripGeometry, clock: Int64,
    replay: ReplayEngine
  ) -> Int {
    let marks = index.marks
    Self.place(marks, as: .mark, in: &cells, strip: strip, clock: clock, replay: replay)
    func time(_ position: Int) -> Int64 { replay.event(EventIndex(Int(marks[position]))).time }
    let first = Self.firstPosition(
      from: marks.startIndex, end: marks.endIndex, atOrAfter: strip.windowStart, time: time)
    let after = Self.firstPosition(
      from: first, end: marks.endIndex, atOrAfter: strip.windowEnd.adding(saturating: 1),
      time: time)
    return after - first
  }

  /// Puts a glyph of `kind` in each empty column of `cells` that one of `events` falls in.
  private static func place(
    _ events: LaneEvents, as kind: TraceEvent.Kind, in cells: inout [StripCell],
    strip: StripGeometry, clock: Int64, replay: ReplayEngine
  ) {
    guard !events.isEmpty else { return }
    let windowEnd = strip.windowEnd.adding(saturating: 1)
    func time(_ position: Int) -> Int64 { replay.event(EventIndex(Int(events[position]))).time }
    var position = events.startIndex
    for column in cells.indices where cells[column].priority < 0 {
      let from = strip.windowStart.adding(
        saturating: Int64(column).multiplied(saturating: strip.columnSpan))
      position = firstPosition(from: position, end: events.endIndex, atOrAfter: from, time: time)
      guard position < events.endIndex else { break }
      let found = time(position)
      if found < min(from.adding(saturating: strip.columnSpan), windowEnd) {
        cells[column] = StripCell(kind, future: found > clock)
      }
    }
  }

  /// Draws lane `slot`'s runs as bars over the columns where no event of the lane falls (so
  /// its events show over them): a column shows a bar when work of the lane runs through it.
  ///
  /// What runs at a column's start is counted from the cursor, where the replay knows what
  /// runs (`running`, the lane's running actions there): plus the begins and minus the ends
  /// between the cursor and the column. So a frame looks up two positions a column whatever
  /// the events in the window, and a run whose begin the trace does not hold (cut off by a
  /// slice or a flight recorder) shows before its end once the cursor is past that end; with
  /// the cursor before it, the replay does not count it as running, and neither does the
  /// strip. Runs are drawn up to the trace's end (its close line, or a crash, which may come
  /// after its last event: work that began and never ended still ran then, as the Running panel
  /// says), and nothing after it: the trace says nothing of then.
  ///
  /// - Complexity: O(w log n) for w columns and n runs of the lane.
  func fillRuns(
    _ cells: inout [StripCell], lane slot: Int, running: Int, strip: StripGeometry,
    clock: Int64, replay: ReplayEngine
  ) {
    let begins = index.events(lane: slot, kind: .begin)
    let ends = index.events(lane: slot, kind: .end)
    guard running > 0 || !begins.isEmpty || !ends.isEmpty else { return }
    func time(_ events: LaneEvents) -> (Int) -> Int64 {
      { replay.event(EventIndex(Int(events[$0]))).time }
    }
    // The begins and ends the replay has applied at the cursor: those before its position.
    let position = UInt32(clamping: replay.position)
    func applied(_ events: LaneEvents) -> Int {
      Self.firstPosition(
        from: events.startIndex, end: events.endIndex, atOrAfter: Int64(position),
        time: { Int64(events[$0]) })
    }
    let (beginsApplied, endsApplied) = (applied(begins), applied(ends))
    let end = replay.end
    var (begin, ended) = (begins.startIndex, ends.startIndex)
    for column in cells.indices where cells[column].priority < 0 {
      let from = strip.windowStart.adding(
        saturating: Int64(column).multiplied(saturating: strip.columnSpan))
      guard from <= end else { break }
      begin = Self.firstPosition(
        from: begin, end: begins.endIndex, atOrAfter: from, time: time(begins))
      ended = Self.firstPosition(from: ended, end: ends.endIndex, atOrAfter: from, time: time(ends))
      if running + (begin - beginsApplied) - (ended - endsApplied) > 0 {
        cells[column] = .run(future: from > clock)
      }
    }
  }

  /// How many events lane `slot` has in the whole trace.
  ///
  /// - Complexity: O(1).
  func eventCount(lane slot: Int) -> Int {
    index.count(lane: slot)
  }

  /// Whether lane `slot` has an event in `window`.
  ///
  /// - Complexity: O(log n) for n events of the lane.
  func hasEvents(lane slot: Int, in window: ClosedRange<Int64>, replay: ReplayEngine) -> Bool {
    // Most lanes of a trace with very many have few events or none: counted first, as making
    // a lane's events of a kind retains the index's storage.
    guard index.count(lane: slot) > 0 else { return false }
    return TraceEvent.Kind.allCases.contains { kind in
      guard index.count(lane: slot, kind: kind) > 0 else { return false }
      let events = index.events(lane: slot, kind: kind)
      let position = Self.firstPosition(
        from: events.startIndex, end: events.endIndex, atOrAfter: window.lowerBound,
        time: { replay.event(EventIndex(Int(events[$0]))).time })
      return position < events.endIndex
        && replay.event(EventIndex(Int(events[position]))).time <= window.upperBound
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
    return (low + 1..<high).partitioningIndex { time($0) >= target }
  }
}
