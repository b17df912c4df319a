import ChronoscopeCore
import ChronoscopeTraceFormat

// What an action is across recordings of the same program, whatever its id: the one identity
// `chronoscope diff` matches actions by and a replay (ChronoscopeReplayTesting) follows a
// recorded order by (docs/Diff.md).

/// What an action is, independent of its id: its scheduler's label, its call site, and which of the
/// actions its function scheduled on that scheduler it is.
package struct ActionKey: Hashable, Sendable, Comparable {
  /// The label of the scheduler it was scheduled on.
  package var scheduler: String
  /// Its call site as `file:line function`, or "" without one.
  package var site: String
  /// Which action its function scheduled on this scheduler it is, from 1, in scheduling order.
  package var occurrence: Int

  package init(scheduler: String, site: String, occurrence: Int) {
    self.scheduler = scheduler
    self.site = site
    self.occurrence = occurrence
  }

  package static func < (lhs: ActionKey, rhs: ActionKey) -> Bool {
    (lhs.scheduler, lhs.site, lhs.occurrence) < (rhs.scheduler, rhs.site, rhs.occurrence)
  }

  /// `#12 net (Loader.swift:40 load()) occurrence 3`: the action `id` of its own trace, as
  /// `diff` and a replay's report word it.
  package func text(id: Int) -> String {
    "#\(id) \(scheduler) (\(site.isEmpty ? "no call site" : site)) occurrence \(occurrence)"
  }
}

/// Actions that one function scheduled on one scheduler: matched as one sequence.
package struct ActionGroup: Hashable, Sendable {
  package var scheduler: String
  package var file: String
  package var function: String
}

/// Gives actions their ``ActionKey`` in scheduling order.
///
/// ```swift
/// var numbering = ActionKeyNumbering()
/// numbering.key(scheduler: "net", site: ("App/Loader.swift", 40, "load()")).key.occurrence  // 1
/// numbering.key(scheduler: "net", site: ("App/Loader.swift", 44, "load()")).key.occurrence  // 2
/// ```
package struct ActionKeyNumbering: Sendable {
  private var counts: [ActionGroup: Int] = [:]

  package init() {}

  /// The key and group of the next action scheduled on `scheduler` from `site` (file, line,
  /// function; nil when the trace has no call site for it).
  ///
  /// - Complexity: O(1) amortized.
  package mutating func key(scheduler: String, site: (file: String, line: Int, function: String)?)
    -> (key: ActionKey, group: ActionGroup)
  {
    let group = ActionGroup(
      scheduler: scheduler, file: site?.file ?? "", function: site?.function ?? "")
    let occurrence = counts[group, default: 0] + 1
    counts[group] = occurrence
    let text =
      site.map { CallSiteRecord.text(file: $0.file, line: $0.line, function: $0.function) } ?? ""
    return (ActionKey(scheduler: scheduler, site: text, occurrence: occurrence), group)
  }
}

/// One action of one run (a trace, or the code a replay runs).
package struct ActionReference: Sendable, Equatable {
  package var key: ActionKey
  package var id: ActionID
  /// When it was scheduled, from the run's origin (ns).
  package var scheduledAt: Int64

  package init(_ key: ActionKey, id: ActionID, scheduledAt: Int64) {
    self.key = key
    self.id = id
    self.scheduledAt = scheduledAt
  }
}

/// A run of an action at a position of the begin order.
package struct RunReference: Sendable, Equatable {
  package var action: ActionReference
  /// Which run of the action, from 1.
  package var run: Int
  /// When it began, from the run's origin (ns).
  package var began: Int64

  package init(_ action: ActionReference, run: Int, began: Int64) {
    self.action = action
    self.run = run
    self.began = began
  }
}

/// How `diff` and a replay word their first divergence: a heading, then a line for each side.
package enum DivergenceText {
  /// `first divergence at run 5 in begin order:`.
  package static func heading(position: Int) -> String {
    "first divergence at run \(position) in begin order:"
  }

  /// `ran #3 search.network (…) occurrence 1, run 1, at 0.023105s`, or `ran nothing more` for a
  /// side that had no more runs (`run` nil).
  package static func ran(_ run: (action: String, number: Int, began: Int64)?) -> String {
    guard let run else { return "ran nothing more" }
    return "ran \(run.action), run \(run.number), at \(TimeText.seconds(run.began))"
  }
}

/// One trace's actions, their groups, their runs, and the order runs began in: what `diff`
/// compares, and the schedule a replay follows.
package struct RecordedRuns: Sendable {
  package struct Action: Sendable {
    package var reference: ActionReference
    /// Its call site's line; -1 without a call site.
    package var line: Int
    /// Its runs' times from the origin, in the order they began.
    package var runs: [(began: Int64, ended: Int64?)] = []
  }
  /// In scheduling order (the replay's action order).
  package var actions: [Action] = []
  /// Each group's actions, in scheduling order.
  package var groups: [ActionGroup: [Int]] = [:]
  /// (action, run index) in begin order.
  package var begins: [(action: Int, run: Int)] = []

  /// The actions of `replay`, their times counted from `origin` (ns in its own time).
  package init(_ replay: ReplayEngine, origin: Int64) {
    actions.reserveCapacity(replay.actionCount)
    var numbering = ActionKeyNumbering()
    for action in replay.actionIndices {
      let info = replay.action(action)
      let scheduler =
        replay.scheduler(info.scheduler)?.label ?? "scheduler \(info.scheduler.rawValue)"
      let callSite = replay.callSite(of: action)
      let (key, group) = numbering.key(
        scheduler: scheduler, site: callSite.map { ($0.file, $0.line, $0.function) })
      groups[group, default: []].append(actions.count)
      actions.append(
        Action(
          reference: ActionReference(
            key, id: info.id, scheduledAt: info.scheduledAt.subtracting(saturating: origin)),
          line: callSite?.line ?? -1))
    }
    for position in replay.eventIndices {
      let event = replay.event(position)
      guard let action = event.action?.int, action < actions.count else { continue }
      let time = event.time.subtracting(saturating: origin)
      switch event.kind {
      case .begin:
        begins.append((action, actions[action].runs.count))
        actions[action].runs.append((time, nil))
      case .end:
        // An end closes the action's latest open run.
        if let last = actions[action].runs.indices.last, actions[action].runs[last].ended == nil {
          actions[action].runs[last].ended = time
        }
      default:
        break
      }
    }
  }

  package func reference(_ begin: (action: Int, run: Int)) -> RunReference {
    RunReference(
      actions[begin.action].reference, run: begin.run + 1,
      began: actions[begin.action].runs[begin.run].began)
  }
}

extension ReplayEngine {
  /// The time of the first event, where a trace's times count from by default.
  package var firstEventTime: Int64 {
    eventCount > 0 ? event(EventIndex(0)).time : 0
  }
}
