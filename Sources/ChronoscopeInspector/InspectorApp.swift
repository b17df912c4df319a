@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

/// The terminal inspector without a terminal: replay state plus UI state, driven by keys and
/// clock ticks, drawn into a ``ScreenGrid``.
///
/// ```swift
/// var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "busy-app.trace")
/// _ = app.handle(.character("n"))       // next event
/// print(app.render(width: 100, height: 30).plainText)
/// ```
///
/// Everything testable lives here; the terminal adapter only copies the grid and feeds keys.
@_spi(Benchmarks) public struct InspectorApp: Sendable {
  /// The replay.
  package internal(set) var replay: ReplayEngine
  /// The UI state.
  package internal(set) var state: InspectorState
  /// The trace's name in the header.
  package let name: String

  /// The smallest size the main view is drawn at.
  package static let minimumWidth = 60
  /// The smallest size the main view is drawn at.
  package static let minimumHeight = 16

  /// What the status bar says about a trace without a `close` line.
  package static let unclosedWarning =
    "the recording did not close: the process may have crashed or not called close(); the last moments may be missing"

  /// What the inspector derives from the replay and ``state``: lanes, indexes, the events in
  /// scope, the search's matches, the findings listed; see ``InspectorCache`` for what each is
  /// made from and when it is made again.
  var cache = InspectorCache()
  /// The strips' index for the grouping shown.
  var strips: StripIndex { cache.strips(state.grouping) }
  /// The lanes the panel shows (see ``InspectorCache/lanes``).
  var lanes: [Lane] { cache.lanes }
  /// What `FindingsAnalysis` found in the trace, by time, of every severity.
  package var findings: [Finding] { cache.findings }
  /// Whether the trace is being followed as another process writes it (`view --follow`).
  package private(set) var following = false
  /// The terminal's size, from the last ``InputKey/resize(width:height:)``; nil until one arrives
  /// (then no key is refused as on a too-small screen, and clicks have no place to land).
  package private(set) var screenSize: (width: Int, height: Int)?

  /// The keyframes, findings and lanes' indexes being made on other threads, until they are
  /// taken (``takePreparedWork()``).
  var preparation = InspectorPreparation()

  /// Makes an inspector at the start of the trace, with everything it shows made before it
  /// returns.
  ///
  /// - Parameter timeStep: How far `t`/`T` move; by default a fiftieth of the trace. A step
  ///   below 1 ns is taken as 1 ns.
  @_spi(Benchmarks) public init(replay: ReplayEngine, name: String, timeStep: Int64? = nil) {
    self.init(replay: replay, name: name, timeStep: timeStep, inTheBackground: false)
  }

  init(replay: ReplayEngine, name: String, timeStep: Int64?, inTheBackground: Bool) {
    self.replay = replay
    self.name = name
    state = InspectorState(timeStep: max(timeStep ?? max(replay.span / 50, 1_000), 1))
    if let crash = replay.crash {
      state.message =
        "the process \(crash.ending): the last events are what the recorder held then"
    } else if !replay.isClosed {
      state.message = Self.unclosedWarning
    }
    // The keyframes (if the replay has none yet: see `ReplayEngine.makeKeyframes`) and the
    // findings on other threads, the lanes' indexes on this one.
    startPreparing()
    refreshLanes()
    if !inTheBackground { finishPreparing() }
  }

  /// Starts making the keyframes and the findings of the replay on other threads; until
  /// ``takePreparedWork()`` takes the findings, the inspector says it is still looking.
  private mutating func startPreparing() {
    // The lanes shown first are indexed on this thread (`refreshLanes`); by scheduler and by thread,
    // which a key switches between within a frame, in the background meanwhile.
    let later = [InspectorState.Grouping.byScheduler, .byThread].filter { $0 != state.grouping }
    preparation.start(replay: replay, indexing: later)
  }

  // MARK: - Following a trace as it is written

  /// Whether the cursor is at the end of a followed trace, so that new events move it along.
  package var isLive: Bool { following && replay.position == replay.eventCount }

