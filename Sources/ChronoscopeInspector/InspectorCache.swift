@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay

/// What the inspector derives from its replay and its UI state, kept so that no frame or key
/// makes it again: the lanes and their indexes, the events in scope, the search's matches, the
/// findings listed and the blame page's account.
///
/// Nothing here is a choice of the user's (that is ``InspectorState``) nor the replay itself:
/// every entry can be made again from those two, and says below what it is made from and what
/// makes it stale. ``InspectorApp`` holds one and keeps it in step; a new read of a followed
/// trace drops what the older read made (``forgetReplay()``).
struct InspectorCache: Sendable {
  /// What the idle lanes were last found for: the strips' window and the cursor.
  struct IdleWindow: Equatable {
    let window: ClosedRange<Int64>
    let position: Int
  }

  /// The lanes the panel shows: ``orderedLanes`` less the idle ones while they are hidden.
  /// Made from ``orderedLanes``, the strips' window and the cursor; thinned again when
  /// ``thinnedFor`` no longer matches them, or the order, grouping or filter changes.
  var lanes: [Lane] = []
  /// Every lane of each grouping, numbered where titles repeat; made from the replay when a
  /// grouping is first shown, dropped with the replay.
  var allLanes: [InspectorState.Grouping: [Lane]] = [:]
  /// The number each scheduler whose label repeats has on its lane (`app.request.0 ·2`), which
  /// every panel's scheduler column shows too, so that a row can be told to its lane. Made from the
  /// lanes by scheduler; dropped with the replay.
  var schedulerOrdinals: [SchedulerID: Int]?
  /// The lanes after grouping and filter, in the chosen order: made from ``allLanes`` and the
  /// grouping, filter and order (``InspectorState``); made again when one of them changes, or
  /// the findings an order by findings counts.
  var orderedLanes: [Lane] = []
  /// The window and cursor ``lanes`` was last thinned for, while idle lanes are hidden; nil
  /// while they are shown.
  var thinnedFor: IdleWindow?
  /// What the lane filter keeps; Pending, Running and Events follow it. Made from the filtered
  /// lanes and the grouping whenever the lanes are made again.
  var scope = LaneScope.everything
  /// The events in scope, when a filter is on: the Events panel's rows. Made with ``scope``.
  var scopedEvents: ScopedEvents?
  /// Each lane's events by kind, for the strips, under each grouping: the one shown first made
  /// with the inspector, the other of by scheduler and by thread in the background after the
  /// findings (so that `v` does not wait once it is taken; asked for sooner, it is made then), by
  /// task when first asked for. Made from the replay alone; dropped with the replay.
  var stripIndexes: [InspectorState.Grouping: StripIndex] = [:]
  /// Events matching the search, in order: made from the search and the replay once when the
  /// search is submitted (see ``setMatches(_:in:)``), and again for a followed trace's newer
  /// read. `n`/`N` step through them, and the status bar counts them.
  private(set) var matches: [EventIndex] = []
  /// What the matching events belong to, for the status bar: `4 actions, 1 mark`. Made with
  /// ``matches``.
  private(set) var matchesOwners = ""
  /// What `FindingsAnalysis` found in the replay, by time, of every severity: made on another
  /// thread (see ``InspectorPreparation``), taken with ``setFindings(_:showingInfo:)``.
  private(set) var findings: [Finding] = []
  /// The findings listed with `!`, jumped to with `x`/`X` and marked on the lanes: the warnings
  /// and errors, and the info findings too when the user asks
  /// (``InspectorState/showsInfoFindings``). Made from ``findings`` and that choice, when either
  /// changes.
  private(set) var listedFindings: [Finding] = []
  /// The blame page's account, made once when it opens: it never depends on the cursor, and
  /// making it replays the trace up to the run's begin, which no frame or key should repeat.
  /// Dropped with the replay.
  var shownBlame: (action: ActionIndex, blame: LatenessBlame?)?

  /// The strips' index for `grouping`, or an empty one before it is made.
  func strips(_ grouping: InspectorState.Grouping) -> StripIndex {
    stripIndexes[grouping] ?? .empty
  }

  /// Takes the search's matches and finds what they belong to.
  ///
  /// - Complexity: O(`matches`).
  mutating func setMatches(_ matches: [EventIndex], in replay: ReplayEngine) {
    self.matches = matches
    matchesOwners = Self.owners(of: matches, in: replay)
  }

  /// Takes the findings of the replay and lists those shown.
  mutating func setFindings(_ findings: [Finding], showingInfo: Bool) {
    self.findings = findings
    listFindings(showingInfo: showingInfo)
  }

  /// Lists the findings shown: warnings and errors, and info ones when asked for.
  mutating func listFindings(showingInfo: Bool) {
    listedFindings = showingInfo ? findings : findings.filter { $0.severity > .info }
  }

  /// Drops what only the replay it was made from had: the indexes, the lanes of each grouping,
  /// the schedulers' numbers and the blame page's account. The rest is made again by the app, from
  /// the new replay, as it takes it.
  mutating func forgetReplay() {
    shownBlame = nil
    stripIndexes = [:]
    allLanes = [:]
    schedulerOrdinals = nil
  }

  /// `4 actions, 1 mark`: the distinct actions and the marks among `events`.
  ///
  /// - Complexity: O(`events`).
  static func owners(of events: [EventIndex], in replay: ReplayEngine) -> String {
    var actions = Set<ActionIndex>()
    var marks = 0
    for index in events {
      let event = replay.event(index)
      if let action = event.action {
        actions.insert(action)
      } else if event.kind == .mark {
        marks += 1
      }
    }
    var parts: [String] = []
    if !actions.isEmpty {
      parts.append(actions.count == 1 ? "1 action" : "\(actions.count) actions")
    }
    if marks > 0 { parts.append(marks == 1 ? "1 mark" : "\(marks) marks") }
    return parts.joined(separator: ", ")
  }
}
