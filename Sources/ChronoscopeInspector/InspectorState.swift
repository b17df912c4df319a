import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay

/// What the inspector's user has chosen: view, focus, selection, playback, search, filter.
package struct InspectorState: Sendable, Equatable {
  /// Which screen is showing.
  package enum Mode: Sendable, Equatable {
    /// Lanes, pending, running and the event log.
    case main
    /// One action's whole life; `link` is the selected related action (parent, children…).
    case detail(action: ActionIndex, link: Int)
    /// The list of keys.
    case help
    /// Every finding, one a row; `selected` is the highlighted one.
    case findings(selected: Int)
    /// One finding: its explanation and the actions involved; `link` is the selected action.
    case finding(index: Int, link: Int)
    /// Why an action's worst run began late: what held it up, stretch by stretch; `link` is the
    /// selected stretch.
    case blame(action: ActionIndex, link: Int)
  }

  /// Which panel `j`/`k` and Enter act on.
  package enum Panel: Int, Sendable, CaseIterable {
    case lanes, pending, running, events
  }

  /// A line being typed at the bottom of the screen.
  package enum Prompt: Sendable, Equatable {
    case search(String)
    case seek(String)
    case filter(String)
  }

  /// How lanes are grouped: by scheduler (a scheduler, an actor, a clock), by thread, or by Swift task —
  /// the last only for a trace whose recording named tasks.
  package enum Grouping: Sendable, Equatable {
    case byScheduler, byThread, byTask

    /// How the lanes panel's title says it.
    var title: String {
      switch self {
      case .byScheduler: "by scheduler"
      case .byThread: "by thread"
      case .byTask: "by task"
      }
    }
  }

  /// How the lanes are ordered; `o` turns to the next.
  package enum LaneOrder: Sendable, Equatable, CaseIterable {
    /// As the trace numbers them: schedulers, threads and tasks by id.
    case trace
    /// By title, ignoring case; lanes of one title by id.
    case name
    /// Most events in the whole trace first: not in the window, so that the order stays put
    /// while the cursor moves.
    case activity
    /// Most findings first (a finding counts on the lane of its action: its scheduler, its task, or
    /// the thread its last run began on), then by activity.
    case findings

    /// How the lanes panel's title says it; nil for the trace's order.
    var title: String? {
      switch self {
      case .trace: nil
      case .name: "sorted by name"
      case .activity: "sorted by activity"
      case .findings: "sorted by findings"
      }
    }
  }

  /// The screen showing.
  package var mode: Mode = .main
  /// The views Esc and Backspace walk back through (details, findings), most recent last.
  package var history: [Mode] = []
  /// The panel that `j`/`k` and Enter act on.
  package var focus: Panel = .lanes
  /// The selected row of each panel but Events, which selects ``selectedEvent``.
  package var selection: [Panel: Int] = [:]
  /// The event `j`/`k` (or a click) selected in the Events panel; nil while the panel follows
  /// the cursor, as it does again once the cursor moves.
  package var selectedEvent: EventIndex?
  /// The line being typed, if any.
  package var prompt: Prompt?
  /// Lanes by scheduler, by thread or by task.
  package var grouping: Grouping = .byScheduler
  /// Lanes whose names contain this (case-insensitively); empty for all. Pending, Running and
  /// Events follow it.
  package var laneFilter = ""
  /// The lanes' order (`o`).
  package var laneOrder: LaneOrder = .trace
  /// Whether idle lanes are hidden (`h`): a lane is idle when none of its events falls in the
  /// strips' window and nothing of it is pending or running at the cursor.
  package var hidesIdleLanes = false
  /// The active search, if any; `n`/`N` then move between its matches.
  package var search: String?
  /// Whether the replay is playing.
  package var playing = false
  /// Playback speed: trace time per wall time.
  package var speed: Double = 1
  /// Trace time at the cursor: the current event's time after a step, or any instant between
  /// events after a time seek or during playback.
  package var clock: Int64 = 0
  /// How far `t`/`T` move, in ns.
  package var timeStep: Int64
  /// How much trace time the lane strips show, in ns (`z`/`Z` zoom).
  package var laneSpan: Int64
  /// A one-line message for the status bar.
  package var message: String?
  /// Whether the findings list, `x`/`X` and the lanes' marks take in info findings too (what
  /// is true but not wrong, such as a cancel of a timer that already fired); `i` in the list.
  package var showsInfoFindings = false
  /// The help's first row on screen: `j`/`k` and the page keys scroll it where the screen is
  /// shorter than the help.
  package var helpScroll = 0

  /// Makes the initial state.
  package init(timeStep: Int64) {
    self.timeStep = timeStep
    laneSpan = max(timeStep.multiplied(saturating: 4), 1_000)
  }

  /// The selected row of `panel`.
  package func selected(_ panel: Panel) -> Int { selection[panel] ?? 0 }
}

extension InspectorState.Mode {
  /// The same view with another related action selected.
  func selecting(_ link: Int) -> Self {
    switch self {
    case .detail(let action, _): .detail(action: action, link: link)
    case .finding(let index, _): .finding(index: index, link: link)
    case .blame(let action, _): .blame(action: action, link: link)
    case .main, .help, .findings: self
    }
  }
}
