import XCTest

@testable import ChronoscopeInspector

/// The Pending and Running panels drawn alone, from hand-made rows.
final class ActionRowsPanelTests: XCTestCase {
  private func panel(_ title: String, _ rows: [ActionRowsPanel.Row]) -> ActionRowsPanel {
    ActionRowsPanel(
      title: PanelTitle(title: title, count: rows.count), rows: rows, empty: "nothing pending",
      clock: 1_500_000_000,
      actionColumns: ActionColumns(labelWidth: 16, actionWidth: 16, hasNamedWork: false))
  }

  func testAPendingActionPastItsDueTimeSaysHowLateItIs() {
    let row = ActionRowsPanel.Row(
      label: "#3 after", workName: "", scheduler: LaneLabel(title: "app.db", ordinal: 2),
      state: .pending(due: 1_000_000_000, lastLateness: nil, site: "Store.swift:12"))
    let lines = drawn(width: 120, height: 4) {
      panel("Pending", [row]).draw(into: &$0, theme: $1, titleRow: 1, top: 2)
    }
    for text in ["#3 after", "app.db ·2", "due 1.000000s", "late 500.000ms", "Store.swift:12"] {
      XCTAssertTrue(lines[2].contains(text), "\(text) in \(lines[2])")
    }
  }

  func testARunningActionSaysWhereSinceWhenAndThatItWasCancelled() {
    let row = ActionRowsPanel.Row(
      label: "#9 repeating", workName: "", scheduler: LaneLabel(title: "timers"),
      state: .running(thread: "worker 3", began: 1_000_000_000, run: 4, cancelled: true),
      isSelected: true)
    let lines = drawn(width: 120, height: 4) {
      panel("Running", [row]).draw(into: &$0, theme: $1, titleRow: 1, top: 2)
    }
    for text in ["on worker 3", "for 500.000ms", "run 4", "cancelled"] {
      XCTAssertTrue(lines[2].contains(text), "\(text) in \(lines[2])")
    }
  }

  func testAnEmptyPanelSaysSo() {
    let lines = drawn(width: 80, height: 4) {
      panel("Pending", []).draw(into: &$0, theme: $1, titleRow: 1, top: 2)
    }
    XCTAssertTrue(lines[1].hasPrefix("── Pending (0) ──"), lines[1])
    XCTAssertEqual(lines[2], "  nothing pending")
  }
}
