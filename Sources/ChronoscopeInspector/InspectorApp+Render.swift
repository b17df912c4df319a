@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

extension InspectorApp {
  /// Draws the current view at the given size.
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
      drawTooSmall(&grid, theme)
      return grid
    }
    let layout = Layout(width: grid.width)
    drawHeader(&grid, theme)
    switch state.mode {
    case .main: drawMain(&grid, theme, layout)
    case .detail(let action, let link): drawDetail(&grid, theme, action: action, link: link)
    case .help: drawHelp(&grid, theme)
    case .findings(let selected): drawFindings(&grid, theme, selected: selected)
    case .finding(let index, let link): drawFinding(&grid, theme, index: index, link: link)
    case .blame(let action, let link): drawBlame(&grid, theme, action: action, link: link)
    }
    drawStatus(&grid, theme, keyHints: keyHints)
    return grid
  }

  /// Column widths shared by every panel of a frame, so a label is cut the same way everywhere.
  struct Layout {
    /// Scheduler labels and thread titles.
    let label: Int
    /// `#12 repeating`.
    let action = 16

    init(width: Int) { label = min(max(width / 6, 14), 28) }
  }

  private func drawTooSmall(_ grid: inout ScreenGrid, _ theme: Theme) {
    let lines = [
      "terminal too small",
      "need \(Self.minimumWidth)×\(Self.minimumHeight), have \(grid.width)×\(grid.height)",
      "q quits",
    ]
    for (offset, line) in lines.enumerated() {
      let row = grid.height / 2 - 1 + offset
      let column = max((grid.width - TextWidth.columns(of: line)) / 2, 0)
      grid.write(line, row: row, column: column, style: offset == 0 ? theme.warning : .plain)
    }
  }

  // MARK: - Header and status

  private func drawHeader(_ grid: inout ScreenGrid, _ theme: Theme) {
    grid.fill(row: 0, from: 0, to: grid.width, style: theme.header)
    let play = state.playing ? "▶ playing" : "❚❚ paused"
    let speed = state.speed >= 1 ? "×\(Int(state.speed))" : "×1/\(Int((1 / state.speed).rounded()))"
    // Warnings and errors: info findings say nothing is wrong.
    let counted = findings.count { $0.severity > .info }
    var parts = HeaderParts(
      time: "\(TimeText.seconds(state.clock)) / \(TimeText.seconds(replay.end))",
      event: "event \(replay.position)/\(replay.eventCount)", playing: "\(play) \(speed)",
      brand: "chronoscope",
      clock: replay.header.clock == .virtual ? "virtual clock" : "host clock",
      followed: !following
        ? nil
        : replay.isClosed ? "■ recording ended" : isLive ? "● live" : "◌ following · G live end",
      found: !hasFindings
        ? "⚑ finding…"
        : counted == 0 ? nil : "⚑ \(counted) finding\(counted == 1 ? "" : "s")",
      ending: following && !replay.isClosed
        ? nil
        // Ctrl-C or `kill` stopped a process; it did not crash (validate and check say the same).
        : replay.crash.map { "⚠ \($0.isStop ? "stopped" : "crashed"): \($0.signal)" }
          ?? (replay.isClosed ? nil : "⚠ not closed")
    )
    // Whole parts give way, least telling first: the brand, the clock's kind and a paused state
    // while the name does not fit, the rest while it cannot keep 16 columns. Then the name is cut
    // in its middle to the room left.
    let nameWidth = TextWidth.columns(of: name)
    let first: [WritableKeyPath<HeaderParts, String?>] =
      state.playing ? [\.brand, \.clock] : [\.brand, \.clock, \.playing]
    for drop in first where parts.otherColumns + nameWidth > grid.width {
      parts[keyPath: drop] = nil
    }
    let then: [WritableKeyPath<HeaderParts, String?>] = [
      \.event, \.playing, \.found, \.ending, \.followed,
    ]
    for drop in then where parts.otherColumns + min(nameWidth, 16) > grid.width {
      parts[keyPath: drop] = nil
    }
    var column = grid.write(
      parts.brand.map { " \($0)  " } ?? " ", row: 0, column: 0, style: theme.header)
    column = grid.write(
      TextWidth.truncatedInMiddle(name, to: max(grid.width - parts.otherColumns, 0)), row: 0,
      column: column, style: theme.header)
    if let clock = parts.clock {
      column = grid.write("  " + clock, row: 0, column: column, style: theme.header)
    }
    for warning in [parts.followed, parts.found, parts.ending].compactMap({ $0 }) {
      column = grid.write("  " + warning, row: 0, column: column, style: theme.headerWarning)
    }
    let right = parts.right
    grid.write(
      right, row: 0, column: max(grid.width - TextWidth.columns(of: right) - 1, 0),
      style: theme.header)
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

  private func drawStatus(_ grid: inout ScreenGrid, _ theme: Theme, keyHints: Bool) {
    let row = grid.height - 1
    for (column, cell) in statusBar(keyHints: keyHints).cells(
      width: grid.width, style: theme.status
    )
    .enumerated() {
      grid[row, column] = cell
    }
  }

  // MARK: - Main view

  /// The rows of the main view's parts at a height: what is drawn where, and where a click
  /// lands.
  struct MainRows {
    let lanes: Range<Int>
    /// The marks row under the lanes, when the trace has marks.
    let marks: Int?
    let axis: Int
    let pending: Range<Int>
    let running: Range<Int>
    let events: Range<Int>

    /// The title row above a panel's rows.
    func title(of panel: InspectorState.Panel) -> Int {
      switch panel {
      case .lanes: lanes.lowerBound - 1
      case .pending: pending.lowerBound - 1
      case .running: running.lowerBound - 1
      case .events: events.lowerBound - 1
      }
    }
  }

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
    window(count: lanes.count, selected: min(state.selected(.lanes), lanes.count - 1), rows: rows)
  }

  /// The pending actions the panel's `rows` rows can show around the selected one: only the
  /// soonest-due up to the visible window are ordered, as the pending set may be huge.
  func visiblePending(count pendingCount: Int, rows: Int) -> (
    actions: [ActionIndex], rows: Range<Int>
  ) {
    let pending = pendingActions(
      first: min(pendingCount, state.selected(.pending) + rows + 1))
    let selected = min(state.selected(.pending), pending.count - 1)
    return (pending, window(count: pending.count, selected: selected, rows: rows))
  }

  /// The Events panel's rows on screen: around the selected event, or else the current one.
  func visibleEvents(rows: Int) -> Range<Int> {
    let anchor = state.selectedEvent.map { eventRow(before: $0.offset + 1) } ?? currentEventRow
    return window(
      count: cache.scopedEvents?.count ?? replay.eventCount, selected: max(anchor, 0), rows: rows)
  }

  private func drawMain(_ grid: inout ScreenGrid, _ theme: Theme, _ layout: Layout) {
    let pendingCount = self.pendingCount
    let running = runningActions
    let rows = mainRows(
      height: grid.height, pendingCount: pendingCount, runningCount: running.count)
    let statusWidth =
      lanes.isEmpty
      ? 0
      : visibleLanes(rows: rows.lanes.count).map {
        TextWidth.columns(of: laneStatus(lanes[$0]).0)
      }.max() ?? 0
    let strip = StripGeometry(
      width: grid.width, layout: layout, clock: state.clock, span: state.laneSpan,
      end: replay.end, statusWidth: statusWidth)
    drawLanesTitle(&grid, theme, row: rows.title(of: .lanes), strip: strip)
    drawLanes(&grid, theme, layout, strip, rows: rows.lanes.count, top: rows.lanes.lowerBound)
    if let marks = rows.marks { drawMarks(&grid, theme, layout, strip, row: marks) }
    drawAxis(&grid, theme, layout, strip, row: rows.axis)
    let pendingTitle =
      state.grouping == .byThread && !state.laneFilter.isEmpty
      ? "Pending, all schedulers (not on a thread yet)" : "Pending"
    drawTitle(
      &grid, theme, row: rows.title(of: .pending), pendingTitle, count: pendingCount,
      panel: .pending)
    drawPending(
      &grid, theme, layout, visiblePending(count: pendingCount, rows: rows.pending.count),
      top: rows.pending.lowerBound)
    drawTitle(
      &grid, theme, row: rows.title(of: .running), "Running", count: running.count,
      panel: .running)
    drawRunning(
      &grid, theme, layout, running, rows: rows.running.count, top: rows.running.lowerBound)
    drawTitle(
      &grid, theme, row: rows.title(of: .events), "Events",
      count: cache.scopedEvents?.count ?? replay.eventCount, panel: .events)
    drawEvents(&grid, theme, layout, rows: rows.events.count, top: rows.events.lowerBound)
  }

  /// A panel's title: `Events (1077)`, or `Lanes (by scheduler) 12 of 40` where it shows `count`
  /// of `total`; then the filter and `notes`, each after a `·`.
  @discardableResult
  private func drawTitle(
    _ grid: inout ScreenGrid, _ theme: Theme, row: Int, _ title: String, count: Int,
    of total: Int? = nil, notes: [String] = [], panel: InspectorState.Panel
  ) -> Int {
    let focused = state.focus == panel
    grid.fill(row: row, from: 0, to: grid.width, with: "─", style: theme.dim)
    let filtered =
      state.laneFilter.isEmpty
      ? "" : " · filter \"\(TextWidth.truncated(state.laneFilter, to: 20))\""
    let counted = total.map { $0 == count ? "(\(count))" : "\(count) of \($0)" } ?? "(\(count))"
    let noted = notes.map { " · \($0)" }.joined()
    let text = "\(focused ? "▸" : "─") \(title) \(counted)\(filtered)\(noted) "
    return grid.write(text, row: row, column: 1, style: focused ? theme.title : theme.dim)
  }

  /// Scrolls so that `selected` is visible in `rows` rows.
  func window(count: Int, selected: Int, rows: Int) -> Range<Int> {
    guard count > rows else { return 0..<count }
    let start = min(max(selected - rows / 2, 0), count - rows)
    return start..<(start + rows)
  }

  /// `#12 after`.
  func label(of action: ActionIndex) -> String {
    let info = replay.action(action)
    return "\(info.id) \(info.mode.name)"
  }

  /// The scheduler's label, or `scheduler N` when the trace did not define it, numbered as its lane is
  /// where labels repeat: `app.request.2 ·10`.
  func schedulerLabel(of action: ActionIndex) -> String {
    let lane = schedulerLane(of: action)
    return lane.ordinal.map { "\(lane.title) ·\($0)" } ?? lane.title
  }

  /// The title and number of the lane of `action`'s scheduler.
  func schedulerLane(of action: ActionIndex) -> (title: String, ordinal: Int?) {
    let scheduler = replay.action(action).scheduler
    guard let label = replay.scheduler(scheduler)?.label else {
      return ("scheduler \(scheduler.rawValue)", nil)
    }
    return (label, cache.schedulerOrdinals?[scheduler])
  }

  /// A panel's column of the schedulers' lanes, fitted as the lanes panel fits them: a row always
  /// says which lane it is on.
  func schedulerColumn(of action: ActionIndex, width: Int, priority: Int, minimum: Int)
    -> PanelColumn
  {
    let lane = schedulerLane(of: action)
    return PanelColumn(
      lane.title, width: width, priority: priority,
      fit: .label(ordinal: lane.ordinal, minimum: minimum))
  }

  /// A thread's title (`main`, `worker 4`, `app.io`).
  func threadTitle(_ thread: ThreadID) -> String {
    replay.thread(thread)?.title ?? "thread \(thread.rawValue)"
  }

  /// What the app named `action` (`search "swift" request=42`), empty when it did not.
  func workName(of action: ActionIndex) -> String {
    replay.work(of: action)?.summary ?? ""
  }

  /// The width of a panel's column of work names: none when the trace names no work.
  func workWidth(_ layout: Layout) -> Int { replay.hasNamedWork ? layout.label + 1 : 0 }

  func site(of action: ActionIndex) -> String {
    guard let site = replay.callSite(of: action) else { return "—" }
    return "\(site.file):\(site.line)"
  }

  // MARK: Lanes

  /// Where the lane strips are and what trace time each column covers.
  struct StripGeometry {
    let start: Int
    let width: Int
    let windowStart: Int64
    let windowEnd: Int64
    let columnSpan: Int64
    /// The lanes' statuses' columns at the right, with the gap before them.
    let countsWidth: Int

    /// - Parameter statusWidth: The widest status of the lanes shown (`busy 358.604ms ×2`):
    ///   the strips end a column before it.
    init(
      width gridWidth: Int, layout: Layout, clock: Int64, span: Int64, end: Int64,
      statusWidth: Int = 0
    ) {
      start = layout.label + 3
      countsWidth = max(14, statusWidth + 1)
      width = max(gridWidth - start - countsWidth - 1, 8)
      let window = Self.window(clock: clock, span: span, end: end)
      windowStart = window.lowerBound
      windowEnd = window.upperBound
      columnSpan =
        windowStart == 0 && windowEnd == end
        // The whole trace, its end in the last column.
        ? end / Int64(width) + 1
        : max(windowEnd.subtracting(saturating: windowStart) / Int64(width), 1)
    }

    /// The trace time the strips show, whatever their width: `span` centred on the cursor, but
    /// never before the trace's start; the whole trace when `span` holds it (`end`, its end).
    static func window(clock: Int64, span: Int64, end: Int64) -> ClosedRange<Int64> {
      let half = max(span / 2, 1)
      let total = half.multiplied(saturating: 2)
      // The whole trace fits (`0`, or zoomed out to its span): all of it, from its start.
      if total >= end { return 0...end }
      let start = max(clock.subtracting(saturating: half), 0)
      return start...start.adding(saturating: total)
    }

    /// The column of trace time `time`, if it is in the window.
    func column(of time: Int64) -> Int? {
      guard time >= windowStart else { return nil }
      let column = time.subtracting(saturating: windowStart) / columnSpan
      return column < Int64(width) ? Int(column) : nil
    }
  }

  private func drawLanesTitle(
    _ grid: inout ScreenGrid, _ theme: Theme, row: Int, strip: StripGeometry
  ) {
    let notes = [state.laneOrder.title, state.hidesIdleLanes ? "idle hidden" : nil]
    var column = drawTitle(
      &grid, theme, row: row, "Lanes (\(state.grouping.title))", count: lanes.count,
      of: laneTotal, notes: notes.compactMap { $0 }, panel: .lanes)
    if !lanes.isEmpty, let about = aboutLane(lanes[min(state.selected(.lanes), lanes.count - 1)]) {
      column = grid.write(
        "─ \(about) ", row: row, column: column, style: theme.dim, limit: grid.width - column)
    }
    // The whole legend where it fits, else a shorter one (`?` explains them all).
    let legends = [
      " s schedule ▶ begin ━ running █ end × cancel ↷ hop ◆ mark ! finding │ now ",
      " s sched ▶ begin ━ run █ end × cancel ↷ hop ◆ mark ! finding ",
    ]
    if let legend = legends.first(where: { grid.width - column > TextWidth.columns(of: $0) + 2 }) {
      let legendWidth = TextWidth.columns(of: legend)
      grid.write(legend, row: row, column: grid.width - legendWidth - 1, style: theme.dim)
    }
  }

  /// What the title says about the selected lane: for a thread, whose work it ran; for a task,
  /// where its work was.
  private func aboutLane(_ lane: Lane) -> String? {
    switch lane.key {
    case .scheduler: return nil
    case .thread(let id):
      guard let info = replay.thread(id) else { return nil }
      let schedulers = info.schedulers.compactMap { replay.scheduler($0)?.label }
      let served =
        schedulers.isEmpty ? "ran no scheduler's work" : "ran " + schedulers.joined(separator: ", ")
      return "\(info.title) \(served)"
    case .task(let id):
      guard let info = replay.task(id) else { return nil }
      let schedulers = info.schedulers.map {
        replay.scheduler($0)?.label ?? "scheduler \($0.rawValue)"
      }
      let work = info.actionCount == 1 ? "1 action" : "\(info.actionCount) actions"
      return "\(info.title): \(work) on " + schedulers.joined(separator: ", ")
    }
  }

  private func drawLanes(
    _ grid: inout ScreenGrid, _ theme: Theme, _ layout: Layout, _ strip: StripGeometry, rows: Int,
    top: Int
  ) {
    guard !lanes.isEmpty else {
      let none =
        state.hidesIdleLanes && !cache.orderedLanes.isEmpty
        ? "  (all \(cache.orderedLanes.count) lanes are idle here: h shows them)"
        : "  (no lanes\(state.laneFilter.isEmpty ? "" : " match \"\(state.laneFilter)\""))"
      grid.write(none, row: top, column: 0, style: theme.dim)
      return
    }
    let selected = min(state.selected(.lanes), lanes.count - 1)
    let visible = visibleLanes(rows: rows)
    var rowOfLane: [Lane.Key: Int] = [:]
    for index in visible { rowOfLane[lanes[index].key] = index - visible.lowerBound }
    var strips = [[StripCell]](
      repeating: [StripCell](repeating: .empty, count: strip.width), count: visible.count)
    // Each visible lane's strip from its own events, a few searches a column: every event in
    // the window counts, however many there are.
    for index in visible {
      guard let slot = StripIndex.slot(of: lanes[index].key, in: replay) else { continue }
      self.strips.fill(
        &strips[index - visible.lowerBound], lane: slot, strip: strip, clock: state.clock,
        replay: replay)
      self.strips.fillRuns(
        &strips[index - visible.lowerBound], lane: slot, running: runningCount(lanes[index]),
        strip: strip, clock: state.clock, replay: replay)
    }
    // Findings show on their scheduler's lane, over any event in the same column.
    if state.grouping == .byScheduler {
      let listed = cache.listedFindings
      let from = listed.firstIndex { $0.time >= strip.windowStart } ?? listed.count
      for finding in listed[from...].prefix(while: { $0.time <= strip.windowEnd }) {
        guard let laneRow = rowOfLane[.scheduler(finding.scheduler)],
          let column = strip.column(of: finding.time)
        else { continue }
        strips[laneRow][column] = .finding
      }
    }
    let cursorColumn = strip.column(of: state.clock)
    for (offset, index) in visible.enumerated() {
      let lane = lanes[index]
      let row = top + offset
      let isSelected = index == selected
      grid.write(isSelected ? "▸" : " ", row: row, column: 0, style: theme.title)
      grid.write(
        lane.name(fitting: layout.label), row: row, column: 1,
        style: isSelected ? theme.selected : .plain)
      drawStrip(&grid, theme, strips[offset], row: row, strip, cursor: cursorColumn)
      let (counts, busy) = laneStatus(lane)
      grid.write(
        counts, row: row, column: grid.width - TextWidth.columns(of: counts) - 1,
        style: busy ? theme.running : theme.dim)
    }
  }

  /// One strip's cells: the cursor shows over a run or an empty column, not over an event.
  private func drawStrip(
    _ grid: inout ScreenGrid, _ theme: Theme, _ cells: [StripCell], row: Int,
    _ strip: StripGeometry, cursor cursorColumn: Int?
  ) {
    for (column, cell) in cells.enumerated() {
      if cell.priority < 0 {
        let isCursor = column == cursorColumn
        grid.write(
          isCursor ? "│" : cell.glyph, row: row, column: strip.start + column,
          style: isCursor ? theme.cursor : cell.isRun && !cell.future ? theme.running : theme.dim)
      } else {
        grid.write(
          cell.glyph, row: row, column: strip.start + column,
          style: cell.isFinding
            ? theme.warning : cell.future ? theme.dim : theme.style(of: cell.kind))
      }
    }
  }

  /// The row under the lanes that shows the marks, whatever lane they are on (a mark is on no
  /// scheduler or task, so the scheduler and task views showed none), and how many the window holds.
  private func drawMarks(
    _ grid: inout ScreenGrid, _ theme: Theme, _ layout: Layout, _ strip: StripGeometry, row: Int
  ) {
    var cells = [StripCell](repeating: .empty, count: strip.width)
    let count = strips.fillMarks(&cells, strip: strip, clock: state.clock, replay: replay)
    grid.write(
      TextWidth.truncated("◆ marks", to: layout.label), row: row, column: 1, style: theme.dim)
    drawStrip(&grid, theme, cells, row: row, strip, cursor: strip.column(of: state.clock))
    let counts = count == 1 ? "1 mark" : "\(count) marks"
    grid.write(
      counts, row: row, column: grid.width - TextWidth.columns(of: counts) - 1, style: theme.dim)
  }

  /// How many of the lane's actions run at the cursor: on the scheduler, of the task, on the thread.
  private func runningCount(_ lane: Lane) -> Int {
    switch lane.key {
    case .scheduler(let id): replay.schedulerState(id).running
    case .task(let id): replay.taskState(id).running
    case .thread(let id): replay.threadState(id).running.count
    }
  }

  /// The right-hand summary of a lane: `2p 1r` for a scheduler (pending, running), `busy 3.2ms` or
  /// `idle` for a thread.
  private func laneStatus(_ lane: Lane) -> (String, Bool) {
    switch lane.key {
    case .scheduler(let id):
      let status = replay.schedulerState(id)
      return ("\(status.pending)p \(status.running)r", status.running > 0)
    case .task(let id):
      let status = replay.taskState(id)
      return ("\(status.pending)p \(status.running)r", status.running > 0)
    case .thread(let id):
      let status = replay.threadState(id)
      guard let since = status.busySince else { return ("idle", false) }
      let nested = status.running.count > 1 ? " ×\(status.running.count)" : ""
      return (
        "busy \(TimeText.duration(state.clock.subtracting(saturating: since)))\(nested)", true
      )
    }
  }

  private func drawAxis(
    _ grid: inout ScreenGrid, _ theme: Theme, _ layout: Layout, _ strip: StripGeometry, row: Int
  ) {
    let scale = "\(TimeText.duration(strip.columnSpan))/col"
    grid.write(
      scale, row: row, column: grid.width - TextWidth.columns(of: scale) - 1, style: theme.dim)
    let left = "├" + TimeText.seconds(strip.windowStart)
    let right = TimeText.seconds(strip.windowEnd) + "┤"
    grid.write(left, row: row, column: strip.start, style: theme.dim)
    let rightColumn = strip.start + strip.width - TextWidth.columns(of: right)
    if let cursor = strip.column(of: state.clock) {
      let now = "▲ \(TimeText.seconds(state.clock))"
      let nowWidth = TextWidth.columns(of: now)
      let column = min(
        max(strip.start + cursor, strip.start + TextWidth.columns(of: left) + 1),
        rightColumn - nowWidth - 1)
      if column > strip.start + TextWidth.columns(of: left) {
        grid.write(now, row: row, column: column, style: theme.cursor)
      }
    }
    grid.write(right, row: row, column: rightColumn, style: theme.dim)
  }

  // MARK: Pending and running

  private func drawPending(
    _ grid: inout ScreenGrid, _ theme: Theme, _ layout: Layout,
    _ visible: (actions: [ActionIndex], rows: Range<Int>), top: Int
  ) {
    let pending = visible.actions
    guard !pending.isEmpty else {
      grid.write("  nothing pending", row: top, column: 0, style: theme.dim)
      return
    }
    let selected = min(state.selected(.pending), pending.count - 1)
    var rows: [(columns: [PanelColumn], selected: Bool)] = []
    for index in visible.rows {
      let action = pending[index]
      let info = replay.action(action)
      let due = replay.nextDue(of: action) ?? info.due
      let dueIn = due.subtracting(saturating: state.clock)
      let countdown =
        dueIn >= 0
        ? "in \(TimeText.duration(dueIn))" : "late \(TimeText.duration(dueIn.magnitudeSaturated))"
      var rhythm = ""
      if let last = replay.lastRun(of: action) {
        rhythm = "last run \(Self.signed(last.lateness)) late"
      }
      let columns =
        actionColumns(action, layout) + [
          PanelColumn("due \(TimeText.seconds(due))", width: 16, priority: 70),
          PanelColumn(
            countdown, width: 15, style: dueIn < 0 ? theme.warning : .plain, priority: 80),
          PanelColumn(rhythm, width: rhythm.isEmpty ? 0 : 26, priority: 40),
          PanelColumn(site(of: action), width: 60, style: theme.dim, priority: 60, fit: .path),
        ]
      rows.append((columns, state.focus == .pending && index == selected))
    }
    drawRows(&grid, theme, rows, top: top)
  }

  /// A Pending or Running row's first columns, which give way last: `#12 after  app.db`.
  private func actionColumns(_ action: ActionIndex, _ layout: Layout) -> [PanelColumn] {
    [
      PanelColumn(
        label(of: action), width: layout.action, priority: 100,
        fit: .name(minimum: layout.action - 1)),
      PanelColumn(
        workName(of: action), width: workWidth(layout), priority: 75,
        fit: .name(minimum: 9)),
      schedulerColumn(of: action, width: layout.label + 1, priority: 90, minimum: 9),
    ]
  }

  /// `+3.2ms` or `-850ns`.
  static func signed(_ nanoseconds: Int64) -> String {
    nanoseconds >= 0
      ? "+" + TimeText.duration(nanoseconds)
      : "-" + TimeText.duration(nanoseconds.magnitudeSaturated)
  }

  private func drawRunning(
    _ grid: inout ScreenGrid, _ theme: Theme, _ layout: Layout, _ running: [ActionIndex], rows: Int,
    top: Int
  ) {
    guard !running.isEmpty else {
      grid.write("  nothing running", row: top, column: 0, style: theme.dim)
      return
    }
    let selected = min(state.selected(.running), running.count - 1)
    var lines: [(columns: [PanelColumn], selected: Bool)] = []
    for index in window(count: running.count, selected: selected, rows: rows) {
      let action = running[index]
      let run = replay.currentRun(of: action)
      let thread = run.map { "on \(threadTitle($0.thread))" } ?? ""
      let elapsed =
        run.map { "for \(TimeText.duration(state.clock.subtracting(saturating: $0.began)))" } ?? ""
      let number = replay.action(action).isRepeating ? run.map { "run \($0.number)" } ?? "" : ""
      let cancelled = replay.state(of: action) == .runningCancelled ? "cancelled" : ""
      let columns =
        actionColumns(action, layout) + [
          PanelColumn(
            thread, width: layout.label + 4, priority: 70, fit: .label(ordinal: nil, minimum: 8)),
          PanelColumn(elapsed, width: 16, priority: 85),
          PanelColumn(number, width: number.isEmpty ? 0 : 10, priority: 60),
          PanelColumn(cancelled, width: 12, style: theme.cancel, priority: 80),
        ]
      lines.append((columns, state.focus == .running && index == selected))
    }
    drawRows(&grid, theme, lines, top: top)
  }

  /// A panel's rows from row `top`: the columns that fit, lined up (see
  /// ``PanelColumn/widths(of:in:)``), each with its own style.
  private func drawRows(
    _ grid: inout ScreenGrid, _ theme: Theme,
    _ rows: [(columns: [PanelColumn], selected: Bool)], top: Int
  ) {
    let widths = PanelColumn.widths(of: rows.map(\.columns), in: grid.width - 3)
    for (offset, line) in rows.enumerated() {
      var x = 2
      for (column, width) in zip(line.columns, widths) where width > 0 {
        grid.write(column.text(in: width), row: top + offset, column: x, style: column.style)
        x += width
      }
      if line.selected {
        grid.paint(row: top + offset, from: 1, to: grid.width - 1, style: theme.selected)
      }
    }
  }

  // MARK: Events

  private func drawEvents(
    _ grid: inout ScreenGrid, _ theme: Theme, _ layout: Layout, rows: Int, top: Int
  ) {
    let count = cache.scopedEvents?.count ?? replay.eventCount
    guard count > 0 else {
      let text = replay.eventCount == 0 ? "the trace has no events" : "no events on these lanes"
      grid.write("  " + text, row: top, column: 0, style: theme.dim)
      return
    }
    // Columns as wide as the widest number and time in the trace, the same on every row.
    let numberWidth = String(replay.eventCount).count + 1
    let timeWidth = TimeText.seconds(replay.span).count
    let selected = state.focus == .events ? state.selectedEvent : nil
    // Every row has the same seven columns, so that they line up: a mark's text takes the
    // action's and the scheduler's, which its row leaves empty.
    var lines: [(columns: [PanelColumn], index: EventIndex, isMark: Bool)] = []
    for index in scopedEvents(onRows: visibleEvents(rows: rows)) {
      let event = replay.event(index)
      var columns = [
        PanelColumn(
          "e\(index.number)".leftPadded(to: numberWidth), width: numberWidth + 2, priority: 100),
        PanelColumn(
          TimeText.seconds(event.time).leftPadded(to: timeWidth), width: timeWidth + 2,
          priority: 95),
        PanelColumn(event.kind.name, width: 9, priority: 90),
      ]
      let thread = PanelColumn(
        threadTitle(event.thread), width: layout.label + 1, priority: 60,
        fit: .label(ordinal: nil, minimum: 8))
      if event.kind == .mark {
        let mark = replay.mark(of: event)
        var text = "\"\(mark?.name ?? "")\""
        if let fields = mark?.fields, !fields.isEmpty {
          text +=
            " "
            + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
              separator: " ")
        }
        columns += [
          PanelColumn(text, width: layout.action, priority: 85, fit: .name(minimum: 10)),
          PanelColumn("", width: 0, priority: 70), PanelColumn("", width: 0, priority: 75), thread,
          PanelColumn("", width: 0, priority: 50),
        ]
      } else if let action = event.action {
        var extra = ""
        switch event.kind {
        case .hop: extra = event.hoppedFrom.map { "← \(threadTitle($0))" } ?? ""
        case .cancel: extra = event.cancelledAfterStart == true ? "after start" : "before start"
        case .begin, .end:
          if replay.action(action).isRepeating { extra = event.run.map { "run \($0)" } ?? "" }
        case .schedule, .mark, .task, .work: break
        }
        columns += [
          PanelColumn(
            label(of: action), width: layout.action, priority: 85,
            fit: .name(minimum: layout.action - 1)),
          PanelColumn(
            workName(of: action), width: workWidth(layout), priority: 70, fit: .name(minimum: 9)),
          schedulerColumn(of: action, width: layout.label + 1, priority: 75, minimum: 8),
          thread, PanelColumn(extra, width: layout.label + 4, priority: 50),
        ]
      }
      lines.append((columns, index, event.kind == .mark))
    }
    // The last column may reach the screen's edge: no gap after it.
    let widths = PanelColumn.widths(of: lines.map(\.columns), in: grid.width)
    for (offset, line) in lines.enumerated() {
      let row = top + offset
      let isCurrent = line.index.offset == replay.position - 1
      let future = line.index.offset >= replay.position
      let kind = replay.event(line.index).kind
      let style: Style =
        isCurrent ? theme.current : future ? theme.dim : kind == .cancel ? theme.cancel : .plain
      grid.write(isCurrent ? "▸" : " ", row: row, column: 0, style: theme.title)
      var x = 1
      for (number, (column, width)) in zip(line.columns, widths).enumerated() where width > 0 {
        // A mark's text takes the action's, the work name's and the scheduler's columns.
        let shown = line.isMark && number == 3 ? width + widths[4] + widths[5] : width
        grid.write(column.text(in: shown), row: row, column: x, style: style)
        x += width
      }
      if isCurrent { grid.paint(row: row, from: 1, to: grid.width, style: theme.current) }
      if line.index == selected {
        grid.paint(row: row, from: 1, to: grid.width, style: theme.selected)
      }
    }
  }
}