  /// Starts following the trace as it is written: the cursor goes to its end, and
  /// ``follow(_:)`` takes each newer read.
  package mutating func startFollowing() {
    following = true
    seek(time: replay.end)
  }

  /// Takes a newer read of the trace being followed: the UI state stays; the cursor moves to the
  /// new end when it was at the end (live), else it stays on its event (`G` goes live again).
  /// Findings, lanes and search matches are redone for the longer trace.
  package mutating func follow(_ newer: ReplayEngine) {
    let live = replay.position == replay.eventCount
    following = true
    let position = replay.position
    replay = newer
    cache.forgetReplay()
    if live {
      // The end `G` goes to: the close line's time once the recording has ended.
      replay.seek(to: replay.eventCount)
      state.clock = replay.end
    } else {
      replay.seek(to: min(position, replay.eventCount))
      state.clock = min(state.clock, replay.end)
    }
    // What was being made for the older read no longer applies: made again, for this one.
    startPreparing()
    refreshLanes()
    finishPreparing()
    if let search = state.search {
      cache.setMatches(SearchQuery(search).matches(in: replay), in: replay)
    }
  }

  // MARK: - Settings a command line can make

  /// Groups the lanes by scheduler, by thread or by task.
  package mutating func group(by grouping: InspectorState.Grouping) {
    state.grouping = grouping
    state.selection[.lanes] = 0
    refreshLanes()
  }

  /// Keeps only lanes whose names contain `text`; Pending, Running and Events follow.
  package mutating func filterLanes(_ text: String) {
    state.laneFilter = text
    state.selection[.lanes] = 0
    refreshLanes()
  }

  /// Orders the lanes: as the trace numbers them, by name, by activity or by findings. The
  /// selected lane stays selected.
  package mutating func orderLanes(by order: InspectorState.LaneOrder) {
    state.laneOrder = order
    reorderLanes()
    state.message =
      switch order {
      case .trace: "lanes in the trace's order"
      case .name: "lanes sorted by name"
      case .activity: "lanes sorted by activity: the most events in the trace first"
      case .findings: "lanes sorted by findings: the most first, then by activity"
      }
  }

  /// Hides the lanes idle in the strips' window (none of their events in it, and nothing of
  /// theirs pending or running at the cursor), or shows them again. The selected lane stays
  /// selected while it is shown.
  package mutating func hideIdleLanes(_ hide: Bool) {
    state.hidesIdleLanes = hide
    showLanes(again: true)
    state.message =
      hide
      ? "idle lanes hidden: no event in the window, nothing pending or running now"
      : "idle lanes shown"
  }

  /// Shows ``InspectorCache/orderedLanes``, less those idle in the strips' window while idle
  /// lanes are hidden: thinned again when the window or the cursor has moved since (or `again`),
  /// so a frame that moved neither costs nothing. The selected lane stays selected while it is shown.
  ///
  /// - Complexity: O(n log e) for n lanes of e events each, when thinned.
  mutating func showLanes(again: Bool = false, keepingSelection: Bool = true) {
    let window =
      state.hidesIdleLanes
      ? InspectorCache.IdleWindow(
        window: StripGeometry.window(clock: state.clock, span: state.laneSpan, end: replay.end),
        position: replay.position) : nil
    guard again || window != cache.thinnedFor else { return }
    cache.thinnedFor = window
    let selected =
      keepingSelection && !lanes.isEmpty
      ? lanes[min(state.selected(.lanes), lanes.count - 1)].key : nil
    let strips = self.strips  // looked up once, not once a lane
    cache.lanes =
      window.map { window in
        cache.orderedLanes.filter { !isIdle($0, in: window.window, strips: strips) }
      } ?? cache.orderedLanes
    if let selected, let row = lanes.firstIndex(where: { $0.key == selected }) {
      state.selection[.lanes] = row
    }
  }

  /// Opens the detail view of the action with trace id `id`; false if the trace has none.
  package mutating func showDetail(of id: ActionID) -> Bool {
    guard let action = replay.index(of: id) else { return false }
    state.mode = .detail(action: action, link: 0)
    return true
  }

