import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen

/// Labelled lines (`scheduler  app.db`), as the finding's and the blame's pages list what they
/// say: the label dim at column 3, the text from column 16.
enum LabelledLines {
  /// Draws `lines` from row `top` down to the status bar, each cut between words so that a
  /// time or a count is never cut short; returns the row after them.
  @discardableResult
  static func draw(
    _ lines: [(String, String)], into grid: inout ScreenGrid, theme: Theme, from top: Int
  ) -> Int {
    var row = top
    for line in lines where row < grid.height - 1 {
      grid.write(line.0, row: row, column: 3, style: theme.dim)
      grid.write(
        TextWidth.truncatedKeepingNumbers(line.1, to: grid.width - 17), row: row, column: 16)
      row += 1
    }
    return row
  }
}
