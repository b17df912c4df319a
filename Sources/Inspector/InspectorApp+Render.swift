import Replay
import Screen
import TraceFormat

extension InspectorApp {
  /// Draws the current view at the given size.
  ///
  /// - Parameter colors: False for monochrome (attributes only), as with `NO_COLOR`.
  public func render(width: Int, height: Int, colors: Bool = true) -> ScreenGrid {
    var grid = ScreenGrid(width: width, height: height)
    let theme = Theme(colors: colors)
    guard width >= Self.minimumWidth, height >= Self.minimumHeight else {
      drawTooSmall(&grid, theme)
      return grid
    }
    drawHeader(&grid, theme)
    switch state.mode {
    case .main: drawMain(&grid, theme)
    case .detail(let action): drawDetail(&grid, theme, action: action)
    case .help: drawHelp(&grid, theme)
    }
    drawStatus(&grid, theme)
    return grid
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
    let right =
      "\(TimeText.seconds(state.clock)) / \(TimeText.seconds(replay.span))  event \(replay.position)/\(replay.eventCount)  \(play) \(speed)"
    let rightWidth = TextWidth.columns(of: right)
    grid.write(
      " chronoscope  \(name)", row: 0, column: 0, style: theme.header,
      limit: max(grid.width - rightWidth - 2, 0))
    grid.write(right, row: 0, column: max(grid.width - rightWidth - 1, 0), style: theme.header)
  }

  private func drawStatus(_ grid: inout ScreenGrid, _ theme: Theme) {
    let row = grid.height - 1
    grid.fill(row: row, from: 0, to: grid.width, style: theme.status)
    let text: String
    switch state.prompt {
    case .search(let query): text = "/\(query)▏  (Enter search, Esc cancel)"
    case .seek(let input): text = "seek to: \(input)▏  (1.25s, 300ms, #120; Enter go, Esc cancel)"
    case .filter(let input): text = "filter lanes: \(input)▏  (Enter keep, Esc close)"
    case nil:
      if let message = state.message {
        text = message
      } else if let search = state.search {
        let current = matches.firstIndex(of: replay.position - 1).map { "\($0 + 1)/" } ?? ""
        text =
          "search \"\(search)\" \(current)\(matches.count) matches · n next · N previous · Esc clear"
      } else if state.mode != .main {
        text = "Esc back · q quit"
      } else {
        text =
          "space play · n/p step · [/] lane · t/T ±\(TimeText.duration(state.timeStep)) · g/G ends · @ seek · / search · f filter · v lanes · tab panel · ⏎ detail · ? help · q quit"
      }
    }
    grid.write(" " + text, row: row, column: 0, style: theme.status)
  }

  // MARK: - Main view

  private func drawMain(_ grid: inout ScreenGrid, _ theme: Theme) {
    let body = grid.height - 2  // header and status
    let lanes = self.lanes
    let pendingCount = replay.pendingCount
    let running = replay.running
    let laneRows = min(max(lanes.count, 1), max(3, body / 4))
    let runningRows = min(max(running.count, 1), 3)
    let remaining = body - 4 - laneRows - runningRows
    let pendingRows = max(min(max(pendingCount, 1), remaining / 2), 1)
    // Only the soonest-due actions up to the visible window are ordered: the pending set may be
    // huge.
    let pending = replay.pending(
      first: min(pendingCount, state.selected(.pending) + pendingRows + 1))
    let eventRows = max(remaining - pendingRows, 1)
    var row = 1
    drawTitle(
      &grid, theme, row: row, "Lanes (\(state.grouping == .byQueue ? "by queue" : "by thread"))",
      count: lanes.count, panel: .lanes)
    row += 1
    drawLanes(&grid, theme, lanes, rows: laneRows, top: row)
    row += laneRows
    drawTitle(&grid, theme, row: row, "Pending", count: pendingCount, panel: .pending)
    row += 1
    drawPending(&grid, theme, pending, rows: pendingRows, top: row)
    row += pendingRows
    drawTitle(&grid, theme, row: row, "Running", count: running.count, panel: .running)
    row += 1
    drawRunning(&grid, theme, running, rows: runningRows, top: row)
    row += runningRows
    drawTitle(&grid, theme, row: row, "Events", count: replay.eventCount, panel: .events)
    row += 1
    drawEvents(&grid, theme, rows: eventRows, top: row)
  }

  private func drawTitle(
    _ grid: inout ScreenGrid, _ theme: Theme, row: Int, _ title: String, count: Int,
    panel: InspectorState.Panel
  ) {
    let focused = state.focus == panel
    grid.fill(row: row, from: 0, to: grid.width, with: "─", style: theme.dim)
    let text = "\(focused ? "▸" : "─") \(title) (\(count)) "
    grid.write(text, row: row, column: 1, style: focused ? theme.title : theme.dim)
  }

