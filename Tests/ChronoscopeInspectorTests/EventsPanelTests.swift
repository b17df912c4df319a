import XCTest

@testable import ChronoscopeInspector

/// The Events panel drawn alone, from hand-made rows.
final class EventsPanelTests: XCTestCase {
  private func panel(_ rows: [EventsPanel.Row], count: Int? = nil) -> EventsPanel {
    EventsPanel(
      title: PanelTitle(title: "Events", count: count ?? rows.count), rows: rows, eventCount: 120,
      span: 2_000_000_000,
      actionColumns: ActionColumns(labelWidth: 16, actionWidth: 16, hasNamedWork: false))
  }

  func testAnEventRowSaysItsNumberTimeKindActionSchedulerThreadAndWhatItAdds() {
    let cancel = EventsPanel.Row(
      number: 12, time: 1_250_000_000, kind: .cancel, thread: "main",
      owner: .action(
        label: "#4 after", workName: "", scheduler: LaneLabel(title: "app.db"), hoppedFrom: nil,
        cancelledAfterStart: true, run: nil), isCurrent: true)
    let mark = EventsPanel.Row(
      number: 13, time: 1_300_000_000, kind: .mark, thread: "worker 1",
      owner: .mark(name: "tick", fields: ["n": "1"]), isFuture: true)
    let lines = drawn(width: 100, height: 6) {
      panel([cancel, mark]).draw(into: &$0, theme: $1, titleRow: 1, top: 2)
    }
    XCTAssertTrue(lines[1].contains("Events (2)"), lines[1])
    XCTAssertTrue(lines[2].hasPrefix("▸ e12"), "the current event is marked: \(lines[2])")
    for text in ["1.250000s", "cancel", "#4 after", "app.db", "main", "after start"] {
      XCTAssertTrue(lines[2].contains(text), "\(text) in \(lines[2])")
    }
    XCTAssertTrue(lines[3].contains("\"tick\" n=1"), lines[3])
    XCTAssertTrue(lines[3].contains("worker 1"), lines[3])
  }

  func testAnEmptyPanelSaysWhetherTheTraceOrTheFilterHasNoEvents() {
    let lines = drawn(width: 100, height: 6) {
      panel([]).draw(into: &$0, theme: $1, titleRow: 1, top: 2)
    }
    XCTAssertEqual(lines[2], "  no events on these lanes")
  }
}
