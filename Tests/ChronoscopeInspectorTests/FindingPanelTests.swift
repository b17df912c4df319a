@_spi(Benchmarks) import ChronoscopeAnalysis
import XCTest

@testable import ChronoscopeInspector

/// One finding's page drawn alone.
final class FindingPanelTests: XCTestCase {
  func testAHeadOfLineBlockingFindingNamesTheActionAndTheOnesThatWaited() {
    let action = ActionLinksPanel.Row(
      role: "", label: "#4 async", scheduler: LaneLabel(title: "app.db"), workName: "",
      site: "Store.swift:40")
    var waited = action
    waited.label = "#5 async"
    let panel = FindingPanel(
      index: 0, count: 2, kind: .headOfLineBlocking, severity: .warning, time: 2_000_000_000,
      workName: "", scheduler: "app.db", message: "ran 300ms while 1 action waited",
      callSite: "Store.swift:40 in save()", actions: [action, waited], selected: 1,
      hasNamedWork: false)
    let lines = drawn(width: 100, height: 20) { panel.draw(into: &$0, theme: $1) }
    XCTAssertEqual(lines[2], "  Finding 1 of 2 · head-of-line-blocking · warning")
    XCTAssertEqual(lines[4], "   at           2.000000s")
    XCTAssertEqual(lines[5], "   scheduler    app.db", "no work line when the action is unnamed")
    XCTAssertEqual(lines[7], "   call site    Store.swift:40 in save()")
    XCTAssertTrue(lines[9].contains("Actions (2)"), lines[9])
    XCTAssertTrue(lines[10].hasPrefix("   the action   #4 async"), lines[10])
    XCTAssertTrue(lines[11].hasPrefix(" ▸ waited"), lines[11])
  }

  /// A wait of the main thread outside any action has no action of its own: the work listed is
  /// the work whose signal ended the wait, and says so.
  func testAMainThreadWaitListsTheWorkThatSignalledIt() {
    let signaller = ActionLinksPanel.Row(
      role: "", label: "#1 async", scheduler: LaneLabel(title: "slow.loader"), workName: "",
      site: "MainWaits.swift:25")
    let panel = FindingPanel(
      index: 0, count: 1, kind: .mainThreadHang, severity: .error, time: 17_000_000,
      workName: "", scheduler: "com.apple.main-thread",
      message: "waited 300.000ms on a semaphore outside any main-queue job, until #1 signalled it",
      callSite: "MainWaits.swift:29 in run()", actions: [signaller], selected: 0,
      hasNamedWork: false, firstIsOwn: false)
    let lines = drawn(width: 120, height: 20) { panel.draw(into: &$0, theme: $1) }
    XCTAssertTrue(lines[9].contains("Actions (1)"), lines[9])
    XCTAssertTrue(lines[10].hasPrefix(" ▸ signalled    #1 async"), lines[10])
  }
}
