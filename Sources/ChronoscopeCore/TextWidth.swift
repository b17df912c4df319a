/// How many terminal columns text takes, and how to make untrusted text safe to draw.
package enum TextWidth {
  /// The columns a grapheme (an extended grapheme cluster) takes: 1 or 2.
  ///
  /// Measured as a whole, as terminals that follow Unicode draw it: an emoji sequence — joined
  /// with ZWJ (`👨‍👩‍👧`, `⛹‍♀`), a flag (`🇯🇵`, `🏴󠁧󠁢󠁥󠁮󠁧󠁿`), a skin tone (`👋🏽`) or an emoji
  /// presentation selector (`❤️`, `1️⃣`) — takes two, whatever its parts would; a text
  /// presentation selector (`❤︎`) makes the base its own width. East Asian wide and fullwidth
  /// characters take two; combining marks are part of their grapheme; everything else takes
  /// one. This follows Unicode's East Asian Width and emoji properties (UTS #51), not the C
  /// library's locale, so it is the same on every machine.
  ///
  /// - Complexity: O(1) for an ASCII grapheme; else O(its scalars).
  package static func columns(of grapheme: Character) -> Int {
    if grapheme.isASCII { return 1 }
    let scalars = grapheme.unicodeScalars
    guard let first = scalars.first else { return 0 }
    if scalars.count == 1 { return baseColumns(first) }
    var emojiSelector = false
    var textSelector = false
    var joined = false
    var presentation = false
    var emoji = 0
    for scalar in scalars {
      switch scalar.value {
      case 0xFE0F: emojiSelector = true
      case 0xFE0E: textSelector = true
      case 0x200D: joined = true
      // A skin tone, or a tag sequence's tags (subdivision flags): emoji sequences.
      case 0x1F3FB...0x1F3FF, 0xE0020...0xE007F: presentation = true
      default:
        if scalar.properties.isEmojiPresentation { presentation = true }
        if scalar.properties.isEmoji { emoji += 1 }
      }
    }
    if textSelector, !emojiSelector { return baseColumns(first) }
    if emojiSelector || presentation || (joined && emoji >= 2) { return 2 }
    return isWide(first.value) ? 2 : 1
  }

  /// The columns of a grapheme's first scalar on its own: two for emoji presentation (which
  /// Unicode makes East Asian Wide, but for the regional indicators) and the wide and fullwidth
  /// characters.
  private static func baseColumns(_ scalar: Unicode.Scalar) -> Int {
    // A regional indicator alone is a letter (East Asian Width N); two make a flag.
    if (0x1F1E6...0x1F1FF).contains(scalar.value) { return 1 }
    return scalar.properties.isEmojiPresentation || isWide(scalar.value) ? 2 : 1
  }

  /// The columns a string takes: the sum of its graphemes'.
  ///
  /// - Complexity: O(n); printable ASCII, most text, is counted a byte at a time.
  package static func columns(of text: some StringProtocol) -> Int {
    columns(of: String(text))
  }

  /// The same for a `String`, whose fast path reads the string's own bytes: through the generic
  /// parameter each byte cost a call (about 3 µs for a 62-byte label, against 0.05–0.1 µs).
  package static func columns(of text: String) -> Int {
    var text = text
    let ascii = text.withUTF8 { bytes in
      bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? bytes.count : nil
    }
    return ascii ?? text.reduce(0) { $0 + columns(of: $1) }
  }

  /// Whether a scalar is East Asian Wide or Fullwidth and not an emoji (emoji go by their
  /// presentation: ``columns(of:)-(Character)``): Unicode 15.1's `EastAsianWidth.txt`, W and F.
  private static func isWide(_ value: UInt32) -> Bool {
    switch value {
    case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
      0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
      0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
      0x16FF0...0x16FF1, 0x17000...0x187F7, 0x18800...0x18CD5, 0x18D00...0x18D08,
      0x1AFF0...0x1AFFE, 0x1B000...0x1B122, 0x1B132, 0x1B150...0x1B152, 0x1B155,
      0x1B164...0x1B167, 0x1B170...0x1B2FB, 0x1F200...0x1F202, 0x1F210...0x1F23B,
      0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265, 0x20000...0x2FFFD,
      0x30000...0x3FFFD:
      true
    default:
      false
    }
  }

  /// The text with every control character (C0, DEL, C1), and so every escape sequence, and
  /// every invisible format character and line or paragraph separator (U+2028, U+2029: a line
  /// break to some terminals and editors) shown as a visible escape such as `\u{1b}`, so text
  /// from a trace file can never drive the terminal or break a line. ZWJ and a flag's tags in a
  /// well-formed emoji tag sequence (`🏴󠁧󠁢󠁥󠁮󠁧󠁿`) stay: they are part of an emoji.
  ///
  /// Printable ASCII, most text, is checked a byte at a time: looking up each scalar's general
  /// category took over a third of `chronoscope check`'s time on a trace of many findings.
  package static func sanitized(_ text: some StringProtocol) -> String {
    sanitized(String(text))
  }

  /// The same for a `String`, whose fast path reads the string's own bytes (through the
  /// generic parameter, each byte cost a call).
  package static func sanitized(_ text: String) -> String {
    var text = text
    if text.withUTF8({ $0.allSatisfy { (0x20..<0x7F).contains($0) } }) { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count)
    let scalars = text.unicodeScalars
    var index = scalars.startIndex
    while index < scalars.endIndex {
      let scalar = scalars[index]
      if scalar.value == 0x1F3F4, let end = tagSequenceEnd(in: scalars, after: index) {
        out.unicodeScalars.append(contentsOf: scalars[index..<end])
        index = end
        continue
      }
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
        || scalar.value >= 0xA0 && scalar.value != 0x200D && isInvisible(scalar)
      {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
      index = scalars.index(after: index)
    }
    return out
  }

  /// Whether a scalar is a format character or a line or paragraph separator.
  private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .format, .lineSeparator, .paragraphSeparator: true
    default: false
    }
  }

  /// Where the emoji tag sequence that starts with the black flag at `flag` ends — a
  /// subdivision flag's two to seven tags (lowercase letters and digits, U+E0061…U+E007A and
  /// U+E0030…U+E0039: 🏴 gbeng), then CANCEL TAG (U+E007F) — or nil when no such one does. Any
  /// other run of tags is invisible text, which sanitizing escapes.
  private static func tagSequenceEnd(
    in scalars: String.UnicodeScalarView, after flag: String.UnicodeScalarView.Index
  ) -> String.UnicodeScalarView.Index? {
    var index = scalars.index(after: flag)
    var tags = 0
    while index < scalars.endIndex, tags < 7,
      (0xE0061...0xE007A).contains(scalars[index].value)
        || (0xE0030...0xE0039).contains(scalars[index].value)
    {
      tags += 1
      index = scalars.index(after: index)
    }
    guard tags >= 2, index < scalars.endIndex, scalars[index].value == 0xE007F else { return nil }
    return scalars.index(after: index)
  }
}

