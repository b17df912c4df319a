@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

/// The listed findings, one a row: when, how bad, what, which action on which scheduler, and why.
struct FindingsListPanel: Equatable {
  /// One finding's row.
  struct Row: Equatable {
    var time: Int64
    var severity: Finding.Severity
    var kind: Finding.Kind
    /// Its action: `#12 after`.
    var label: String
    /// What the app named the action; empty when it did not.
    var workName: String
    /// The action's scheduler's lane.
    var scheduler: LaneLabel
    /// Why it is a finding.
    var message: String
  }

  /// The findings listed, or nil while they are still being looked for.
  var count: Int?
  /// The rows on screen (see ``visibleRows(count:selected:height:)``) and the first one's place
  /// in the list.
  var rows: [Row] = []
  var firstRow = 0
  /// The selected finding.
  var selected = 0
  /// The info findings of the trace, which `i` shows or hides.
  var infoCount = 0
  /// Whether info findings are listed.
  var showsInfo = false
  /// Whether the trace names work, so that rows have a column of names.
  var hasNamedWork = false

  /// The list's first row on screen.
  static let top = 4

  /// The findings a screen of `height` rows shows, around the selected one.
  static func visibleRows(count: Int, selected: Int, height: Int) -> Range<Int> {
    guard count > 0 else { return 0..<0 }
    let selected = min(max(selected, 0), count - 1)
    return VisibleRows.around(selected, count: count, rows: max(height - 1 - top, 1))
  }

  /// Draws the list's title at row 2 and its rows from ``top`` down to the status bar.
  func draw(into grid: inout ScreenGrid, theme: Theme) {
    let toggle =
      infoCount == 0
      ? "" : showsInfo ? " · i hides info" : " · i shows \(infoCount) info"
    grid.write(
      " Findings (\(count.map { "\($0)" } ?? "…")) · ⏎ open · x / X from the main view jump to the next / previous\(toggle)",
      row: 2, column: 1, style: theme.title)
    guard let count else {
      grid.write(
        "  still looking for findings: the list appears here when the pass is done", row: 4,
        column: 1, style: theme.dim)
      return
    }
    guard count > 0 else {
      let more =
        infoCount == 0
        ? "" : " (\(infoCount) info finding\(infoCount == 1 ? "" : "s"): i lists them)"
      grid.write(
        "  nothing in this trace looks like a bug\(more)", row: 4, column: 1, style: theme.dim)
      return
    }
    let selected = min(max(selected, 0), count - 1)
    for (offset, finding) in rows.enumerated() {
      let index = firstRow + offset
      let row = Self.top + offset
      let name = hasNamedWork ? TextWidth.truncated(finding.workName, to: 20).padded(to: 21) : ""
      let scheduler = Lane.fitted(
        title: finding.scheduler.title, ordinal: finding.scheduler.ordinal, to: 20)
      let text =
        "\(TimeText.seconds(finding.time).leftPadded(to: 12))  \(finding.severity.rawValue.padded(to: 8))\(finding.kind.rawValue.padded(to: 22))\(finding.label.padded(to: 17))\(name)\(scheduler.padded(to: 21))\(finding.message)"
      grid.write(index == selected ? "▸" : " ", row: row, column: 1, style: theme.title)
      grid.write(
        TextWidth.truncatedKeepingNumbers(text, to: grid.width - 4), row: row, column: 3,
        style: finding.severity == .info ? .plain : theme.warning)
      if index == selected {
        grid.paint(row: row, from: 3, to: grid.width - 1, style: theme.selected)
      }
    }
  }
}
