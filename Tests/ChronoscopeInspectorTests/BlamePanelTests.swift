import XCTest

@testable import ChronoscopeInspector

/// The page of why an action was late, drawn alone.
final class BlamePanelTests: XCTestCase {
  func testTheBlamePageListsWhatHeldTheActionUpWithTheSelectedStretchMarked() {
    let panel = BlamePanel(
      title: "Why #7 was late · run 1 · 30ms",
      lines: [("due", "1s"), ("began", "1.03s, 30ms late")],
      stretches: [
        .init(text: "20ms  #3 after  app.db  run 1", isIdle: false),
        .init(text: "10ms  nothing ran on app.db", isIdle: true),
      ], selected: 1)
    let lines = drawn(width: 80, height: 16) { panel.draw(into: &$0, theme: $1) }
    XCTAssertEqual(lines[2], "  Why #7 was late · run 1 · 30ms")
    XCTAssertEqual(lines[4], "   due          1s")
    XCTAssertTrue(lines[7].contains("Held up by (2)"), lines[7])
    XCTAssertEqual(lines[8], "   20ms  #3 after  app.db  run 1")
    XCTAssertEqual(lines[9], " ▸ 10ms  nothing ran on app.db")
  }

  func testAPageThatLeavesStretchesOutSaysItListsTheLongestAndCountsTheRest() {
    let panel = BlamePanel(
      title: "Why #7 was late · run 1 · 300ms", lines: [("due", "1s")],
      stretches: (0..<10).map { .init(text: "20ms  #\($0 + 10) async", isIdle: false) },
      omitted: "… and 70 shorter stretches, 100ms in all", selected: 0)
    let lines = drawn(width: 80, height: 24) { panel.draw(into: &$0, theme: $1) }
    XCTAssertTrue(lines[6].contains("Held up by (the 10 longest, in time order)"), lines[6])
    XCTAssertEqual(lines[17], "   … and 70 shorter stretches, 100ms in all")
    let short = drawn(width: 80, height: 12) { panel.draw(into: &$0, theme: $1) }
    XCTAssertEqual(
      short[10], "   … and 70 shorter stretches, 100ms in all", "kept in view: \(short)")
  }
}
