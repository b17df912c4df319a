@_spi(Benchmarks) import ChronoscopeReplay
import XCTest

@testable import ChronoscopeInspector

/// An action's page drawn alone, from its life as hand-made values.
final class DetailPanelTests: XCTestCase {
  private func panel(status: ActionStatus, runs: [DetailPanel.Run] = []) -> DetailPanel {
    DetailPanel(
      id: "#7", mode: .after, work: nil, scheduler: "app.db (serial, dispatch)", task: nil,
      scheduled: "at 0s on main", callSite: nil, delay: 500_000_000, due: 500_000_000,
      runCount: runs.count, runs: Array(runs.enumerated()).map { ($0.offset, $0.element) },
      cancelled: nil, status: status, clock: 1_000_000_000,
      links: ActionLinksPanel(title: "Related (0)", rows: [], selected: 0, hasNamedWork: false))
  }

  func testADetailPanelOfACancelledActionSaysItWasCancelledAndNeverRan() {
    var detail = panel(status: .cancelledBeforeItRan(at: 300_000_000))
    detail.cancelled = (300_000_000, false)
    let lines = drawn(width: 100, height: 20) { detail.draw(into: &$0, theme: $1) }
    XCTAssertEqual(lines[2], "  Action #7 · after")
    XCTAssertTrue(lines.contains("   runs         never ran"), "\(lines)")
    XCTAssertTrue(lines.contains("   cancelled    at 0.300000s (before it started)"), "\(lines)")
    XCTAssertTrue(
      lines.contains("   now          cancelled before it ran, at 0.300000s"), "\(lines)")
  }

  func testACallSiteWithoutALineIsItsFileAndFunctionNeverLineZero() {
    var detail = panel(status: .cancelledBeforeItRan(at: 300_000_000))
    detail.callSite = DetailPanel.CallSite(file: "feed-refresher", line: 0, function: "main")
    let lines = drawn(width: 100, height: 20) { detail.draw(into: &$0, theme: $1) }
    XCTAssertTrue(lines.contains("   call site    feed-refresher in main"), "\(lines)")
    detail.callSite = DetailPanel.CallSite(file: "Feed.swift", line: 12, function: "run()")
    let withLine = drawn(width: 100, height: 20) { detail.draw(into: &$0, theme: $1) }
    XCTAssertTrue(withLine.contains("   call site    Feed.swift:12 in run()"), "\(withLine)")
  }

  func testARunSaysHowLateItBeganHowLongItTookAndWhere() {
    let run = DetailPanel.Run(
      number: 1, due: 500_000_000, began: 700_000_000, ended: 710_000_000, thread: "worker 2",
      hoppedFrom: "main")
    let lines = drawn(width: 140, height: 20) {
      panel(status: .finished(at: 710_000_000, runs: 1), runs: [run]).draw(into: &$0, theme: $1)
    }
    XCTAssertTrue(
      lines.contains(
        "   run 1        due 0.500000s, began 0.700000s (late 200.000ms), took 10.000ms, on worker 2 ← hop from main"
      ), "\(lines)")
    XCTAssertTrue(lines.contains("   now          finished at 0.710000s"), "\(lines)")
  }

  func testAPendingActionCountsItsDueTimeFromTheCursor() {
    let detail = panel(status: .pending(due: 1_500_000_000, runs: 0))
    XCTAssertEqual(detail.nowText, "pending, next due 1.500000s (in 500.000ms)")
  }

  func testOfManyRunsTheFirstFourAndTheLastFourMayShow() {
    XCTAssertEqual(DetailPanel.shownRuns(of: 3), [0, 1, 2])
    XCTAssertEqual(DetailPanel.shownRuns(of: 20), [0, 1, 2, 3, 16, 17, 18, 19])
  }
}
