@_spi(Benchmarks) import ChronoscopeAnalysis
import XCTest

@testable import ChronoscopeInspector

/// The list of findings drawn alone.
final class FindingsListPanelTests: XCTestCase {
  private let row = FindingsListPanel.Row(
    time: 1_500_000_000, severity: .warning, kind: .late, label: "#12 after", workName: "",
    scheduler: LaneLabel(title: "app.request", ordinal: 2), message: "began 40ms late")

  func testAFindingSRowSaysWhenHowBadWhatWhichActionOnWhichSchedulerAndWhy() {
    let panel = FindingsListPanel(count: 1, rows: [row])
    let lines = drawn(width: 140, height: 10) { panel.draw(into: &$0, theme: $1) }
    XCTAssertTrue(lines[2].hasPrefix("  Findings (1) · ⏎ open"), lines[2])
    XCTAssertTrue(lines[4].hasPrefix(" ▸    1.500000s  warning late"), lines[4])
    XCTAssertTrue(lines[4].contains("#12 after"), lines[4])
    XCTAssertTrue(lines[4].contains("app.request ·2"), lines[4])
    XCTAssertTrue(lines[4].hasSuffix("began 40ms late"), lines[4])
  }

  func testTheListSaysItIsStillLookingOrThatNothingLooksLikeABug() {
    let looking = drawn(width: 100, height: 10) {
      FindingsListPanel(count: nil).draw(into: &$0, theme: $1)
    }
    XCTAssertTrue(looking[2].contains("Findings (…)"), looking[2])
    XCTAssertTrue(looking[4].contains("still looking for findings"), looking[4])
    let none = drawn(width: 100, height: 10) {
      FindingsListPanel(count: 0, infoCount: 2).draw(into: &$0, theme: $1)
    }
    XCTAssertTrue(none[2].contains("i shows 2 info"), none[2])
    XCTAssertTrue(
      none[4].contains("nothing in this trace looks like a bug (2 info findings: i lists them)"),
      none[4])
  }
}
