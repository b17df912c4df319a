/// One column of one row of the screen.
package struct Cell: Sendable, Hashable {
  /// What the cell shows: one grapheme, already made safe to print (no control characters). A
  /// wide grapheme (two columns) sits in its first cell; the next cell is a continuation.
  package var text: String
  /// How it looks.
  package var style: Style
  /// Whether this cell is the second column of a wide grapheme to its left.
  package var isContinuation: Bool

  /// Makes a cell.
  package init(text: String = " ", style: Style = .plain, isContinuation: Bool = false) {
    self.text = text
    self.style = style
    self.isContinuation = isContinuation
  }

  /// An empty cell.
  package static let blank = Cell()
}
