import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen

/// A titled list of actions with their role, one selected, as the detail and the finding pages
/// end: `scheduled by  #3 after  app.db  …`.
struct ActionLinksPanel: Equatable {
  /// One action of the list.
  struct Row: Equatable {
    /// How it is related: `scheduled by`, `the action`…
    var role: String
    /// `#12 after`.
    var label: String
    /// Its scheduler's lane.
    var scheduler: LaneLabel
    /// What the app named it; empty when it did not.
    var workName: String
    /// Where it was scheduled: `file.swift:12`, or `—`.
    var site: String
  }

  /// The list's title: `Related (3) · j/k select · ⏎ follow · esc back`.
  var title: String
  /// The actions.
  var rows: [Row]
  /// The selected row.
  var selected: Int
  /// Whether the trace names work, so that the list has a column of names.
  var hasNamedWork: Bool

  /// Draws the title at row `top` and the rows under it, down to the status bar; nothing when
  /// there are no rows or no room.
  func draw(into grid: inout ScreenGrid, theme: Theme, from top: Int) {
    let bottom = grid.height - 1
    guard !rows.isEmpty, top + 1 < bottom else { return }
    grid.write(title, row: top, column: 3, style: theme.title)
    var row = top + 1
    let selected = min(max(selected, 0), rows.count - 1)
    let visible = VisibleRows.around(selected, count: rows.count, rows: bottom - row)
    let workWidth = hasNamedWork ? 24 : 0
    // Columns that give way whole, lined up: the call site keeps its file name and line.
    let columns = visible.map { index in
      [
        PanelColumn(rows[index].role, width: 13, priority: 100, fit: .name(minimum: 12)),
        PanelColumn(rows[index].label, width: 16, priority: 90, fit: .name(minimum: 15)),
        rows[index].scheduler.column(width: 20, priority: 80, minimum: 9),
        PanelColumn(
          rows[index].workName, width: workWidth, priority: 75, fit: .name(minimum: 9)),
        PanelColumn(rows[index].site, width: 60, priority: 70, fit: .path),
      ]
    }
    let widths = PanelColumn.widths(of: columns, in: grid.width - 4)
    for (index, line) in zip(visible, columns) {
      grid.write(index == selected ? "▸" : " ", row: row, column: 1, style: theme.title)
      var x = 3
      for (column, width) in zip(line, widths) where width > 0 {
        grid.write(column.text(in: width), row: row, column: x)
        x += width
      }
      if index == selected {
        grid.paint(row: row, from: 3, to: grid.width - 1, style: theme.selected)
      }
      row += 1
    }
  }
}
