import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen

/// What a screen below the smallest size shows instead of a view: that it is too small, the
/// size needed and the size it has, and how to quit.
struct TooSmallPanel: Equatable {
  /// The smallest width the views are drawn at.
  var minimumWidth: Int
  /// The smallest height the views are drawn at.
  var minimumHeight: Int

  /// Draws the three lines in the middle of `grid`, whose size is the one the screen has.
  func draw(into grid: inout ScreenGrid, theme: Theme) {
    let lines = [
      "terminal too small",
      "need \(minimumWidth)×\(minimumHeight), have \(grid.width)×\(grid.height)",
      "q quits",
    ]
    for (offset, line) in lines.enumerated() {
      let row = grid.height / 2 - 1 + offset
      let column = max((grid.width - TextWidth.columns(of: line)) / 2, 0)
      grid.write(line, row: row, column: column, style: offset == 0 ? theme.warning : .plain)
    }
  }
}