  /// Scrolls so that `selected` is visible in `rows` rows.
  private func window(count: Int, selected: Int, rows: Int) -> Range<Int> {
    guard count > rows else { return 0..<count }
    let start = min(max(selected - rows / 2, 0), count - rows)
    return start..<(start + rows)
  }

  private func label(of action: Int) -> String {
    let info = replay.actions[action]
    return "#\(info.id) \(info.mode.name)"
  }

  private func queue(of action: Int) -> String {
    replay.schedulers[replay.actions[action].scheduler]?.label
      ?? "queue \(replay.actions[action].scheduler)"
  }

  private func site(of action: Int) -> String {
    guard let site = replay.callSites[replay.actions[action].site] else { return "—" }
    return "\(site.file):\(site.line)"
  }

  // MARK: Lanes

  private func drawLanes(
    _ grid: inout ScreenGrid, _ theme: Theme, _ lanes: [Lane], rows: Int, top: Int
  ) {
    guard !lanes.isEmpty else {
      grid.write(
        "  (no lanes\(state.laneFilter.isEmpty ? "" : " match \"\(state.laneFilter)\""))", row: top,
        column: 0, style: theme.dim)
      return
    }
    let selected = min(state.selected(.lanes), lanes.count - 1)
    let titleWidth = min(24, grid.width / 4)
    let countsWidth = 9
    let stripStart = titleWidth + 3
    let stripWidth = max(grid.width - stripStart - countsWidth - 1, 8)
    let halfSpan = max(laneSpan / 2, 1)
    let windowStart = state.clock - halfSpan
    let columnSpan = max((2 * halfSpan) / Int64(stripWidth), 1)
    var pendingActions: [Int] = []
    replay.forEachPending { pendingActions.append($0) }
    let pendingByLane = counts(pendingActions, lanes)
    let runningByLane = counts(replay.running, lanes)
    for (offset, index) in window(count: lanes.count, selected: selected, rows: rows).enumerated() {
      let lane = lanes[index]
      let row = top + offset
      let isSelected = index == selected
      grid.write(isSelected ? "▸" : " ", row: row, column: 0, style: theme.title)
      grid.write(
        lane.title, row: row, column: 1, style: isSelected ? theme.selected : .plain,
        limit: titleWidth)
      var strip = [(String, Style)](repeating: ("·", theme.dim), count: stripWidth)
      let cursorColumn = Int((state.clock - windowStart) / columnSpan)
      for event in eventsInWindow(from: windowStart, to: windowStart + 2 * halfSpan)
      where lane.contains(event, replay) {
        let column = Int((event.time - windowStart) / columnSpan)
        guard column >= 0, column < stripWidth else { continue }
        let future = event.time > state.clock
        let mark: (String, Style) =
          switch event.kind {
          case .schedule: ("s", theme.schedule)
          case .begin: ("▶", theme.running)
          case .end: ("█", theme.running)
          case .cancel: ("×", theme.cancel)
          case .hop: ("↷", theme.schedule)
          case .mark: ("◆", theme.mark)
          }
        if strip[column].0 == "·" || event.kind == .cancel || event.kind == .begin {
          strip[column] = (mark.0, future ? theme.dim : mark.1)
        }
      }
      if cursorColumn >= 0, cursorColumn < stripWidth, strip[cursorColumn].0 == "·" {
        strip[cursorColumn] = ("│", theme.cursor)
      }
      for (column, cell) in strip.enumerated() {
        grid.write(cell.0, row: row, column: stripStart + column, style: cell.1)
      }
      let counts = "\(pendingByLane[index])p \(runningByLane[index])r"
      grid.write(
        counts, row: row, column: grid.width - TextWidth.columns(of: counts) - 1,
        style: runningByLane[index] > 0 ? theme.running : theme.dim)
    }
  }

  /// The virtual time the lane strips show, centred on the cursor.
  private var laneSpan: Int64 { max(state.timeStep * 4, 1_000) }

  private func eventsInWindow(from start: Int64, to end: Int64) -> ArraySlice<ReplayEvent> {
    let first = replay.firstIndex(after: start - 1)
    let last = min(replay.firstIndex(after: end), first + 50_000)
    return replay.events[first..<max(first, last)]
  }

  private func counts(_ actions: [Int], _ lanes: [Lane]) -> [Int] {
    lanes.map { lane in
      actions.count { action in
        switch lane.key {
        case .scheduler(let id): replay.actions[action].scheduler == id
        case .thread(let id): replay.actions[action].thread == id
        }
      }
    }
  }

  // MARK: Pending and running

  private func drawPending(
    _ grid: inout ScreenGrid, _ theme: Theme, _ pending: [Int], rows: Int, top: Int
  ) {
    guard !pending.isEmpty else {
      grid.write("  nothing pending", row: top, column: 0, style: theme.dim)
      return
    }
    let selected = min(state.selected(.pending), pending.count - 1)
    for (offset, index) in window(count: pending.count, selected: selected, rows: rows).enumerated()
    {
      let action = pending[index]
      let dueIn = replay.nextDue(of: action) - state.clock
      let due = dueIn >= 0 ? "in \(TimeText.duration(dueIn))" : "late \(TimeText.duration(-dueIn))"
      let columns: [(text: String, width: Int, style: Style)] = [
        (label(of: action), 14, .plain), (queue(of: action), 18, .plain),
        (due, 14, dueIn < 0 ? theme.warning : .plain),
        ("at \(TimeText.seconds(replay.actions[action].scheduledAt))", 14, .plain),
        (site(of: action), 60, .plain),
      ]
      drawRow(
        &grid, theme, row: top + offset, columns,
        selected: state.focus == .pending && index == selected)
    }
  }

  private func drawRunning(
    _ grid: inout ScreenGrid, _ theme: Theme, _ running: [Int], rows: Int, top: Int
  ) {
    guard !running.isEmpty else {
      grid.write("  nothing running", row: top, column: 0, style: theme.dim)
      return
    }
    let selected = min(state.selected(.running), running.count - 1)
    for (offset, index) in window(count: running.count, selected: selected, rows: rows).enumerated()
    {
      let action = running[index]
      let began = replay.lastEvent(of: action, kind: .begin, before: replay.position).map {
        replay.events[$0]
      }
      let thread = began.map { "thread \($0.thread)" } ?? ""
      let elapsed = began.map { "for \(TimeText.duration(state.clock - $0.time))" } ?? ""
      let cancelled = replay.state(of: action) == .runningCancelled ? "cancelled" : ""
      let columns: [(text: String, width: Int, style: Style)] = [
        (label(of: action), 14, .plain), (queue(of: action), 18, .plain), (thread, 14, .plain),
        (elapsed, 14, .plain), (cancelled, 12, theme.cancel),
      ]
      drawRow(
        &grid, theme, row: top + offset, columns,
        selected: state.focus == .running && index == selected)
    }
  }

  /// One row of a panel: cells of fixed widths, each with its own style.
  private func drawRow(
    _ grid: inout ScreenGrid, _ theme: Theme, row: Int,
    _ columns: [(text: String, width: Int, style: Style)], selected: Bool
  ) {
    var x = 2
    for column in columns where x < grid.width {
      grid.write(column.text, row: row, column: x, style: column.style, limit: column.width - 1)
      x += column.width
    }
    if selected { grid.paint(row: row, from: 1, to: grid.width - 1, style: theme.selected) }
  }

  // MARK: Events

  private func drawEvents(_ grid: inout ScreenGrid, _ theme: Theme, rows: Int, top: Int) {
    guard replay.eventCount > 0 else {
      grid.write("  the trace has no events", row: top, column: 0, style: theme.dim)
      return
    }
    let current = max(replay.position - 1, 0)
    for (offset, index) in window(count: replay.eventCount, selected: current, rows: rows)
      .enumerated()
    {
      let event = replay.events[index]
      let row = top + offset
      let isCurrent = index == replay.position - 1
      let future = index >= replay.position
      var text =
        "\(String(index + 1).leftPadded(to: 7))  \(TimeText.seconds(event.time).leftPadded(to: 12))  \(event.kind.name.padded(to: 8))"
      if event.kind == .mark {
        let mark =
          replay.marks.indices.contains(Int(event.detail)) ? replay.marks[Int(event.detail)] : nil
        text += "\"\(mark?.name ?? "")\""
        if let fields = mark?.fields, !fields.isEmpty {
          text +=
            " "
            + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
              separator: " ")
        }
      } else {
        let action = Int(event.action)
        text +=
          "\(label(of: action).padded(to: 14))\(queue(of: action).padded(to: 18))thread \(event.thread)"
        switch event.kind {
        case .hop: text += " ← \(event.detail)"
        case .cancel: text += event.started ? " (after start)" : " (before start)"
        case .begin, .end: if replay.actions[action].isRepeating { text += " run \(event.detail)" }
        case .schedule, .mark: break
        }
      }
      let style: Style =
        isCurrent
        ? theme.current : future ? theme.dim : event.kind == .cancel ? theme.cancel : .plain
      grid.write(isCurrent ? "▸" : " ", row: row, column: 0, style: theme.title)
      grid.write(text, row: row, column: 1, style: style)
      if isCurrent { grid.paint(row: row, from: 1, to: grid.width, style: theme.current) }
    }
  }
}

extension String {
  func padded(to width: Int) -> String {
    let columns = TextWidth.columns(of: self)
    return columns >= width ? self + " " : self + String(repeating: " ", count: width - columns)
  }

  func leftPadded(to width: Int) -> String {
    let columns = TextWidth.columns(of: self)
    return columns >= width ? self : String(repeating: " ", count: width - columns) + self
  }
}
