extension TextWidth {
  /// Whether a cut next to `character` could read as a shorter number: `3600.01…`, `worker 1…`.
  private static func isNumeric(_ character: Character) -> Bool {
    character.isNumber || character == "."
  }

  /// A name cut to at most `width` columns at its end, as ``truncated(_:to:)`` cuts it, but never
  /// right after a digit or a `.`, so that a cut name never ends in what reads as a shorter
  /// number: `worker 123` cut to 9 is `worker …`, not `worker 1…`.
  package static func truncatedName(_ text: some StringProtocol, to width: Int) -> String {
    let cut = self.cut(text, to: width)
    guard var kept = cut.kept else { return cut.whole }
    while let last = kept.last, isNumeric(last) { kept.removeLast() }
    return kept + "…"
  }

  /// `text` cut as ``truncated(_:to:)`` cuts it, and, when that cut it, what it kept without
  /// the `…`: the start of a cut that takes back more.
  private static func cut(_ text: some StringProtocol, to width: Int) -> (
    whole: String, kept: String?
  ) {
    let whole = truncated(text, to: width)
    // Cut only when the text is wider than `width`: a text may end in `…` of its own.
    guard width > 0, whole.hasSuffix("…"), columns(of: sanitized(text.prefix(width + 1))) > width
    else { return (whole, nil) }
    return (whole, String(whole.dropLast()))
  }

  /// Text cut to at most `width` columns at its end, as ``truncated(_:to:)`` cuts it, but never
  /// inside a word that holds a digit, nor right after a `.`: no number or time is cut short.
  /// `due 0.04s, began 0.09s (late 11.5ms)` cut to 33 is `due 0.04s, began 0.09s (late …`;
  /// `worker 12` cut to 9 is `worker …`; `app.request.cache` cut to 13 is `app.request…`.
  ///
  /// - Complexity: O(`width`), however long the text.
  package static func truncatedKeepingNumbers(_ text: some StringProtocol, to width: Int) -> String
  {
    let cut = self.cut(text, to: width)
    guard var kept = cut.kept else { return cut.whole }
    let word = kept.reversed().prefix { $0 != " " }
    if word.contains(where: \.isNumber) { kept.removeLast(word.count) }
    while kept.last == "." { kept.removeLast() }
    return kept + "…"
  }

  /// Text cut to at most `width` columns in its middle, keeping its start and its end, as a
  /// file name or a lane's label is best recognised: `busy-app-virtual.trace` cut to 16 is
  /// `busy-…-app.trace`… without leaving a digit or a `.` beside the `…`.
  ///
  /// - Complexity: O(`width`), however long the text: only its ends can show, and a label read
  ///   from a trace may be 64 KiB, cut on every row of every frame.
  package static func truncatedInMiddle(_ text: some StringProtocol, to width: Int) -> String {
    guard width > 0 else { return "" }
    // A grapheme takes a column at least: `width + 1` of them from each end hold all that shows.
    let start = sanitized(text.prefix(width + 1))
    if text.dropFirst(width + 1).isEmpty, columns(of: start) <= width { return start }
    guard width > 1 else { return "…" }
    let room = width - 1
    var head = Substring("")
    var used = 0
    for character in start {
      if used + columns(of: character) > (room + 1) / 2 { break }
      head.append(character)
      used += columns(of: character)
    }
    var tail = Substring("")
    for character in sanitized(text.suffix(width + 1)).reversed() {
      if used + columns(of: character) > room { break }
      tail.insert(character, at: tail.startIndex)
      used += columns(of: character)
    }
    while let last = head.last, isNumeric(last) { head.removeLast() }
    while let first = tail.first, isNumeric(first) { tail.removeFirst() }
    return head + "…" + tail
  }

  /// A path with a line (`Sources/App/Search/File.swift:93`) cut to at most `width` columns at
  /// its front, whole directories at a time, so that the file name and line always show:
  /// `…/Search/File.swift:93`; empty when even `File.swift:93` does not fit.
  ///
  /// - Complexity: O(`width`), however long the path: only its end can show, and a path read
  ///   from a trace may be 64 KiB of directories.
  package static func truncatedPath(_ text: some StringProtocol, to width: Int) -> String {
    guard width > 0 else { return "" }
    // A character takes at least one column once sanitized (a control character more): the
    // last `width` characters and a few more hold whatever can show, and one more directory.
    let tail = text.suffix(min(width, 1 << 16) * 2 + 8)
    let whole = tail.startIndex == text.startIndex
    let shown = sanitized(tail)
    if whole, columns(of: shown) <= width { return shown }
    // Whole directories from the end while they fit; the first is cut (when `tail` is not the
    // whole text) or is the one that did not fit.
    var kept: [Substring] = []
    var used = 2  // `…/`
    for component in shown.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
      .reversed()
    {
      let needed = columns(of: component) + (kept.isEmpty ? 0 : 1)
      guard used + needed <= width else { break }
      used += needed
      kept.append(component)
    }
    return kept.isEmpty ? "" : "…/" + kept.reversed().joined(separator: "/")
  }
}

extension TextWidth {
  /// Sanitized text in rows of at most `width` columns, broken between words, at most `rows`
  /// of them: a word wider than a row is cut at its end, and the last row ends in `…` (as
  /// ``truncatedKeepingNumbers(_:to:)`` cuts, never inside a number) when the text goes on.
  /// `pending after running 17 times, next due 0.540000s (late 460.000ms)` in rows of 43 is
  /// `pending after running 17 times, next due` and `0.540000s (late 460.000ms)`.
  ///
  /// - Complexity: O(`width` × `rows`), however long the text.
  package static func wrapped(_ text: some StringProtocol, to width: Int, rows: Int) -> [String] {
    guard width > 0, rows > 0 else { return [] }
    // A character takes a column at least: no more than this can show.
    let limit = width.multiplied(saturating: rows).adding(saturating: 1)
    let words = sanitized(text.prefix(limit)).split(separator: " ")
    var lines: [String] = []
    var line = ""
    var used = 0
    for (index, word) in words.enumerated() {
      let wordColumns = columns(of: word)
      if !line.isEmpty, used + 1 + wordColumns <= width {
        line += " " + word
        used += 1 + wordColumns
        continue
      }
      if !line.isEmpty {
        guard lines.count + 1 < rows else {
          // The last row, and words left: they show as a `…`.
          let rest = words[index...].joined(separator: " ")
          return lines + [truncatedKeepingNumbers(line + " " + rest, to: width)]
        }
        lines.append(line)
      }
      line = wordColumns <= width ? String(word) : truncated(word, to: width)
      used = columns(of: line)
    }
    if !line.isEmpty { lines.append(line) }
    if !text.dropFirst(limit).isEmpty, let last = lines.popLast() {
      lines.append(truncatedKeepingNumbers(last + " …", to: width))
    }
    return lines
  }
}