  /// Moves the cursor to the instant that tells most about the action with trace id `id`, where
  /// `show --action` looks unless told otherwise: the begin of its last run; for work that never
  /// ran, its first finding's instant (where the finding's page puts the cursor), else its
  /// cancel, else its schedule. False if the trace has no such action.
  @discardableResult
  package mutating func seekToMostTellingInstant(of id: ActionID) -> Bool {
    guard let action = replay.index(of: id) else { return false }
    if let begin = replay.lastBegin(of: action, before: EventIndex(replay.eventCount)) {
      seek(index: begin.number)
    } else if let finding = findings.first(where: { $0.action == action }) {
      seek(time: finding.time)
    } else if let cancelled = replay.life(of: action).cancelledAt {
      seek(time: cancelled)
    } else {
      seek(index: replay.scheduleEvent(of: action).number)
    }
    showLanes()
    return true
  }

  private mutating func refreshLanes() {
    // Unless the background has made it (see `startPreparing`).
    if cache.stripIndexes[state.grouping] == nil {
      cache.stripIndexes[state.grouping] = StripIndex(replay, grouping: state.grouping)
    }
    state.selectedEvent = nil
    if cache.allLanes[state.grouping] == nil {
      cache.allLanes[state.grouping] = Lane.lanes(of: replay, grouping: state.grouping)
    }
    if cache.schedulerOrdinals == nil {
      let byScheduler =
        cache.allLanes[.byScheduler] ?? Lane.lanes(of: replay, grouping: .byScheduler)
      cache.allLanes[.byScheduler] = byScheduler
      var ordinals: [SchedulerID: Int] = [:]
      for lane in byScheduler {
        if case .scheduler(let scheduler) = lane.key, let ordinal = lane.ordinal {
          ordinals[scheduler] = ordinal
        }
      }
      cache.schedulerOrdinals = ordinals
    }
    let lanes = Lane.filtered(cache.allLanes[state.grouping] ?? [], by: state.laneFilter)
    cache.orderedLanes = order(lanes)
    showLanes(again: true, keepingSelection: false)
    let scope = Lane.scope(
      of: lanes, grouping: state.grouping, filtered: !state.laneFilter.isEmpty)
    cache.scope = scope
    cache.scopedEvents = scope.isEverything ? nil : strips.events(of: lanes, in: replay)
  }

  // MARK: - Input

  /// Whether the last known screen size is below the minimum, so the frame says "terminal too
  /// small" instead of the view.
  var isTooSmall: Bool {
    guard let screenSize else { return false }
    return screenSize.width < Self.minimumWidth || screenSize.height < Self.minimumHeight
  }

  /// Handles one key; returns false when the user quits.
  ///
  /// What the key does to the UI state is ``KeyHandler``'s to say; what it asks beyond that
  /// (``KeyEffect``: moving the replay, remaking the cache) is done here.
  @_spi(Benchmarks) public mutating func handle(_ key: InputKey) -> Bool {
    // Whatever the key moved, the lanes shown follow (see `showLanes`).
    defer { showLanes() }
    let handled = KeyHandler.handle(key, in: state, context: keyContext)
    state = handled.state
    return perform(handled.effect)
  }

  /// What ``KeyHandler`` needs to know of the replay, the cache and the screen now.
  private var keyContext: KeyHandler.Context {
    let links: [ActionIndex?] =
      switch state.mode {
      case .detail(let action, _): detailLinks(of: action).map(\.action)
      case .finding(let index, _): findingActions(index)
      case .blame(let action, _): blameLinks(of: action)
      case .main, .help, .findings: []
      }
    return KeyHandler.Context(
      isTooSmall: isTooSmall, end: replay.end, fittingSpan: fittingSpan,
      // The Events panel's selection is this app's to move (`moveEventSelection`).
      rowCount: state.focus != .events ? rowCount(state.focus) : 0,
      links: links, findingCount: cache.listedFindings.count,
      helpScrollLimit: state.mode == .help ? helpScrollLimit : 0, hasTasks: !replay.tasks.isEmpty)
  }

