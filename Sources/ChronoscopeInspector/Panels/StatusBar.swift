import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen

/// The status bar, the bottom row of every view: the line being typed, else a message, else
/// the active search's count, else the key hints, with `? help · q quit` at the right.
///
/// A value of what the bar says, made from the inspector's state and cache
/// (``InspectorApp/statusBar(keyHints:)``), and drawn by ``cells(width:style:)`` alone: no
/// replay and no app needed to test it.
///
/// ```swift
/// let bar = StatusBar(message: "end of trace", keyHints: ["n/p step"])
/// let row = bar.cells(width: 80, style: Theme(colors: false).status)
/// ```
struct StatusBar: Equatable {
  /// The search the bar counts: its text, where the cursor's event is among its matches, and
  /// what they belong to.
  struct Search: Equatable {
    /// What was searched for.
    var text: String
    /// The current event's place among the matches (from 0), or nil when it is not one.
    var current: Int?
    /// How many events match.
    var count: Int
    /// What the matching events belong to (`4 actions, 1 mark`); empty for nothing.
    var owners: String
  }

  /// The line being typed, if any: it takes the whole bar.
  var prompt: InspectorState.Prompt?
  /// A one-line message, shown before the search.
  var message: String?
  /// The active search, shown when there is no message.
  var search: Search?
  /// The key hints, most useful first, shown when nothing else is; nil to leave every hint
  /// out, the fixed ones too (for `show`'s text).
  var keyHints: [String]?

  /// What the bar says at the left, and whether the hints may be shown beside it.
  private var text: (text: String, hints: Bool) {
    switch prompt {
    case .search(let query):
      return ("/\(query)▏  (Enter search, Esc cancel; label: site: mark: thread: #12)", false)
    case .seek(let input):
      return (
        "seek to: \(input)▏  (1.25s, 300ms, e120 event, #12 action; Enter go, Esc cancel)", false
      )
    case .filter(let input):
      return ("filter lanes: \(input)▏  (Enter keep, Esc close)", false)
    case nil:
      if let message { return (message, true) }
      guard let search else { return ("", true) }
      let current = search.current.map { "\($0 + 1)/" } ?? ""
      // One unit, events, which n and N step through; what they belong to in brackets.
      let events = search.count == 1 ? "matching event" : "matching events"
      let owners = search.owners.isEmpty ? "" : " (\(search.owners))"
      return (
        "search \"\(search.text)\": \(current)\(search.count) \(events)\(owners) · n next · N previous · Esc clear",
        true
      )
    }
  }

  /// The bar's row at `width` columns, every cell in `style`.
  ///
  /// - Complexity: O(`width` + the hints).
  func cells(width: Int, style: Style) -> [Cell] {
    var grid = ScreenGrid(width: width, height: 1)
    grid.fill(row: 0, from: 0, to: grid.width, style: style)
    var (text, hints) = self.text
    guard hints, let keyHints else {
      grid.write(" " + text, row: 0, column: 0, style: style)
      return grid.cells
    }
    // The fixed hints sit at the right; a message or the other hints take what room is left.
    let fixed = "? help · q quit "
    let fixedWidth = TextWidth.columns(of: fixed)
    let room = grid.width - fixedWidth - 1
    if text.isEmpty {
      var fitted: [String] = []
      var used = 0
      for hint in keyHints {
        let width = TextWidth.columns(of: hint) + 3
        if used + width > room { break }
        fitted.append(hint)
        used += width
      }
      text = fitted.joined(separator: " · ") + (fitted.isEmpty ? "" : " · ")
      grid.write(" " + text + fixed, row: 0, column: 0, style: style)
    } else {
      grid.write(
        " " + TextWidth.truncatedKeepingNumbers(text, to: room - 2), row: 0, column: 0,
        style: style)
      grid.write(fixed, row: 0, column: grid.width - fixedWidth, style: style)
    }
    return grid.cells
  }
}
