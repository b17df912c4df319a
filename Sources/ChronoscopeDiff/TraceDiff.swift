import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// What differs between two recordings of the same program — "expected" and "actual".
///
/// Action ids are handed out in scheduling order, so they shift as soon as one run schedules one
/// thing more; and a fix moves source lines. So the diff lines actions up by what they are: their
/// scheduler's label, the function that scheduled them (file and name), and which occurrence of that
/// pair they are (the third action `load()` in `Loader.swift` scheduled on `net`). Source lines
/// only tell apart what one function schedules on one scheduler from several places: the k-th of its
/// lines in one trace goes with the k-th in the other (docs/Diff.md). Then it reports
/// - the first divergence in the order runs began: the first place where one trace ran something
///   else than the other (or ran out of runs);
/// - the actions only one trace has;
/// - the matched actions whose timing differs by more than a tolerance: when they were scheduled,
///   when each run began, how long it ran, how many times they ran.
///
/// Times are compared from each trace's ``Origin``: its first event unless told otherwise, so two
/// recordings whose recorders started at different moments before the same work line up. Two
/// virtual-clock recordings of the same program are identical, so with no tolerance their diff
/// is exact.
///
/// ```swift
/// let diff = try TraceDiff(expected, actual, tolerance: 1_000_000, origin: .mark("request"))
/// diff.onlyInB.map(\.key.site)   // ["Loader.swift:40 retry()"]
/// ```
package struct TraceDiff: Sendable {
  /// The first position in the begin order where the traces ran different things; a side is
  /// nil when that trace had no more runs.
  package struct Divergence: Sendable, Equatable {
    /// The position in the begin order, from 1.
    package var position: Int
    package var a: RunReference?
    package var b: RunReference?
  }

  /// One timing figure of a matched action that differs beyond the tolerance.
  package struct TimingDifference: Sendable, Equatable {
    package enum Aspect: Sendable, Equatable {
      case scheduled
      case began(run: Int)
      case duration(run: Int)
      case runs
    }
    package var a: ActionReference
    package var bID: ActionID
    package var aspect: Aspect
    /// The figure in each trace: times (from each trace's origin) and durations in ns, or run
    /// counts.
    package var valueA: Int64
    package var valueB: Int64
    /// `valueB - valueA`, saturating.
    package var delta: Int64 { valueB.subtracting(saturating: valueA) }
  }

  /// The instant each trace's times are counted from for the comparison.
  package enum Origin: Sendable, Equatable {
    /// The trace's first event: recorders started at different moments do not matter.
    case firstEvent
    /// The first mark with this name (`recorder.mark("request")`): the traces line up where the
    /// app said the work starts.
    case mark(String)
  }

  /// A trace lacks the mark its ``Origin`` names.
  package struct MissingMark: Error, Sendable, Equatable, CustomStringConvertible {
    /// The mark's name.
    package let name: String
    /// Which trace lacks it: "A" (expected) or "B" (actual).
    package let trace: String

    package var description: String { "trace \(trace) has no mark named \"\(name)\"" }
  }

  package let firstDivergence: Divergence?
  /// Actions only the first trace has, in scheduling order.
  package let onlyInA: [ActionReference]
  /// Actions only the second trace has, in scheduling order.
  package let onlyInB: [ActionReference]
  /// Timing differences beyond the tolerance, in the first trace's scheduling order.
  package let timing: [TimingDifference]
  /// The tolerance it was made with, in ns.
  package let tolerance: Int64
  /// What the times are counted from.
  package let origin: Origin
  /// Where ``origin`` lies in each trace's own time (ns from its start).
  package let originA: Int64
  package let originB: Int64

  /// Whether nothing differs.
  package var isSame: Bool {
    firstDivergence == nil && onlyInA.isEmpty && onlyInB.isEmpty && timing.isEmpty
  }

  /// Compares `a` (expected) with `b` (actual), their times counted from each one's first
  /// event; timing within `tolerance` ns counts as equal.
  ///
  /// - Complexity: O(actions + events) of both traces.
  package init(_ a: ReplayEngine, _ b: ReplayEngine, tolerance: Int64 = 0) {
    self.init(
      a, b, tolerance: tolerance, origin: .firstEvent,
      origins: (a.firstEventTime, b.firstEventTime))
  }

  /// Compares `a` (expected) with `b` (actual), their times counted from `origin` in each;
  /// timing within `tolerance` ns counts as equal.
  ///
  /// - Throws: ``MissingMark`` when `origin` names a mark one of the traces does not have.
  package init(_ a: ReplayEngine, _ b: ReplayEngine, tolerance: Int64 = 0, origin: Origin)
    throws(MissingMark)
  {
    switch origin {
    case .firstEvent:
      self.init(a, b, tolerance: tolerance)
    case .mark(let name):
      guard let originA = Self.markTime(name, in: a) else {
        throw MissingMark(name: name, trace: "A")
      }
      guard let originB = Self.markTime(name, in: b) else {
        throw MissingMark(name: name, trace: "B")
      }
      self.init(a, b, tolerance: tolerance, origin: origin, origins: (originA, originB))
    }
  }

  private init(
    _ a: ReplayEngine, _ b: ReplayEngine, tolerance: Int64, origin: Origin,
    origins: (Int64, Int64)
  ) {
    self.tolerance = max(0, tolerance)
    self.origin = origin
    (originA, originB) = origins
    let sideA = RecordedRuns(a, origin: originA)
    let sideB = RecordedRuns(b, origin: originB)
    let matches = Self.match(sideA, sideB)
    var matchedInB = [Bool](repeating: false, count: sideB.actions.count)
    for case let other? in matches { matchedInB[other] = true }
    firstDivergence = Self.divergence(sideA, sideB, matches)
    onlyInA = sideA.actions.indices.filter { matches[$0] == nil }.map {
      sideA.actions[$0].reference
    }
    onlyInB = sideB.actions.indices.filter { !matchedInB[$0] }.map { sideB.actions[$0].reference }
    var timing: [TimingDifference] = []
    for (action, match) in zip(sideA.actions, matches) {
      guard let match else { continue }
      let other = sideB.actions[match]
      func compare(_ aspect: TimingDifference.Aspect, _ x: Int64, _ y: Int64, limit: Int64) {
        guard x.subtracting(saturating: y).magnitude > UInt64(limit) else { return }
        timing.append(
          TimingDifference(
            a: action.reference, bID: other.reference.id, aspect: aspect, valueA: x, valueB: y))
      }
      compare(
        .scheduled, action.reference.scheduledAt, other.reference.scheduledAt, limit: tolerance)
      for (number, (runA, runB)) in zip(action.runs, other.runs).enumerated() {
        compare(.began(run: number + 1), runA.began, runB.began, limit: self.tolerance)
        if let endA = runA.ended, let endB = runB.ended {
          compare(
            .duration(run: number + 1), endA.subtracting(saturating: runA.began),
            endB.subtracting(saturating: runB.began), limit: self.tolerance)
        }
      }
      compare(.runs, Int64(action.runs.count), Int64(other.runs.count), limit: 0)
    }
    self.timing = timing
  }

  private static func markTime(_ name: String, in replay: ReplayEngine) -> Int64? {
    replay.eventIndices.lazy.map { replay.event($0) }
      .first { $0.kind == .mark && replay.mark(of: $0)?.name == name }?.time
  }

  private static func divergence(_ a: RecordedRuns, _ b: RecordedRuns, _ matches: [Int?])
    -> Divergence?
  {
    for position in 0..<max(a.begins.count, b.begins.count) {
      let runA = position < a.begins.count ? a.begins[position] : nil
      let runB = position < b.begins.count ? b.begins[position] : nil
      let same =
        if let runA, let runB {
          matches[runA.action] == runB.action && runA.run == runB.run
        } else {
          false
        }
      if !same {
        return Divergence(
          position: position + 1, a: runA.map(a.reference), b: runB.map(b.reference))
      }
    }
    return nil
  }

  // MARK: - Matching

  /// For each action of `a`, the action of `b` that is the same work, if any.
  ///
  /// Within a group (scheduler, file, function), actions pair in scheduling order, line by line:
  /// when both traces schedule from as many lines, the k-th line of one with the k-th of the
  /// other (an edit moved them); otherwise equal lines pair, then the rest by rank if they are
  /// as many, else all the rest in scheduling order.
  private static func match(_ a: RecordedRuns, _ b: RecordedRuns) -> [Int?] {
    var matches = [Int?](repeating: nil, count: a.actions.count)
    for (group, inA) in a.groups {
      guard let inB = b.groups[group] else { continue }
      let byLineA = Dictionary(grouping: inA) { a.actions[$0].line }
      let byLineB = Dictionary(grouping: inB) { b.actions[$0].line }
      let (linesA, linesB) = (byLineA.keys.sorted(), byLineB.keys.sorted())
      var linePairs: [(Int, Int)] = []
      var rest: ([Int], [Int]) = ([], [])
      if linesA.count == linesB.count {
        linePairs = Array(zip(linesA, linesB))
      } else {
        let common = Set(linesA).intersection(linesB)
        linePairs = common.sorted().map { ($0, $0) }
        let leftA = linesA.filter { !common.contains($0) }
        let leftB = linesB.filter { !common.contains($0) }
        if leftA.count == leftB.count {
          linePairs += zip(leftA, leftB)
        } else {
          rest = (
            leftA.flatMap { byLineA[$0] ?? [] }.sorted(),
            leftB.flatMap { byLineB[$0] ?? [] }.sorted()
          )
        }
      }
      for (lineA, lineB) in linePairs {
        for (x, y) in zip(byLineA[lineA] ?? [], byLineB[lineB] ?? []) { matches[x] = y }
      }
      for (x, y) in zip(rest.0, rest.1) { matches[x] = y }
    }
    return matches
  }
}