  /// Does what a key asked beyond its change of the UI state; false when the user quits.
  private mutating func perform(_ effect: KeyEffect) -> Bool {
    switch effect {
    case .none: break
    case .quit: return false
    case .resize(let width, let height): screenSize = (width, height)
    case .mouse(let event): return handleMouse(event)
    case .step(let forward): step(forward: forward)
    case .stepOnLane(let forward): stepOnLane(forward: forward)
    case .jumpToMark(let forward): jumpToMark(forward: forward)
    case .jumpToMatch(let forward): jumpToMatch(forward: forward)
    case .jumpToFinding(let forward): jumpToFinding(forward: forward)
    case .seekToEvent(let index): seek(index: index)
    case .seekToTime(let time): seek(time: time)
    case .submit(let prompt): submit(prompt)
    case .filterLanes(let text): filterLanes(text)
    case .clearMatches: cache.setMatches([], in: replay)
    case .group(let grouping): group(by: grouping)
    case .order(let order): orderLanes(by: order)
    case .hideIdleLanes(let hide): hideIdleLanes(hide)
    case .moveEventSelection(let delta): moveEventSelection(by: delta)
    case .openDetail: openDetail()
    case .showBlame(let action): showBlame(of: action)
    case .showBlameOfFinding(let index):
      if cache.listedFindings.indices.contains(index),
        let action = cache.listedFindings[index].action
      {
        showBlame(of: action)
      }
    case .openFinding(let index): openFinding(index)
    case .listFindings: cache.listFindings(showingInfo: state.showsInfoFindings)
    }
    return true
  }

  /// The actions a listed finding concerns: its own, then the others involved.
  func findingActions(_ index: Int) -> [ActionIndex] {
    guard cache.listedFindings.indices.contains(index) else { return [] }
    let finding = cache.listedFindings[index]
    return (finding.action.map { [$0] } ?? []) + finding.related
  }

  /// Shows why `action` was late, or says it never began late.
  private mutating func showBlame(of action: ActionIndex) {
    cache.shownBlame = (action, Self.reportedBlame(of: action, in: replay))
    guard !blameLinks(of: action).isEmpty else {
      state.message = "\(replay.action(action).id) never began late"
      return
    }
    state.history.append(state.mode)
    state.mode = .blame(action: action, link: 0)
  }

  /// Moves the cursor to a listed finding's instant and shows it.
  private mutating func openFinding(_ index: Int) {
    seek(time: cache.listedFindings[index].time)
    state.mode = .finding(index: index, link: 0)
  }

  private mutating func jumpToFinding(forward: Bool) {
    guard hasFindings else {
      state.message = "still looking for findings; try again in a moment"
      return
    }
    guard !cache.listedFindings.isEmpty else {
      let info = findings.count
      state.message =
        info == 0
        ? "no findings in this trace"
        : "no warnings or errors in this trace (! then i lists \(info) info finding\(info == 1 ? "" : "s"))"
      return
    }
    let now = state.clock
    let target =
      forward
      ? cache.listedFindings.firstIndex { $0.time > now }
      : cache.listedFindings.lastIndex { $0.time < now }
    guard let target else {
      state.message = "no \(forward ? "later" : "earlier") finding"
      return
    }
    state.history = []
    openFinding(target)
  }

  /// Advances playback by `elapsed` nanoseconds of wall time.
  package mutating func tick(elapsed: Int64) {
    guard state.playing else { return }
    state.selectedEvent = nil
    defer { showLanes() }
    let advance = Double(elapsed) * state.speed
    let step = advance.isFinite && advance < 9.2e18 ? Int64(max(advance, 0)) : .max
    state.clock = min(state.clock.adding(saturating: step), replay.end)
    replay.seek(toTime: state.clock)
    if state.clock >= replay.end {
      state.playing = false
      state.message = "end of trace"
    }
  }

