/// How many terminal columns text takes, and how to make untrusted text safe to draw.
public enum TextWidth {
  /// The columns a grapheme takes: 0, 1 or 2.
  ///
  /// East Asian wide and fullwidth characters and emoji take two; combining marks are part of
  /// their grapheme; everything else takes one. This follows Unicode's East Asian Width ranges
  /// closely enough for labels and file names, and does not depend on the C library's locale.
  public static func columns(of grapheme: Character) -> Int {
    guard let first = grapheme.unicodeScalars.first else { return 0 }
    if grapheme.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
    if grapheme.unicodeScalars.count > 1,
      grapheme.unicodeScalars.contains(where: { $0.value == 0xFE0F })
    {
      return 2  // emoji presentation selector
    }
    return isWide(first.value) ? 2 : 1
  }

  /// The columns a string takes.
  public static func columns(of text: some StringProtocol) -> Int {
    text.reduce(0) { $0 + columns(of: $1) }
  }

  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
      0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
      0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
      0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
      true
    default:
      false
    }
  }

  /// The text with every control character (C0, DEL, C1), and so every escape sequence, shown
  /// as a visible escape such as `\u{1b}`, so text from a trace file can never drive the
  /// terminal.
  ///
  /// Printable ASCII, most text, is checked a byte at a time: looking up each scalar's general
  /// category took over a third of `chronoscope check`'s time on a trace of many findings.
  public static func sanitized(_ text: some StringProtocol) -> String {
    sanitized(String(text))
  }

  /// The same for a `String`, whose fast path reads the string's own bytes (through the
  /// generic parameter, each byte cost a call).
  public static func sanitized(_ text: String) -> String {
    var text = text
    if text.withUTF8({ $0.allSatisfy { (0x20..<0x7F).contains($0) } }) { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
        || scalar.value >= 0xA0 && scalar.properties.generalCategory == .format
          && scalar.value != 0x200D
      {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

extension TextWidth {
  /// The sanitized text cut to at most `width` columns, ending in `…` when it was cut, so every
  /// panel shortens long labels the same way.
  ///
  /// - Complexity: O(`width`), however long the text.
  public static func truncated(_ text: some StringProtocol, to width: Int) -> String {
    guard width > 0 else { return "" }
    var out = ""
    var used = 0
    var cut = false
    // Look at no more graphemes than could fit: a 1 MB label costs what a short one does.
    for grapheme in sanitized(text.prefix(width + 1)) {
      let columns = columns(of: grapheme)
      if used + columns > width {
        cut = true
        break
      }
      out.append(grapheme)
      used += columns
    }
    if !cut, !text.dropFirst(width + 1).isEmpty { cut = true }
    guard cut else { return out }
    while !out.isEmpty, used + 1 > width {
      used -= columns(of: out.removeLast())
    }
    return out + "…"
  }
}

extension String {
  /// The text with spaces after it up to `width` columns (one space when it is as wide or wider).
  package func padded(to width: Int) -> String {
    let columns = TextWidth.columns(of: self)
    return columns >= width ? self + " " : self + String(repeating: " ", count: width - columns)
  }

  /// The text with spaces before it up to `width` columns.
  package func leftPadded(to width: Int) -> String {
    let columns = TextWidth.columns(of: self)
    return columns >= width ? self : String(repeating: " ", count: width - columns) + self
  }
}
