@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

extension InspectorApp {
  /// Draws the current view at the given size: each panel from what it shows, made from the
  /// state and the cache.
  ///
  /// - Parameters:
  ///   - colors: False for monochrome (attributes only), as with `NO_COLOR`.
  ///   - keyHints: False to leave out the key hints in the status bar (for `show`'s text, where
  ///     they are noise in a bug report).
  @_spi(Benchmarks) public func render(
    width: Int, height: Int, colors: Bool = true, keyHints: Bool = true
  )
    -> ScreenGrid
  {
    var grid = ScreenGrid(width: width, height: height)
    let theme = Theme(colors: colors)
    guard grid.width >= Self.minimumWidth, grid.height >= Self.minimumHeight else {
      TooSmallPanel(minimumWidth: Self.minimumWidth, minimumHeight: Self.minimumHeight)
        .draw(into: &grid, theme: theme)
      return grid
    }
    headerPanel.draw(into: &grid, theme: theme)
    switch state.mode {
    case .main: drawMain(&grid, theme, PanelLayout(width: grid.width))
    case .detail(let action, let link):
      detailPanel(of: action, link: link).draw(into: &grid, theme: theme)
    case .help: helpPanel.draw(into: &grid, theme: theme)
    case .findings(let selected):
      findingsListPanel(selected: selected, height: grid.height).draw(into: &grid, theme: theme)
    case .finding(let index, let link):
      findingPanel(index: index, link: link)?.draw(into: &grid, theme: theme)
    case .blame(let action, let link):
      blamePanel(of: action, link: link)?.draw(into: &grid, theme: theme)
    }
    let row = grid.height - 1
    for (column, cell) in statusBar(keyHints: keyHints).cells(
      width: grid.width, style: theme.status
    )
    .enumerated() {
      grid[row, column] = cell
    }
    return grid
  }

  // MARK: - Header and status

  /// What the header says now.
  var headerPanel: HeaderPanel {
    HeaderPanel(
      name: name, clock: state.clock, end: replay.end, position: replay.position,
      eventCount: replay.eventCount, playing: state.playing, speed: state.speed,
      isVirtualClock: replay.header.clock == .virtual,
      following: !following ? nil : replay.isClosed ? .ended : isLive ? .live : .behind,
      // Warnings and errors: info findings say nothing is wrong.
      findingCount: hasFindings ? findings.count { $0.severity > .info } : nil,
      ending: following && !replay.isClosed
        ? nil
        // Ctrl-C or `kill` stopped a process; it did not crash (validate and check say the same).
        : replay.crash.map { $0.isStop ? .stopped(signal: $0.signal) : .crashed(signal: $0.signal) }
          ?? (replay.isClosed ? nil : .notClosed))
  }

  /// The key hints, most useful first; `? help` and `q quit` are always shown.
  private var keyHints: [String] {
    switch state.mode {
    case .main:
      [
        "space play", "n/p step", "⏎ detail", "x/X finding", "! findings", "/ search", "@ seek",
        "f filter", "v lanes", "tab panel", "[/] lane", "m/M mark", "z/Z/0 zoom",
        "t/T ±\(TimeText.duration(state.timeStep))",
        "g/G ends",
      ]
    case .detail, .finding: ["j/k select", "⏎ follow", "w why late", "esc back"]
    case .blame: ["j/k select", "⏎ follow", "esc back"]
    case .findings: ["j/k select", "⏎ open", "i info", "esc back"]
    case .help: ["j/k scroll", "esc back"]
    }
  }

  /// What the status bar says now; `keyHints` false leaves every hint out.
  func statusBar(keyHints: Bool) -> StatusBar {
    StatusBar(
      prompt: state.prompt, message: state.message,
      search: state.search.map { search in
        StatusBar.Search(
          text: search,
          current: replay.currentIndex.flatMap { cache.matches.firstIndex(of: $0) },
          count: cache.matches.count, owners: cache.matchesOwners)
      },
      keyHints: keyHints ? self.keyHints : nil)
  }

