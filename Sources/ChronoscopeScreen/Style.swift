/// How a cell is drawn: colours and attributes.
///
/// Colours are the eight ANSI colours; a monochrome terminal (or `NO_COLOR`) draws only the
/// attributes, so every view must stay readable with colours ignored.
package struct Style: Sendable, Hashable {
  /// One of the eight standard terminal colours.
  package enum Color: UInt8, Sendable, Hashable, CaseIterable {
    case black, red, green, yellow, blue, magenta, cyan, white
  }

  /// Text colour; nil for the terminal's default.
  package var foreground: Color?
  /// Background colour; nil for the terminal's default.
  package var background: Color?
  /// Bold (bright) text.
  package var bold: Bool
  /// Swapped foreground and background: selection and highlights.
  package var reverse: Bool
  /// Dim text, for secondary information.
  package var dim: Bool
  /// Underlined text.
  package var underline: Bool

  /// Makes a style.
  package init(
    foreground: Color? = nil, background: Color? = nil, bold: Bool = false, reverse: Bool = false,
    dim: Bool = false, underline: Bool = false
  ) {
    self.foreground = foreground
    self.background = background
    self.bold = bold
    self.reverse = reverse
    self.dim = dim
    self.underline = underline
  }

  /// The terminal's default look.
  package static let plain = Style()
}
