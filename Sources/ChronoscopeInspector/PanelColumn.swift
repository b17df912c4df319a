import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen

/// One cell of a panel's row: text in a slot, and how it gives way when the row is too narrow.
///
/// A narrow terminal drops whole columns, least important first, rather than cutting a number
/// in the middle (`due 3600.01476…` reads as a time it is not): see ``widths(of:in:)``.
struct PanelColumn {
  /// How a column gives way.
  enum Fit {
    /// Holds a number or a time: shown whole or not at all.
    case whole
    /// A name: cut at its end (never inside a number) down to `minimum` columns.
    case name(minimum: Int)
    /// A call site, `dir/File.swift:93`: cut at its front, never below its file name and line.
    case path
    /// A lane's label (the text its title, `ordinal` its number where titles repeat): cut in its
    /// middle down to `minimum` columns and the number, which is always kept (see
    /// `Lane.fitted(title:ordinal:to:)`).
    case label(ordinal: Int?, minimum: Int)
  }

  let text: String
  /// The columns it takes with the gap after it, when there is room.
  let width: Int
  let style: Style
  /// Higher stays longer.
  let priority: Int
  let fit: Fit

  init(_ text: String, width: Int, style: Style = .plain, priority: Int, fit: Fit = .whole) {
    self.text = text
    self.width = width
    self.style = style
    self.priority = priority
    self.fit = fit
  }

  /// The columns the text itself needs, with the gap after it.
  ///
  /// - Complexity: O(the columns it needs), however long the text: a name or path from a trace
  ///   may be 64 KiB, measured on every row of every frame.
  var minimum: Int {
    switch fit {
    case .whole:
      return TextWidth.columns(of: text) + 1
    case .name(let minimum):
      // Whether it is narrower than `minimum`: its start tells.
      return min(TextWidth.columns(of: text.prefix(minimum + 1)), minimum) + 1
    case .label(let ordinal, let minimum):
      let number = ordinal.map { "·\($0)".count } ?? 0
      return min(TextWidth.columns(of: text.prefix(minimum + 1)), minimum) + number + 1
    case .path:
      let file = text.lastIndex(of: "/").map { text[text.index(after: $0)...] } ?? text[...]
      let fileColumns = TextWidth.columns(of: file)
      // The whole text when it is no wider than `…/` and the file name, else those.
      return min(TextWidth.columns(of: text.prefix(fileColumns + 2)), fileColumns + 2) + 1
    }
  }

  /// The columns it takes when there is room: its slot, or more for a wider number.
  var preferred: Int {
    switch fit {
    case .whole: max(width, minimum)
    case .name, .path, .label: width
    }
  }

  /// The text cut to fit `width` columns (with the gap after it).
  func text(in width: Int) -> String {
    switch fit {
    case .whole: text
    case .name: TextWidth.truncatedName(text, to: width - 1)
    case .path: TextWidth.truncatedPath(text, to: width - 1)
    case .label(let ordinal, _): Lane.fitted(title: text, ordinal: ordinal, to: width - 1)
    }
  }

  /// The width of each column of a panel whose rows have the same columns in the same order,
  /// so that they line up; 0 for a column left out.
  ///
  /// Columns are kept by priority (the first row's), each at its smallest over the rows (a
  /// number whole, a name at its minimum, a path at its file name); the room left widens them,
  /// first to last, up to their slots. A column with no width in any row is left out.
  static func widths(of rows: [[PanelColumn]], in room: Int) -> [Int] {
    guard let first = rows.first else { return [] }
    var minimum = [Int](repeating: 0, count: first.count)
    var preferred = minimum
    for row in rows {
      for (index, column) in row.enumerated() where index < first.count && column.width > 0 {
        minimum[index] = max(minimum[index], column.minimum)
        preferred[index] = max(preferred[index], column.preferred)
      }
    }
    var widths = [Int](repeating: 0, count: first.count)
    var used = 0
    for index in first.indices.sorted(by: { first[$0].priority > first[$1].priority })
    where preferred[index] > 0 && used + minimum[index] <= room {
      widths[index] = minimum[index]
      used += minimum[index]
    }
    var spare = room - used
    for index in first.indices where widths[index] > 0 {
      let more = min(preferred[index] - minimum[index], spare)
      widths[index] += more
      spare -= more
    }
    return widths
  }
}