  /// Carries out a prompt's line, entered.
  private mutating func submit(_ prompt: InspectorState.Prompt) {
    switch prompt {
    case .search(let text):
      guard !text.isEmpty else {
        state.search = nil
        cache.setMatches([], in: replay)
        return
      }
      state.search = text
      cache.setMatches(SearchQuery(text).matches(in: replay), in: replay)
      if cache.matches.isEmpty {
        state.message = "no match for \"\(text)\""
      } else {
        jumpToMatch(forward: true)
      }
    case .seek(let text):
      switch TimeText.target(text) {
      case .success(let target):
        if let problem = Self.problem(with: target, in: replay) {
          state.message = "@\(text)\(problem)"
        } else {
          seek(to: target)
        }
      case .failure(let error): state.message = error.description
      }
    case .filter(let text):
      filterLanes(text)
    }
  }

  /// Moves the cursor to a parsed seek target: a time, an event (`e0` is the start), or the
  /// moment an action was scheduled. False if the trace has no such action.
  @discardableResult
  @_spi(Benchmarks) public mutating func seek(to target: TimeText.Target) -> Bool {
    defer { showLanes() }
    switch target {
    case .time(let time): seek(time: time)
    case .event(let number): seek(index: number)
    case .action(let id):
      guard let action = replay.index(of: id) else { return false }
      seek(index: replay.scheduleEvent(of: action).number)
    }
    return true
  }

  /// What is wrong with a seek target outside the trace, to follow the text the user typed
  /// (`" is after the trace's end: it spans 0s to 1.2s"`), or nil for one inside it. `show --at`
  /// and the `@` prompt say the same.
  package static func problem(with target: TimeText.Target, in replay: ReplayEngine) -> String? {
    switch target {
    case .time(let time) where time > replay.end:
      " is after the trace's end: it spans 0s to \(TimeText.seconds(replay.end))"
    case .event(let number) where number > replay.eventCount:
      " is past the last event: the trace has events e1 to e\(replay.eventCount) (e0 is the start)"
    case .action(let id) where replay.index(of: id) == nil:
      ": the trace has no action \(id)"
    default: nil
    }
  }

  // MARK: - Moving

  /// Steps to the next or previous event; past the last one, `n` leaves the clock where it is
  /// (it may be at the trace's end, after the last event): it never moves it back.
  private mutating func step(forward: Bool) {
    state.playing = false
    state.selectedEvent = nil
    if forward, replay.position == replay.eventCount {
      state.message = "end of trace"
      return
    }
    if forward { replay.stepForward() } else { replay.stepBackward() }
    state.clock = replay.now
  }

  private mutating func seek(index: Int) {
    state.playing = false
    state.selectedEvent = nil
    replay.seek(to: index)
    state.clock = replay.now
  }

  private mutating func seek(time: Int64) {
    state.playing = false
    state.selectedEvent = nil
    state.clock = min(max(time, 0), replay.end)
    replay.seek(toTime: state.clock)
  }

  /// The strips' span that shows the whole trace, to its end (one more than that, so that
  /// halving an odd span does not leave its last nanosecond out).
  var fittingSpan: Int64 {
    min(
      max(replay.end.adding(saturating: 1), KeyHandler.laneSpans.lowerBound),
      KeyHandler.laneSpans.upperBound)
  }

  /// Moves to the next (or previous) of `events` after (before) the current event.
  ///
  /// - Complexity: that of two searches of `events`, and the seek.
  private mutating func jump(forward: Bool, in events: ScopedEvents) -> Bool {
    state.playing = false
    let found =
      forward
      ? events.first(atOrAfter: replay.position) : events.last(before: replay.position - 1)
    guard let found else { return false }
    seek(index: found.offset + 1)
    return true
  }

  private mutating func stepOnLane(forward: Bool) {
    guard !lanes.isEmpty else { return }
    let lane = lanes[min(state.selected(.lanes), lanes.count - 1)]
    if !jump(forward: forward, in: strips.events(of: [lane], in: replay)) {
      state.message = "no \(forward ? "later" : "earlier") event on \(lane.name)"
    }
  }

  private mutating func jumpToMark(forward: Bool) {
    if !jump(forward: forward, in: strips.marks) {
      state.message = "no \(forward ? "later" : "earlier") mark"
    }
  }

