import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen

/// Why an action's worst run began late: its due time and begin, what it waited for, and the
/// stretches that add up to the lateness, each with the run that held it up, selectable.
struct BlamePanel: Equatable {
  /// One stretch of the lateness.
  struct Stretch: Equatable {
    /// The stretch in words: how long, who held things up (or that nothing did), and when.
    var text: String
    /// Whether nothing the action waited for ran then.
    var isIdle: Bool
  }

  /// `Why #12 was late · run 3 · 20ms`.
  var title: String
  /// When it was due, when it began, what it waited for.
  var lines: [(String, String)]
  /// The stretches listed: all of them, or the longest (``LatenessBlame/reportedShares``), in
  /// time order.
  var stretches: [Stretch]
  /// `… and 12 shorter stretches, 1.2ms in all`, when the list leaves some out.
  var omitted: String? = nil
  /// The selected stretch.
  var selected: Int

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.title == rhs.title && lhs.lines.map(\.0) == rhs.lines.map(\.0)
      && lhs.lines.map(\.1) == rhs.lines.map(\.1) && lhs.stretches == rhs.stretches
      && lhs.omitted == rhs.omitted && lhs.selected == rhs.selected
  }

  /// Draws the page from row 2 down to the status bar.
  func draw(into grid: inout ScreenGrid, theme: Theme) {
    grid.write(" " + title, row: 2, column: 1, style: theme.title)
    let top = LabelledLines.draw(lines, into: &grid, theme: theme, from: 4) + 1
    let bottom = grid.height - 1
    guard top + 1 < bottom else { return }
    let count =
      omitted == nil ? "\(stretches.count)" : "the \(stretches.count) longest, in time order"
    grid.write(
      "Held up by (\(count)) · j/k select · ⏎ details · esc back", row: top,
      column: 3, style: theme.title)
    let selected = min(max(selected, 0), stretches.count - 1)
    var row = top + 1
    // The line for the stretches left out takes the last row when it is there.
    let listRows = bottom - row - (omitted == nil ? 0 : 1)
    for index in VisibleRows.around(selected, count: stretches.count, rows: listRows) {
      grid.write(index == selected ? "▸" : " ", row: row, column: 1, style: theme.title)
      grid.write(
        TextWidth.truncated(stretches[index].text, to: grid.width - 4), row: row, column: 3,
        style: stretches[index].isIdle ? theme.dim : .plain)
      if index == selected {
        grid.paint(row: row, from: 3, to: grid.width - 1, style: theme.selected)
      }
      row += 1
    }
    if let omitted, row < bottom {
      grid.write(
        TextWidth.truncated(omitted, to: grid.width - 4), row: row, column: 3, style: theme.dim)
    }
  }
}
