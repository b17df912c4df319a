@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

/// One finding: what it is, when, the explanation, and the actions involved, selectable.
struct FindingPanel: Equatable {
  /// Its place in the list, from 0, and the list's length.
  var index: Int
  var count: Int
  var kind: Finding.Kind
  var severity: Finding.Severity
  var time: Int64
  /// What the app named the action; empty when it did not.
  var workName: String
  /// The action's scheduler: `app.db ·2`.
  var scheduler: String
  /// Why it is a finding.
  var message: String
  /// Where the action was scheduled: `file.swift:12 in load()`.
  var callSite: String?
  /// The action, then the others involved; their roles are the panel's to say.
  var actions: [ActionLinksPanel.Row]
  /// The selected action.
  var selected: Int
  /// Whether the trace names work.
  var hasNamedWork: Bool
  /// Whether the first of ``actions`` is the finding's own: not for a wait of the main thread
  /// outside any action, whose actions are the work that ended the wait.
  var firstIsOwn = true

  /// Draws the page from row 2 down to the status bar.
  func draw(into grid: inout ScreenGrid, theme: Theme) {
    grid.write(
      " Finding \(index + 1) of \(count) · \(kind.rawValue) · \(severity.rawValue)",
      row: 2, column: 1, style: theme.title)
    var lines: [(String, String)] = [
      ("at", TimeText.seconds(time)),
      ("work", workName),
      ("scheduler", scheduler),
      ("what", message),
    ]
    lines.removeAll { $0.0 == "work" && $0.1.isEmpty }
    if let callSite { lines.append(("call site", callSite)) }
    let next = LabelledLines.draw(lines, into: &grid, theme: theme, from: 4)
    var rows = actions
    for position in rows.indices {
      rows[position].role =
        position == 0 && firstIsOwn
        ? "the action"
        : kind == .headOfLineBlocking ? "waited" : firstIsOwn ? "" : "signalled"
    }
    ActionLinksPanel(
      title: "Actions (\(rows.count)) · j/k select · ⏎ details · esc back", rows: rows,
      selected: selected, hasNamedWork: hasNamedWork
    ).draw(into: &grid, theme: theme, from: next + 1)
  }
}
