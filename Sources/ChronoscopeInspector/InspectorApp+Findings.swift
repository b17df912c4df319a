@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

extension InspectorApp {
  /// The listed findings, one a row: when, how bad, what, which action on which scheduler, and why.
  func drawFindings(_ grid: inout ScreenGrid, _ theme: Theme, selected: Int) {
    let findings = cache.listedFindings
    let info = self.findings.count { $0.severity == .info }
    let toggle =
      info == 0
      ? "" : state.showsInfoFindings ? " · i hides info" : " · i shows \(info) info"
    grid.write(
      " Findings (\(hasFindings ? "\(findings.count)" : "…")) · ⏎ open · x / X from the main view jump to the next / previous\(toggle)",
      row: 2, column: 1, style: theme.title)
    guard hasFindings else {
      grid.write(
        "  still looking for findings: the list appears here when the pass is done", row: 4,
        column: 1, style: theme.dim)
      return
    }
    guard !findings.isEmpty else {
      let more = info == 0 ? "" : " (\(info) info finding\(info == 1 ? "" : "s"): i lists them)"
      grid.write(
        "  nothing in this trace looks like a bug\(more)", row: 4, column: 1, style: theme.dim)
      return
    }
    let top = 4
    let rows = max(grid.height - 1 - top, 1)
    let selected = min(max(selected, 0), findings.count - 1)
    for (offset, index) in window(count: findings.count, selected: selected, rows: rows)
      .enumerated()
    {
      let finding = findings[index]
      let row = top + offset
      let name =
        replay.hasNamedWork
        ? TextWidth.truncated(workName(of: finding.action), to: 20).padded(to: 21) : ""
      let lane = schedulerLane(of: finding.action)
      let scheduler = Lane.fitted(title: lane.title, ordinal: lane.ordinal, to: 20)
      let text =
        "\(TimeText.seconds(finding.time).leftPadded(to: 12))  \(finding.severity.rawValue.padded(to: 8))\(finding.kind.rawValue.padded(to: 22))\(label(of: finding.action).padded(to: 17))\(name)\(scheduler.padded(to: 21))\(finding.message)"
      grid.write(index == selected ? "▸" : " ", row: row, column: 1, style: theme.title)
      grid.write(
        TextWidth.truncatedKeepingNumbers(text, to: grid.width - 4), row: row, column: 3,
        style: finding.severity == .info ? .plain : theme.warning)
      if index == selected {
        grid.paint(row: row, from: 3, to: grid.width - 1, style: theme.selected)
      }
    }
  }

  /// One finding: what it is, when, the explanation, and the actions involved, selectable.
  func drawFinding(_ grid: inout ScreenGrid, _ theme: Theme, index: Int, link: Int) {
    let findings = cache.listedFindings
    guard findings.indices.contains(index) else { return }
    let finding = findings[index]
    grid.write(
      " Finding \(index + 1) of \(findings.count) · \(finding.kind.rawValue) · \(finding.severity.rawValue)",
      row: 2, column: 1, style: theme.title)
    var lines: [(String, String)] = [
      ("at", TimeText.seconds(finding.time)),
      ("work", workName(of: finding.action)),
      ("scheduler", schedulerLabel(of: finding.action)),
      ("what", finding.message),
    ]
    lines.removeAll { $0.0 == "work" && $0.1.isEmpty }
    if let site = replay.callSite(of: finding.action) {
      lines.append(("call site", "\(site.file):\(site.line) in \(site.function)"))
    }
    let next = drawLabelled(&grid, theme, lines, from: 4)
    let actions = findingActions(index)
    let roles = actions.indices.map { position in
      position == 0 ? "the action" : finding.kind == .headOfLineBlocking ? "waited" : ""
    }
    drawLinks(
      &grid, theme, Array(zip(roles, actions)), selected: link,
      title: "Actions (\(actions.count)) · j/k select · ⏎ details · esc back", from: next + 1)
  }
}
