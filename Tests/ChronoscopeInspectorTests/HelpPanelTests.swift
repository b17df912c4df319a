import XCTest

@testable import ChronoscopeInspector

/// The help drawn alone.
final class HelpPanelTests: XCTestCase {
  func testTheHelpExplainsPlayForTheTraceSClockAndTheTimeStep() {
    let help = HelpPanel(isVirtualClock: false, timeStep: 20_000_000)
    let text = drawn(width: 100, height: 40) { help.draw(into: &$0, theme: $1) }.joined(
      separator: "\n")
    XCTAssertTrue(text.contains("the recorded (host) time replays"), text)
    XCTAssertTrue(text.contains("time forward / back by 20.000ms"), text)
  }

  func testTheHelpScrollsNoFurtherThanItsLastRowAtTheBottom() {
    let help = HelpPanel(isVirtualClock: true, timeStep: 1_000, scroll: 1_000)
    let limit = help.scrollLimit(width: 60, height: 16)
    XCTAssertGreaterThan(limit, 0)
    let lines = drawn(width: 60, height: 16) { help.draw(into: &$0, theme: $1) }
    let last = help.rows(width: 60).last
    XCTAssertEqual(lines[14].trimmingCharacters(in: .whitespaces), last?.text)
  }
}
