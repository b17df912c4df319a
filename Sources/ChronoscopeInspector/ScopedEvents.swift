import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay

/// Some lanes' events in trace order, read through the lanes' index (`LaneEventIndex`) rather
/// than copied out of the trace: the Events panel's rows under a lane filter, one lane's events
/// for `[` and `]`, the marks for `m` and `M`. A filter that keeps most of a trace of millions
/// of events costs the same few searches as one that keeps one lane, and no memory.
struct ScopedEvents: Sendable {
  /// The kept lanes' runs of events (one per lane and kind), each ascending; none empty.
  private let runs: [LaneEvents]
  /// How many events there are.
  let count: Int
  /// One past the largest event offset.
  private let end: Int

  /// More runs than this are merged into one when the view is made: every question costs a
  /// search per run (a filter keeping 40,000 lanes of one event each took 90 ms a frame).
  static let mostRuns = 64

  /// - Parameter mostRuns: How many runs are searched one by one at most (tests check both ways).
  init(_ runs: [LaneEvents], mostRuns: Int = Self.mostRuns) {
    let runs = runs.filter { !$0.isEmpty }
    self.runs = runs.count > mostRuns ? [LaneEvents.merging(runs)] : runs
    count = self.runs.reduce(0) { $0 + $1.count }
    end = self.runs.reduce(0) { max($0, Int($1[$1.endIndex - 1]) + 1) }
  }

  /// How many lie before the event offset `position`.
  ///
  /// - Complexity: O(r log n) for r runs of at most n events.
  func count(before position: Int) -> Int {
    runs.reduce(0) { $0 + $1.firstPlace(atOrAfter: position) - $1.startIndex }
  }

  /// The first at the event offset `position` or after it, if any.
  ///
  /// - Complexity: O(r log n).
  func first(atOrAfter position: Int) -> EventIndex? {
    var first: UInt32?
    for run in runs {
      let place = run.firstPlace(atOrAfter: position)
      if place < run.endIndex { first = min(first ?? .max, run[place]) }
    }
    return first.map { EventIndex(Int($0)) }
  }

  /// The last before the event offset `position`, if any.
  ///
  /// - Complexity: O(r log n).
  func last(before position: Int) -> EventIndex? {
    var last: UInt32?
    for run in runs {
      let place = run.firstPlace(atOrAfter: position)
      if place > run.startIndex { last = max(last ?? 0, run[place - 1]) }
    }
    return last.map { EventIndex(Int($0)) }
  }

  /// The event with `row` of them before it, for `row` in `0..<count`.
  ///
  /// - Complexity: O(r log n log N) for N events in the trace.
  func event(atRow row: Int) -> EventIndex {
    // The smallest offset with more than `row` of them at or before it.
    EventIndex((0..<end).partitioningIndex { count(before: $0 + 1) > row })
  }

  /// The events on `rows`, each within `0..<count`.
  ///
  /// - Complexity: O(r log n (log N + rows)).
  func events(onRows rows: Range<Int>) -> [EventIndex] {
    guard let first = rows.first else { return [] }
    var events = [event(atRow: first)]
    events.reserveCapacity(rows.count)
    while events.count < rows.count, let last = events.last,
      let next = self.first(atOrAfter: last.offset + 1)
    {
      events.append(next)
    }
    return events
  }
}