extension TextWidth {
  /// The sanitized text cut to at most `width` columns, ending in `…` when it was cut, so every
  /// panel shortens long labels the same way.
  ///
  /// - Complexity: O(`width`), however long the text.
  package static func truncated(_ text: some StringProtocol, to width: Int) -> String {
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

extension TextWidth {
  /// How to draw a grapheme on a terminal that measures each code point by itself, as
  /// `wcwidth(3)` does — ncurses, and terminals such as tmux, xterm or VTE — so that it takes
  /// exactly `columns` there too: the grapheme itself when such a terminal agrees with
  /// ``columns(of:)-(Character)``, else its first visible code point (`❤️` → `❤`, `👨‍👩‍👧` → `👨`)
  /// padded with spaces, one string a column.
  ///
  /// Sending `👨‍👩‍👧` as it is would move such a terminal's cursor by 6 columns where the grid
  /// counts 2, and push the rest of the row to the right.
  ///
  /// - Parameters:
  ///   - grapheme: A cell's text (``Cell/text``).
  ///   - columns: The columns the grid gives it: 2 when the next cell is its continuation.
  /// - Returns: Strings whose per-code-point widths add up to `columns`; the first goes in the
  ///   grapheme's column, each next one in the column after.
  package static func terminalPieces(of grapheme: String, columns: Int) -> [String] {
    let scalars = grapheme.unicodeScalars
    let visible = scalars.filter { codePointColumns($0) > 0 }
    // ncurses keeps at most 5 code points in a cell (CCHARW_MAX), the first one visible.
    if visible.count == 1, let first = scalars.first, codePointColumns(first) == columns,
      scalars.count <= 5
    {
      return [grapheme]
    }
    var pieces: [String] = []
    var used = 0
    if let first = visible.first, codePointColumns(first) <= columns {
      pieces.append(String(first))
      used = codePointColumns(first)
    }
    return pieces + Array(repeating: " ", count: max(columns - used, 0))
  }

  /// A code point's columns measured on its own, as `wcwidth(3)` measures it: none for marks,
  /// format characters and selectors, which join the code point before them.
  static func codePointColumns(_ scalar: Unicode.Scalar) -> Int {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    // Hangul medial vowels and final consonants join the initial consonant before them.
    if (0x1160...0x11FF).contains(scalar.value) { return 0 }
    return baseColumns(scalar)
  }
}
