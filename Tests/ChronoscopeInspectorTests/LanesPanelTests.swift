import XCTest

@_spi(Benchmarks) @testable import ChronoscopeInspector

/// The lanes panel drawn alone, from hand-made rows and strips.
final class LanesPanelTests: XCTestCase {
  private let layout = PanelLayout(width: 100)
  private let rows = MainRows(
    lanes: 2..<4, marks: nil, axis: 4, pending: 6..<7, running: 8..<9, events: 10..<11)

  private func panel(_ lanes: [LanesPanel.Row]) -> LanesPanel {
    let strip = StripGeometry(
      width: 100, layout: layout, clock: 0, span: 1_000_000_000, end: 1_000_000_000)
    return LanesPanel(
      title: PanelTitle(title: "Lanes (by scheduler)", count: lanes.count, total: 40),
      about: nil, rows: lanes, empty: "  (no lanes)", labelWidth: layout.label, strip: strip,
      clock: 0, marks: nil)
  }

  func testALanesPanelCutsALongLabelInItsMiddleKeepingTheOrdinal() {
    var cells = [StripCell](repeating: .empty, count: 50)
    cells[3] = StripCell(.begin, future: false)
    let lane = LanesPanel.Row(
      name: LaneLabel(title: "com.example.networking.request-queue", ordinal: 3), cells: cells,
      status: "1p 1r", busy: true, isSelected: true)
    let lines = drawn(width: 100, height: 12) {
      panel([lane]).draw(into: &$0, theme: $1, rows: rows)
    }
    let label = String(lines[2].dropFirst().prefix(layout.label))
    XCTAssertTrue(label.hasPrefix("com.exa"), label)
    XCTAssertTrue(label.contains("…"), label)
    XCTAssertTrue(label.hasSuffix("-queue·3"), "the end and the number are kept: \(label)")
    XCTAssertTrue(lines[2].hasPrefix("▸"), "the selected lane is marked")
    XCTAssertTrue(lines[2].contains("▶"), lines[2])
    XCTAssertTrue(lines[2].hasSuffix("1p 1r"), lines[2])
  }

  func testTheTitleCountsTheLanesShownOfAllAndTheAxisSaysTheWindow() {
    let lane = LanesPanel.Row(
      name: LaneLabel(title: "main"), cells: [], status: "idle", busy: false)
    let lines = drawn(width: 100, height: 12) {
      panel([lane]).draw(into: &$0, theme: $1, rows: rows)
    }
    XCTAssertTrue(lines[1].contains("Lanes (by scheduler) 1 of 40"), lines[1])
    XCTAssertTrue(lines[4].contains("├0.000000s"), lines[4])
    XCTAssertTrue(lines[4].contains("1.000000s┤"), lines[4])
  }

  func testAPanelWithoutLanesSaysWhy() {
    let lines = drawn(width: 100, height: 12) { panel([]).draw(into: &$0, theme: $1, rows: rows) }
    XCTAssertEqual(lines[2], "  (no lanes)")
  }
}
