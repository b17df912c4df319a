import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

/// The lanes and their strips over the time window: a title with what the selected lane did
/// and a legend, a row a lane (its label, its strip, its state now at the right), the marks'
/// row, then the time axis with the cursor.
struct LanesPanel {
  /// One lane's row.
  struct Row {
    /// Its label, cut in its middle to fit, its number kept.
    var name: LaneLabel
    /// Its strip, a cell a column of the window.
    var cells: [StripCell]
    /// What it holds at the cursor: `2p 1r`, `busy 3.2ms`, `idle`.
    var status: String
    /// Whether something of it runs at the cursor.
    var busy: Bool
    /// Whether it is the selected lane.
    var isSelected = false
  }

  /// The title row's title: `Lanes (by scheduler)` and its counts.
  var title: PanelTitle
  /// What the selected lane did: `main ran app.db`; nil for a scheduler's lane.
  var about: String?
  /// The lanes on screen.
  var rows: [Row]
  /// What the panel says when no lane shows.
  var empty: String
  /// The label's width (see ``PanelLayout``).
  var labelWidth: Int
  /// Where the strips are and what time they show.
  var strip: StripGeometry
  /// The cursor's time.
  var clock: Int64
  /// The marks' row: its strip and the marks in the window; nil when the trace has no marks.
  var marks: (cells: [StripCell], count: Int)?

  /// Draws the title, lanes, marks and axis on the rows `layout` gives them.
  func draw(into grid: inout ScreenGrid, theme: Theme, rows layout: MainRows) {
    drawTitle(into: &grid, theme: theme, row: layout.title(of: .lanes))
    drawLanes(into: &grid, theme: theme, top: layout.lanes.lowerBound)
    if let row = layout.marks, let marks {
      grid.write(
        TextWidth.truncated("◆ marks", to: labelWidth), row: row, column: 1, style: theme.dim)
      drawStrip(&grid, theme, marks.cells, row: row)
      let counts = marks.count == 1 ? "1 mark" : "\(marks.count) marks"
      grid.write(
        counts, row: row, column: grid.width - TextWidth.columns(of: counts) - 1, style: theme.dim
      )
    }
    drawAxis(into: &grid, theme: theme, row: layout.axis)
  }

  private func drawTitle(into grid: inout ScreenGrid, theme: Theme, row: Int) {
    var column = title.draw(into: &grid, theme: theme, row: row)
    if let about {
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

  private func drawLanes(into grid: inout ScreenGrid, theme: Theme, top: Int) {
    guard !rows.isEmpty else {
      grid.write(empty, row: top, column: 0, style: theme.dim)
      return
    }
    for (offset, lane) in rows.enumerated() {
      let row = top + offset
      grid.write(lane.isSelected ? "▸" : " ", row: row, column: 0, style: theme.title)
      grid.write(
        lane.name.fitted(to: labelWidth), row: row, column: 1,
        style: lane.isSelected ? theme.selected : .plain)
      drawStrip(&grid, theme, lane.cells, row: row)
      grid.write(
        lane.status, row: row, column: grid.width - TextWidth.columns(of: lane.status) - 1,
        style: lane.busy ? theme.running : theme.dim)
    }
  }

  /// One strip's cells: the cursor shows over a run or an empty column, not over an event.
  private func drawStrip(_ grid: inout ScreenGrid, _ theme: Theme, _ cells: [StripCell], row: Int) {
    let cursorColumn = strip.column(of: clock)
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

  private func drawAxis(into grid: inout ScreenGrid, theme: Theme, row: Int) {
    let scale = "\(TimeText.duration(strip.columnSpan))/col"
    grid.write(
      scale, row: row, column: grid.width - TextWidth.columns(of: scale) - 1, style: theme.dim)
    let left = "├" + TimeText.seconds(strip.windowStart)
    let right = TimeText.seconds(strip.windowEnd) + "┤"
    grid.write(left, row: row, column: strip.start, style: theme.dim)
    let rightColumn = strip.start + strip.width - TextWidth.columns(of: right)
    if let cursor = strip.column(of: clock) {
      let now = "▲ \(TimeText.seconds(clock))"
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
}
