@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay

extension InspectorApp {
  /// What the list of findings shows at a screen's `height`, `selected` its highlighted row.
  func findingsListPanel(selected: Int, height: Int) -> FindingsListPanel {
    let listed = cache.listedFindings
    let visible = FindingsListPanel.visibleRows(
      count: listed.count, selected: selected, height: height)
    return FindingsListPanel(
      count: hasFindings ? listed.count : nil,
      rows: visible.map { index in
        let finding = listed[index]
        return FindingsListPanel.Row(
          time: finding.time, severity: finding.severity, kind: finding.kind,
          label: finding.action.map(label(of:)) ?? "main thread",
          workName: finding.action.map(workName(of:)) ?? "",
          scheduler: schedulerLane(finding.scheduler), message: finding.message)
      }, firstRow: visible.lowerBound, selected: selected,
      infoCount: findings.count { $0.severity == .info }, showsInfo: state.showsInfoFindings,
      hasNamedWork: replay.hasNamedWork)
  }

  /// What the page of the listed finding `index` shows, `link` its selected action; nil when
  /// the list has no such finding.
  func findingPanel(index: Int, link: Int) -> FindingPanel? {
    let findings = cache.listedFindings
    guard findings.indices.contains(index) else { return nil }
    let finding = findings[index]
    return FindingPanel(
      index: index, count: findings.count, kind: finding.kind, severity: finding.severity,
      time: finding.time, workName: finding.action.map(workName(of:)) ?? "",
      scheduler: schedulerLane(finding.scheduler).text, message: finding.message,
      callSite: (finding.action.flatMap { replay.callSite(of: $0) }
        ?? finding.callSite.flatMap { replay.callSite(id: $0) }).map {
          "\($0.place) in \($0.function)"
        },
      actions: findingActions(index).map { linkRow(of: $0) }, selected: link,
      hasNamedWork: replay.hasNamedWork, firstIsOwn: finding.action != nil)
  }
}