  // MARK: - Main view

  func mainRows(height: Int, pendingCount: Int, runningCount: Int) -> MainRows {
    let body = height - 2  // header and status
    let laneRows = min(max(lanes.count, 1), max(3, body / 4))
    let runningRows = min(max(runningCount, 1), 3)
    let markRows = strips.hasMarks ? 1 : 0
    // Four titles and the time axis.
    let remaining = body - 5 - laneRows - runningRows - markRows
    let pendingRows = max(min(max(pendingCount, 1), remaining / 2), 1)
    let eventRows = max(remaining - pendingRows, 1)
    let lanes = 2..<(2 + laneRows)
    let axis = lanes.upperBound + markRows
    let pending = (axis + 2)..<(axis + 2 + pendingRows)
    let running = (pending.upperBound + 1)..<(pending.upperBound + 1 + runningRows)
    let events = (running.upperBound + 1)..<(running.upperBound + 1 + eventRows)
    return MainRows(
      lanes: lanes, marks: markRows > 0 ? lanes.upperBound : nil, axis: axis, pending: pending,
      running: running, events: events)
  }

  /// The lanes on screen, in `rows` rows around the selected one.
  func visibleLanes(rows: Int) -> Range<Int> {
    VisibleRows.around(
      min(state.selected(.lanes), lanes.count - 1), count: lanes.count, rows: rows)
  }

  /// The pending actions the panel's `rows` rows can show around the selected one: only the
  /// soonest-due up to the visible window are ordered, as the pending set may be huge.
  func visiblePending(count pendingCount: Int, rows: Int) -> (
    actions: [ActionIndex], rows: Range<Int>
  ) {
    let pending = pendingActions(
      first: min(pendingCount, state.selected(.pending) + rows + 1))
    let selected = min(state.selected(.pending), pending.count - 1)
    return (pending, VisibleRows.around(selected, count: pending.count, rows: rows))
  }

  /// The Events panel's rows on screen: around the selected event, or else the current one.
  func visibleEvents(rows: Int) -> Range<Int> {
    let anchor = state.selectedEvent.map { eventRow(before: $0.offset + 1) } ?? currentEventRow
    return VisibleRows.around(
      max(anchor, 0), count: cache.scopedEvents?.count ?? replay.eventCount, rows: rows)
  }

  /// Draws the main view: the lanes, Pending, Running and Events, each from what it shows.
  private func drawMain(_ grid: inout ScreenGrid, _ theme: Theme, _ layout: PanelLayout) {
    let pendingCount = self.pendingCount
    let running = runningActions
    let rows = mainRows(
      height: grid.height, pendingCount: pendingCount, runningCount: running.count)
    lanesPanel(width: grid.width, layout: layout, rows: rows).draw(
      into: &grid, theme: theme, rows: rows)
    let pendingTitle =
      state.grouping == .byThread && !state.laneFilter.isEmpty
      ? "Pending, all schedulers (not on a thread yet)" : "Pending"
    let pending = visiblePending(count: pendingCount, rows: rows.pending.count)
    let selectedPending = min(state.selected(.pending), pending.actions.count - 1)
    actionRowsPanel(
      title: panelTitle(pendingTitle, count: pendingCount, panel: .pending), layout,
      empty: "nothing pending",
      rows: pending.rows.map { index in
        let action = pending.actions[index]
        let info = replay.action(action)
        return (
          action,
          .pending(
            due: replay.nextDue(of: action) ?? info.due,
            lastLateness: replay.lastRun(of: action)?.lateness, site: site(of: action)),
          state.focus == .pending && index == selectedPending
        )
      }
    ).draw(
      into: &grid, theme: theme, titleRow: rows.title(of: .pending), top: rows.pending.lowerBound)
    let selectedRunning = min(state.selected(.running), running.count - 1)
    actionRowsPanel(
      title: panelTitle("Running", count: running.count, panel: .running), layout,
      empty: "nothing running",
      rows: VisibleRows.around(selectedRunning, count: running.count, rows: rows.running.count)
        .map { index in
          let action = running[index]
          let run = replay.currentRun(of: action)
          return (
            action,
            .running(
              thread: run.map { threadTitle($0.thread) }, began: run?.began,
              run: replay.action(action).isRepeating ? run?.number : nil,
              cancelled: replay.state(of: action) == .runningCancelled),
            state.focus == .running && index == selectedRunning
          )
        }
    ).draw(
      into: &grid, theme: theme, titleRow: rows.title(of: .running), top: rows.running.lowerBound)
    eventsPanel(layout, rows: rows.events.count).draw(
      into: &grid, theme: theme, titleRow: rows.title(of: .events), top: rows.events.lowerBound)
  }

