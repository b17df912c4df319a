import ChronoscopeCore

/// A screen's worth of styled cells: what every view draws into, and what the terminal adapter
/// copies to the terminal.
///
/// ```swift
/// var grid = ScreenGrid(width: 80, height: 24)
/// grid.write("Chronoscope", row: 0, column: 2, style: Style(bold: true))
/// print(grid.plainText)
/// ```
///
/// Writing clips at the right edge and never splits a wide grapheme; text is sanitized, so no
/// control character ever reaches a cell.
@_spi(Benchmarks) public struct ScreenGrid: Sendable, Equatable {
  /// Columns.
  @_spi(Benchmarks) public let width: Int
  /// Rows.
  package let height: Int
  /// Row-major cells.
  package private(set) var cells: [Cell]

  /// The most columns or rows a grid has: no terminal is larger, and a hostile size cannot ask
  /// for more cells than memory holds.
  package static let maximumSide = 1024

  /// Makes a blank grid; each side is clamped to `0...maximumSide`.
  package init(width: Int, height: Int) {
    self.width = min(max(width, 0), Self.maximumSide)
    self.height = min(max(height, 0), Self.maximumSide)
    cells = Array(repeating: .blank, count: self.width * self.height)
  }

  /// The cell at a position.
  package subscript(row: Int, column: Int) -> Cell {
    get { cells[row * width + column] }
    set { cells[row * width + column] = newValue }
  }

  /// Writes `text` from `column` on `row`, clipped to `limit` columns (default: the row's end),
  /// and returns the column after the last one written.
  @discardableResult
  package mutating func write(
    _ text: some StringProtocol, row: Int, column: Int, style: Style = .plain, limit: Int? = nil
  ) -> Int {
    guard row >= 0, row < height, column < width else { return column }
    let end = min(width, column.adding(saturating: max(limit ?? width, 0)))
    var x = max(column, 0)
    for grapheme in TextWidth.sanitized(text) {
      let columns = TextWidth.columns(of: grapheme)
      if columns == 0 { continue }
      if x + columns > end { break }
      self[row, x] = Cell(text: String(grapheme), style: style)
      if columns == 2 { self[row, x + 1] = Cell(text: "", style: style, isContinuation: true) }
      x += columns
    }
    return x
  }

  /// Paints `style` over a span of a row, keeping the text.
  package mutating func paint(row: Int, from start: Int, to end: Int, style: Style) {
    guard row >= 0, row < height, max(start, 0) < min(end, width) else { return }
    for x in max(start, 0)..<min(end, width) { self[row, x].style = style }
  }

  /// Fills a span of a row with one character.
  package mutating func fill(
    row: Int, from start: Int, to end: Int, with text: String = " ", style: Style = .plain
  ) {
    guard row >= 0, row < height, max(start, 0) < min(end, width) else { return }
    for x in max(start, 0)..<min(end, width) { self[row, x] = Cell(text: text, style: style) }
  }

  /// The grid as plain text, one line per row, trailing spaces trimmed: for `chronoscope show`
  /// and golden tests.
  package var plainText: String {
    (0..<height).map { row in
      var line = ""
      for column in 0..<width where !self[row, column].isContinuation {
        line += self[row, column].text
      }
      while line.hasSuffix(" ") { line.removeLast() }
      return line
    }.joined(separator: "\n")
  }
}
