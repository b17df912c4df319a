@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// What differs between an expected (A) and an actual (B) recording as `chronoscope diff`
/// reports it: the document `diff --json` prints (schema `chronoscope-diff`, docs/Diff.md),
/// made from a ``TraceDiff``, and its text (``textLines(shown:)``).
///
/// ```swift
/// let report = DiffReport(TraceDiff(expected, actual, tolerance: 1_000_000), a: "a.trace", b: "b.trace")
/// FileHandle.standardOutput.write(Data(report.json()))
/// let back = try JSONDecoder().decode(DiffReport.self, from: Data(report.json()))
/// ```
package struct DiffReport: Codable, Sendable, Equatable {
  /// `chronoscope-diff`.
  package var schema = DiffReport.schemaName
  /// The schema's version; a newer version only adds fields.
  package var version = DiffReport.currentVersion
  /// The expected and the actual trace's names, as given.
  package var a: String
  package var b: String
  /// Whether the traces do not differ.
  package var same: Bool
  /// Timing differences up to this much (ns) count as equal.
  package var toleranceNanoseconds: Int64
  /// What times count from: `first-event` or `mark`.
  package var origin: String
  /// The mark's name, when ``origin`` is `mark`.
  package var originMark: String?
  /// Where each trace's origin is, in its own time (ns).
  package var originANanoseconds: Int64
  package var originBNanoseconds: Int64
  /// The first place where the runs differ in begin order.
  package var firstDivergence: Divergence?
  /// Actions only one trace has.
  package var onlyInA: [Action]
  package var onlyInB: [Action]
  /// Timing figures that differ beyond the tolerance.
  package var timing: [Timing]

  /// The value of ``schema``.
  package static let schemaName = "chronoscope-diff"
  /// The value of ``version`` this library writes.
  package static let currentVersion = 2

  /// An action, by what matches it across traces: its scheduler, call site and occurrence.
  package struct Action: Codable, Sendable, Equatable {
    /// Its id in its own trace.
    package var action: Int
    package var scheduler: String
    /// `file:line function`, or empty when the trace has no call site for it.
    package var site: String
    /// Which of the actions its function scheduled on the scheduler (from 1).
    package var occurrence: Int
    package var scheduledNanoseconds: Int64

    enum CodingKeys: String, CodingKey {
      case action, scheduler, site, occurrence
      case scheduledNanoseconds = "scheduled_ns"
    }
  }

  /// One run of an action.
  package struct Run: Codable, Sendable, Equatable {
    package var action: Action
    /// The run's number (from 1).
    package var run: Int
    package var beganNanoseconds: Int64

    enum CodingKeys: String, CodingKey {
      case action, run
      case beganNanoseconds = "began_ns"
    }
  }

  /// The first place where the runs differ: the run each trace began there, absent when that
  /// trace had no more runs.
  package struct Divergence: Codable, Sendable, Equatable {
    /// The position in the begin order, from 1.
    package var position: Int
    package var a: Run?
    package var b: Run?
  }

  /// One timing figure of a matched action that differs beyond the tolerance.
  package struct Timing: Codable, Sendable, Equatable {
    /// The action, as trace A has it, and its id in trace B.
    package var action: Action
    package var actionB: Int
    /// `scheduled`, `began`, `duration` or `runs`.
    package var aspect: String
    /// The run's number, for `began` and `duration`.
    package var run: Int?
    /// The figure in each trace: times (from each trace's origin) and durations in ns, or run
    /// counts.
    package var a: Int64
    package var b: Int64

    enum CodingKeys: String, CodingKey {
      case action, aspect, run, a, b
      case actionB = "action_b"
    }
  }

  enum CodingKeys: String, CodingKey {
    case schema, version, a, b, same, origin, timing
    case toleranceNanoseconds = "tolerance_ns"
    case originMark = "origin_mark"
    case originANanoseconds = "origin_a_ns"
    case originBNanoseconds = "origin_b_ns"
    case firstDivergence = "first_divergence"
    case onlyInA = "only_in_a"
    case onlyInB = "only_in_b"
  }

  /// The report of `diff`, whose traces are named `a` and `b`.
  package init(_ diff: TraceDiff, a: String, b: String) {
    self.a = a
    self.b = b
    same = diff.isSame
    toleranceNanoseconds = diff.tolerance
    switch diff.origin {
    case .firstEvent: origin = "first-event"
    case .mark(let name):
      origin = "mark"
      originMark = name
    }
    originANanoseconds = diff.originA
    originBNanoseconds = diff.originB
    firstDivergence = diff.firstDivergence.map {
      Divergence(position: $0.position, a: $0.a.map(Run.init), b: $0.b.map(Run.init))
    }
    onlyInA = diff.onlyInA.map(Action.init)
    onlyInB = diff.onlyInB.map(Action.init)
    timing = diff.timing.map(Timing.init)
  }
}

extension DiffReport.Action {
  package init(_ action: ActionReference) {
    self.init(
      action: Int(action.id.rawValue), scheduler: action.key.scheduler, site: action.key.site,
      occurrence: action.key.occurrence, scheduledNanoseconds: action.scheduledAt)
  }
}

extension DiffReport.Run {
  package init(_ run: RunReference) {
    self.init(action: DiffReport.Action(run.action), run: run.run, beganNanoseconds: run.began)
  }
}

extension DiffReport.Timing {
  init(_ difference: TraceDiff.TimingDifference) {
    action = DiffReport.Action(difference.a)
    actionB = Int(difference.bID.rawValue)
    a = difference.valueA
    b = difference.valueB
    switch difference.aspect {
    case .scheduled: aspect = "scheduled"
    case .began(let run):
      aspect = "began"
      self.run = run
    case .duration(let run):
      aspect = "duration"
      self.run = run
    case .runs: aspect = "runs"
    }
  }
}

extension DiffReport.Divergence {
  /// The divergence at `position` (from 1) in begin order, where `a` and `b` ran those runs.
  package init(at position: Int, a: DiffReport.Run?, b: DiffReport.Run?) {
    self.init(position: position, a: a, b: b)
  }
}
