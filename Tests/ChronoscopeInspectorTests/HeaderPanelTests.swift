import XCTest

@testable import ChronoscopeInspector

/// The header drawn alone, from what it says: no replay, no inspector.
final class HeaderPanelTests: XCTestCase {
  private func header(_ panel: HeaderPanel, width: Int = 120) -> String {
    drawn(width: width, height: 1) { panel.draw(into: &$0, theme: $1) }[0]
  }

  func testAHeaderWithThreeWarningsSaysThreeFindings() {
    var panel = HeaderPanel(name: "busy-app.trace", end: 2_000_000_000, eventCount: 9)
    panel.findingCount = 3
    XCTAssertTrue(header(panel).contains("⚑ 3 findings"), header(panel))
    panel.findingCount = 1
    XCTAssertTrue(header(panel).contains("⚑ 1 finding "), header(panel))
  }

  func testAHeaderSaysItIsStillLookingUntilTheFindingsAreMadeAndNothingWhenThereAreNone() {
    var panel = HeaderPanel(name: "a.trace", end: 1_000, eventCount: 2)
    panel.findingCount = nil
    XCTAssertTrue(header(panel).contains("⚑ finding…"), header(panel))
    panel.findingCount = 0
    XCTAssertFalse(header(panel).contains("⚑"), header(panel))
  }

  func testAHeaderSaysTheTimeTheEventAndThePlaybackAtTheRight() {
    var panel = HeaderPanel(name: "a.trace", end: 2_000_000_000, eventCount: 9)
    panel.clock = 1_200_000_000
    panel.position = 5
    XCTAssertTrue(
      header(panel).hasSuffix("1.200000s / 2.000000s  event 5/9  ❚❚ paused ×1"), header(panel))
  }

  func testACrashedRecordingSaysSoAndAStoppedOneDoesNotSayCrashed() {
    var panel = HeaderPanel(name: "a.trace", end: 1_000, eventCount: 2)
    panel.ending = .crashed(signal: "SIGSEGV")
    XCTAssertTrue(header(panel).contains("⚠ crashed: SIGSEGV"), header(panel))
    panel.ending = .stopped(signal: "SIGINT")
    XCTAssertTrue(header(panel).contains("⚠ stopped: SIGINT"), header(panel))
    XCTAssertFalse(header(panel).contains("crashed"))
  }

  func testOnANarrowScreenTheBrandGivesWayAndTheNameIsCutInItsMiddle() {
    let panel = HeaderPanel(
      name: "a-very-long-recording-name-from-the-nightly-build.trace", end: 1_000, eventCount: 2,
      following: .live)
    let line = header(panel, width: 60)
    XCTAssertFalse(line.contains("chronoscope"), line)
    XCTAssertTrue(line.contains("…"), line)
    XCTAssertTrue(line.contains(".trace"), "the name's end is kept: \(line)")
  }
}
