import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen

/// A main-view panel's title row: `▸ Events (1077)`, or `─ Lanes (by scheduler) 12 of 40` where it
/// shows some of them; then the lane filter and notes, each after a `·`.
struct PanelTitle: Equatable {
  /// `Events`, `Lanes (by scheduler)`.
  var title: String
  /// The rows the panel shows.
  var count: Int
  /// The rows there are before the filter, where that may differ from ``count``.
  var total: Int?
  /// What else the title says: `sorted by name`, `idle hidden`.
  var notes: [String] = []
  /// The lane filter; empty for none.
  var filter = ""
  /// Whether the panel has the focus.
  var focused = false

  /// Draws the title across `row`; returns the column after its text.
  @discardableResult
  func draw(into grid: inout ScreenGrid, theme: Theme, row: Int) -> Int {
    grid.fill(row: row, from: 0, to: grid.width, with: "─", style: theme.dim)
    let filtered = filter.isEmpty ? "" : " · filter \"\(TextWidth.truncated(filter, to: 20))\""
    let counted = total.map { $0 == count ? "(\(count))" : "\(count) of \($0)" } ?? "(\(count))"
    let noted = notes.map { " · \($0)" }.joined()
    let text = "\(focused ? "▸" : "─") \(title) \(counted)\(filtered)\(noted) "
    return grid.write(text, row: row, column: 1, style: focused ? theme.title : theme.dim)
  }
}