  /// The widths of an action's first columns in the main view's panels.
  private func actionColumns(_ layout: PanelLayout) -> ActionColumns {
    ActionColumns(
      labelWidth: layout.label, actionWidth: layout.action, hasNamedWork: replay.hasNamedWork)
  }

  /// A main-view panel's title, with the lane filter.
  private func panelTitle(
    _ title: String, count: Int, of total: Int? = nil, notes: [String] = [],
    panel: InspectorState.Panel
  ) -> PanelTitle {
    PanelTitle(
      title: title, count: count, total: total, notes: notes, filter: state.laneFilter,
      focused: state.focus == panel)
  }

  /// The Pending or the Running panel, of `rows`: each an action, what its row says of it
  /// beyond its label, name and scheduler, and whether it is selected.
  private func actionRowsPanel(
    title: PanelTitle, _ layout: PanelLayout, empty: String,
    rows: [(ActionIndex, ActionRowsPanel.State, Bool)]
  ) -> ActionRowsPanel {
    ActionRowsPanel(
      title: title,
      rows: rows.map { action, state, selected in
        ActionRowsPanel.Row(
          label: label(of: action), workName: workName(of: action),
          scheduler: schedulerLane(of: action),
          state: state, isSelected: selected)
      }, empty: empty, clock: state.clock, actionColumns: actionColumns(layout))
  }

