import Replay
import TraceFormat

/// What differs between two recordings of the same program — "expected" and "actual".
///
/// Action ids are handed out in scheduling order, so they shift as soon as one run schedules one
/// thing more; the diff lines actions up by what they are instead: their queue's label, their
/// call site, and which occurrence of that pair they are (the third action scheduled from
/// `Loader.swift:12` on `net`). Then it reports
/// - the first divergence in the order runs began: the first place where one trace ran something
///   else than the other (or ran out of runs);
/// - the actions only one trace has;
/// - the matched actions whose timing differs by more than a tolerance: when they were scheduled,
///   when each run began, how long it ran, how many times they ran.
///
/// Times are compared from each trace's own start. Two virtual-clock recordings of the same
/// program are identical, so with no tolerance their diff is exact.
public struct TraceDiff: Sendable {
  /// What an action is, independent of its id.
  public struct ActionKey: Hashable, Sendable, Comparable {
    /// The label of the queue it was scheduled on.
    public var queue: String
    /// Its call site as `file:line function`, or "" without one.
    public var site: String
    /// Which action with this queue and site it is, from 1, in scheduling order.
    public var occurrence: Int

    public static func < (lhs: ActionKey, rhs: ActionKey) -> Bool {
      (lhs.queue, lhs.site, lhs.occurrence) < (rhs.queue, rhs.site, rhs.occurrence)
    }
  }

  /// One action of one trace.
  public struct ActionReference: Sendable, Equatable {
    public var key: ActionKey
    public var id: ActionID
    /// When it was scheduled, from the trace's start.
    public var scheduledAt: Int64
  }

  /// A run of one trace at a position of the begin order.
  public struct RunReference: Sendable, Equatable {
    public var action: ActionReference
    /// Which run of the action, from 1.
    public var run: Int
    public var began: Int64
  }

  /// The first position in the begin order where the traces ran different things; a side is
  /// nil when that trace had no more runs.
  public struct Divergence: Sendable, Equatable {
    /// The position in the begin order, from 1.
    public var position: Int
    public var a: RunReference?
    public var b: RunReference?
  }

  /// One timing figure of a matched action that differs beyond the tolerance.
  public struct TimingDifference: Sendable, Equatable {
    public enum Aspect: Sendable, Equatable {
      case scheduled
      case began(run: Int)
      case duration(run: Int)
      case runs
    }
    public var a: ActionReference
    public var bID: ActionID
    public var aspect: Aspect
    /// The figure in each trace: times and durations in ns, or run counts.
    public var valueA: Int64
    public var valueB: Int64
    /// `valueB - valueA`, saturating.
    public var delta: Int64 { valueB.subtracting(saturating: valueA) }
  }

  public let firstDivergence: Divergence?
  /// Actions only the first trace has, in scheduling order.
  public let onlyInA: [ActionReference]
  /// Actions only the second trace has, in scheduling order.
  public let onlyInB: [ActionReference]
  /// Timing differences beyond the tolerance, in the first trace's scheduling order.
  public let timing: [TimingDifference]
  /// The tolerance it was made with, in ns.
  public let tolerance: Int64

  /// Whether nothing differs.
  public var isSame: Bool {
    firstDivergence == nil && onlyInA.isEmpty && onlyInB.isEmpty && timing.isEmpty
  }

  /// Compares `a` (expected) with `b` (actual); timing within `tolerance` ns counts as equal.
  public init(_ a: ReplayEngine, _ b: ReplayEngine, tolerance: Int64 = 0) {
    self.tolerance = max(0, tolerance)
    let sideA = Side(a)
    let sideB = Side(b)
    firstDivergence = Self.divergence(sideA, sideB)
    onlyInA = sideA.actions.filter { sideB.index[$0.reference.key] == nil }.map(\.reference)
    onlyInB = sideB.actions.filter { sideA.index[$0.reference.key] == nil }.map(\.reference)
    var timing: [TimingDifference] = []
    for action in sideA.actions {
      guard let other = sideB.index[action.reference.key].map({ sideB.actions[$0] }) else {
        continue
      }
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

  private static func divergence(_ a: Side, _ b: Side) -> Divergence? {
    for position in 0..<max(a.begins.count, b.begins.count) {
      let runA = position < a.begins.count ? a.run(at: position) : nil
      let runB = position < b.begins.count ? b.run(at: position) : nil
      if runA?.action.key != runB?.action.key || runA?.run != runB?.run {
        return Divergence(position: position + 1, a: runA, b: runB)
      }
    }
    return nil
  }

  /// One trace's actions by key, their runs, and the order runs began in.
  private struct Side {
    struct Action {
      var reference: ActionReference
      var runs: [(began: Int64, ended: Int64?)] = []
    }
    /// In scheduling order (the replay's action order).
    var actions: [Action] = []
    var index: [ActionKey: Int] = [:]
    /// (action, run index) in begin order.
    var begins: [(action: Int, run: Int)] = []

    init(_ replay: ReplayEngine) {
      var occurrences: [String: [String: Int]] = [:]
      actions.reserveCapacity(replay.actionCount)
      for action in replay.actionIndices {
        let info = replay.action(action)
        let queue = replay.queue(info.queue)?.label ?? "queue \(info.queue.rawValue)"
        let site = replay.callSite(of: action).map { "\($0.file):\($0.line) \($0.function)" } ?? ""
        var count = occurrences[queue, default: [:]][site, default: 0]
        count += 1
        occurrences[queue, default: [:]][site] = count
        let key = ActionKey(queue: queue, site: site, occurrence: count)
        index[key] = actions.count
        actions.append(
          Action(reference: ActionReference(key: key, id: info.id, scheduledAt: info.scheduledAt)))
      }
      for position in replay.eventIndices {
        let event = replay.event(position)
        guard let action = event.action?.int, action < actions.count else { continue }
        switch event.kind {
        case .begin:
          begins.append((action, actions[action].runs.count))
          actions[action].runs.append((event.time, nil))
        case .end:
          // An end closes the action's latest open run.
          if let last = actions[action].runs.indices.last, actions[action].runs[last].ended == nil {
            actions[action].runs[last].ended = event.time
          }
        default:
          break
        }
      }
    }

    func run(at position: Int) -> RunReference {
      let (action, run) = begins[position]
      return RunReference(
        action: actions[action].reference, run: run + 1, began: actions[action].runs[run].began)
    }
  }
}