  private mutating func jumpToMatch(forward: Bool) {
    guard !cache.matches.isEmpty else {
      state.message = "no match for \"\(state.search ?? "")\""
      return
    }
    let current = EventIndex(replay.position - 1)
    let target =
      forward
      ? cache.matches.first { $0 > current } ?? cache.matches[0]
      : cache.matches.last { $0 < current } ?? cache.matches[cache.matches.count - 1]
    seek(index: target.number)
  }

  // MARK: - Selection

  /// Moves the Events panel's selection by `delta` rows: from the selected event, or else from
  /// the current one (before the first: none yet).
  private mutating func moveEventSelection(by delta: Int) {
    let count = rowCount(.events)
    guard count > 0 else { return }
    let from = state.selectedEvent.map { eventRow(before: $0.offset + 1) } ?? currentEventRow
    state.selectedEvent = scopedEvent(atRow: min(max(from + delta, 0), count - 1))
  }

  /// The Events panel's row of its last event before `position` (an offset in the whole trace),
  /// or -1 when none is.
  ///
  /// - Complexity: O(r log events) for r runs of the kept lanes' events (see `ScopedEvents`).
  func eventRow(before position: Int) -> Int {
    guard let scopedEvents = cache.scopedEvents else { return min(position, replay.eventCount) - 1 }
    return scopedEvents.count(before: position) - 1
  }

  /// The Events panel's row of the current event, or of the last event in scope before the
  /// cursor; -1 before the first.
  var currentEventRow: Int { eventRow(before: replay.position) }

  /// The event on a row of the Events panel.
  func scopedEvent(atRow row: Int) -> EventIndex {
    cache.scopedEvents?.event(atRow: row) ?? EventIndex(row)
  }

  /// The events on `rows` of the Events panel, each a row of it.
  func scopedEvents(onRows rows: Range<Int>) -> [EventIndex] {
    cache.scopedEvents?.events(onRows: rows) ?? rows.map { EventIndex($0) }
  }

  private func rowCount(_ panel: InspectorState.Panel) -> Int {
    switch panel {
    case .lanes: lanes.count
    case .pending: pendingCount
    case .running: runningActions.count
    case .events: cache.scopedEvents?.count ?? replay.eventCount
    }
  }

  /// Pending actions the panel shows: on the kept schedulers. Pending work is on no thread yet, so
  /// grouping by thread keeps all of it.
  var pendingCount: Int { replay.pendingCount(in: cache.scope.schedulers, of: cache.scope.tasks) }

  /// The `count` soonest-due pending actions the panel shows.
  func pendingActions(first count: Int) -> [ActionIndex] {
    replay.pending(first: count, in: cache.scope.schedulers, of: cache.scope.tasks)
  }

  /// Running actions the panel shows: on the kept schedulers, running on the kept threads, or work
  /// of the kept tasks.
  var runningActions: [ActionIndex] {
    replay.running(in: cache.scope.schedulers, on: cache.scope.threads, of: cache.scope.tasks)
  }

  /// The action the focused panel's selection points at.
  var selectedAction: ActionIndex? {
    switch state.focus {
    case .pending:
      let count = pendingCount
      guard count > 0 else { return nil }
      return pendingActions(first: min(state.selected(.pending), count - 1) + 1).last
    case .running:
      let running = runningActions
      return running.isEmpty ? nil : running[min(state.selected(.running), running.count - 1)]
    case .events:
      guard let event = state.selectedEvent else { return replay.currentEvent?.action }
      return replay.event(event).action
    case .lanes:
      return replay.currentEvent?.action
    }
  }

  private mutating func openDetail() {
    guard state.mode == .main else { return }
    if let action = selectedAction {
      state.history = []
      state.mode = .detail(action: action, link: 0)
    } else if state.focus == .events, let event = state.selectedEvent ?? replay.currentIndex {
      state.message =
        "e\(event.number) is a \(replay.event(event).kind.name): it belongs to no action"
    } else {
      state.message = "no action selected"
    }
  }
}