  /// The lanes panel at a screen's `width`, on `rows`: the visible lanes' strips made from the
  /// strips' index.
  private func lanesPanel(width: Int, layout: PanelLayout, rows: MainRows) -> LanesPanel {
    let visible = lanes.isEmpty ? 0..<0 : visibleLanes(rows: rows.lanes.count)
    let statuses = visible.map { laneStatus(lanes[$0]) }
    let strip = StripGeometry(
      width: width, layout: layout, clock: state.clock, span: state.laneSpan,
      end: replay.end, statusWidth: statuses.map { TextWidth.columns(of: $0.0) }.max() ?? 0)
    let notes = [state.laneOrder.title, state.hidesIdleLanes ? "idle hidden" : nil]
    let selected = min(state.selected(.lanes), lanes.count - 1)
    var marks: (cells: [StripCell], count: Int)?
    if rows.marks != nil {
      var cells = [StripCell](repeating: .empty, count: strip.width)
      let count = strips.fillMarks(&cells, strip: strip, clock: state.clock, replay: replay)
      marks = (cells, count)
    }
    let cells = stripCells(of: visible, strip)
    return LanesPanel(
      title: panelTitle(
        "Lanes (\(state.grouping.title))", count: lanes.count, of: laneTotal,
        notes: notes.compactMap { $0 }, panel: .lanes),
      about: lanes.isEmpty ? nil : aboutLane(lanes[selected]),
      rows: zip(visible, zip(statuses, cells)).map { index, shown in
        LanesPanel.Row(
          name: LaneLabel(title: lanes[index].title, ordinal: lanes[index].ordinal),
          cells: shown.1, status: shown.0.0, busy: shown.0.1, isSelected: index == selected)
      },
      empty: state.hidesIdleLanes && !cache.orderedLanes.isEmpty
        ? "  (all \(cache.orderedLanes.count) lanes are idle here: h shows them)"
        : "  (no lanes\(state.laneFilter.isEmpty ? "" : " match \"\(state.laneFilter)\""))",
      labelWidth: layout.label, strip: strip, clock: state.clock, marks: marks)
  }

  /// The strips of the lanes `visible`, a row each: each from the lane's own events, a few
  /// searches a column, so that every event in the window counts, however many there are; and
  /// findings on their scheduler's lane, over any event in the same column.
  private func stripCells(of visible: Range<Int>, _ strip: StripGeometry) -> [[StripCell]] {
    var rowOfLane: [Lane.Key: Int] = [:]
    for index in visible { rowOfLane[lanes[index].key] = index - visible.lowerBound }
    var cells = [[StripCell]](
      repeating: [StripCell](repeating: .empty, count: strip.width), count: visible.count)
    for index in visible {
      guard let slot = StripIndex.slot(of: lanes[index].key, in: replay) else { continue }
      strips.fill(
        &cells[index - visible.lowerBound], lane: slot, strip: strip, clock: state.clock,
        replay: replay)
      strips.fillRuns(
        &cells[index - visible.lowerBound], lane: slot, running: runningCount(lanes[index]),
        strip: strip, clock: state.clock, replay: replay)
    }
    if state.grouping == .byScheduler {
      let listed = cache.listedFindings
      let from = listed.firstIndex { $0.time >= strip.windowStart } ?? listed.count
      for finding in listed[from...].prefix(while: { $0.time <= strip.windowEnd }) {
        guard let laneRow = rowOfLane[.scheduler(finding.scheduler)],
          let column = strip.column(of: finding.time)
        else { continue }
        cells[laneRow][column] = .finding
      }
    }
    return cells
  }

  /// The Events panel, with `rows` rows.
  private func eventsPanel(_ layout: PanelLayout, rows: Int) -> EventsPanel {
    let selected = state.focus == .events ? state.selectedEvent : nil
    let count = cache.scopedEvents?.count ?? replay.eventCount
    let shown = count > 0 ? scopedEvents(onRows: visibleEvents(rows: rows)) : []
    return EventsPanel(
      title: panelTitle("Events", count: count, panel: .events),
      rows: shown.map { eventRow($0, selected: selected) },
      eventCount: replay.eventCount, span: replay.span, actionColumns: actionColumns(layout))
  }

  /// The Events panel's row of the event `index`.
  private func eventRow(_ index: EventIndex, selected: EventIndex?) -> EventsPanel.Row {
    let event = replay.event(index)
    let owner: EventsPanel.Owner
    if event.kind == .mark {
      let mark = replay.mark(of: event)
      owner = .mark(name: mark?.name ?? "", fields: mark?.fields ?? [:])
    } else if let wait = event.waitIndex.map({ replay.waits[$0] }) {
      owner = .wait(
        "waited \(TimeText.duration(wait.duration)) on a \(wait.waitObject?.name ?? "semaphore")"
          + (wait.endedBy.map { " until #\($0)" } ?? ""))
    } else if let action = event.action {
      owner = .action(
        label: label(of: action), workName: workName(of: action),
        scheduler: schedulerLane(of: action), hoppedFrom: event.hoppedFrom.map(threadTitle),
        cancelledAfterStart: event.cancelledAfterStart,
        run: replay.action(action).isRepeating ? event.run : nil)
    } else {
      owner = .none
    }
    return EventsPanel.Row(
      number: index.number, time: event.time, kind: event.kind,
      thread: threadTitle(event.thread), owner: owner,
      isCurrent: index.offset == replay.position - 1,
      isFuture: index.offset >= replay.position, isSelected: index == selected)
  }
}
