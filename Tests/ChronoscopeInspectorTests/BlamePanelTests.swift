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
}
