import XCTest

@testable import ChronoscopeInspector

/// The too-small screen drawn alone.
final class TooSmallPanelTests: XCTestCase {
  func testATooSmallScreenSaysTheSizeItNeedsTheSizeItHasAndHowToQuit() {
    let lines = drawn(width: 40, height: 10) {
      TooSmallPanel(minimumWidth: 60, minimumHeight: 16).draw(into: &$0, theme: $1)
    }
    let text = lines.map { $0.trimmingCharacters(in: .whitespaces) }
    XCTAssertEqual(Array(text[4...6]), ["terminal too small", "need 60×16, have 40×10", "q quits"])
  }
}