/// What the header says: ` chronoscope  NAME  virtual clock  ⚑ 3 findings` on the left, then
/// `1.2s / 2s  event 5/9  ❚❚ paused ×1 ` on the right. All but the time give way, whole, on a
/// narrow screen.
struct HeaderParts {
  let time: String
  var event, playing, brand, clock, followed, found, ending: String?

  /// The right-hand side.
  var right: String { [time, event, playing].compactMap { $0 }.joined(separator: "  ") }

  /// The columns everything but the name takes, with the space between the sides.
  var otherColumns: Int {
    func width(_ text: String?) -> Int { text.map { TextWidth.columns(of: $0) + 2 } ?? 0 }
    return 1 + width(brand) + width(clock) + width(followed) + width(found) + width(ending) + 1
      + TextWidth.columns(of: right) + 1
  }
}

/// One column of a lane strip: the most telling event in it.
struct StripCell {
  let glyph: String
  let priority: Int
  let future: Bool
  var kind: TraceEvent.Kind = .mark
  /// Whether it is a stretch of a run with no event of the lane in the column.
  var isRun = false

  init(glyph: String, priority: Int, future: Bool) {
    self.glyph = glyph
    self.priority = priority
    self.future = future
  }

  /// A column with nothing in it.
  static let empty = StripCell(glyph: "·", priority: -1, future: false)

  /// A finding's instant: shown over any event in its column.
  static let finding = StripCell(glyph: "!", priority: 6, future: false)

  /// A column that work of the lane runs through: below every event (its priority is an empty
  /// column's), and the cursor shows over it.
  static func run(future: Bool) -> StripCell {
    var cell = StripCell(glyph: "━", priority: -1, future: future)
    cell.kind = .begin
    cell.isRun = true
    return cell
  }

  var isFinding: Bool { priority == Self.finding.priority }

  /// The glyph for `kind`; where several events share a column, cancels show over begins, over
  /// ends, over marks, hops and schedules.
  init(_ kind: TraceEvent.Kind, future: Bool) {
    (glyph, priority) =
      switch kind {
      case .schedule, .task, .work: ("s", 0)
      case .hop: ("↷", 1)
      case .mark: ("◆", 2)
      case .end: ("█", 3)
      case .begin: ("▶", 4)
      case .cancel: ("×", 5)
      }
    self.future = future
    self.kind = kind
  }
}

extension Int64 {
  /// The magnitude as an `Int64`, `Int64.max` for `Int64.min`.
  var magnitudeSaturated: Int64 { self == .min ? .max : Swift.abs(self) }
}
