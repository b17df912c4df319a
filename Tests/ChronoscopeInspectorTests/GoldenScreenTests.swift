@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// Golden-text snapshots of every view. Re-record with
/// `CHRONOSCOPE_RECORD_GOLDEN=1 swift test --filter GoldenScreenTests`; a mismatch prints a diff.
final class GoldenScreenTests: XCTestCase {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  static let recordings = root.deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  /// A hand-written trace beside the tests, for shapes a virtual recording cannot have (threads).
  static func fixture(_ name: String) throws -> InspectorApp {
    let path = root.appendingPathComponent("Fixtures/\(name).trace").path
    let trace = try XCTUnwrap(TraceReader.read(path: path).trace)
    return InspectorApp(replay: ReplayEngine(trace: trace), name: "\(name).trace")
  }

  static func app(_ recording: String, timeStep: Int64? = nil) throws -> InspectorApp {
    let path = recordings.appendingPathComponent("\(recording).trace").path
    let trace = try XCTUnwrap(TraceReader.read(path: path).trace)
    return InspectorApp(
      replay: ReplayEngine(trace: trace), name: "\(recording).trace", timeStep: timeStep)
  }

  private func assertGolden(
    _ grid: ScreenGrid, _ name: String, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let url = Self.root.appendingPathComponent("Golden/\(name).txt")
    let actual = grid.plainText + "\n"
    if ProcessInfo.processInfo.environment["CHRONOSCOPE_RECORD_GOLDEN"] != nil {
      try actual.write(to: url, atomically: true, encoding: .utf8)
      // A recorded baseline is not a pass: the run that records must not count as green.
      XCTFail(
        "Recorded new baseline \(url.lastPathComponent); run again without CHRONOSCOPE_RECORD_GOLDEN",
        file: file, line: line)
      return
    }
    guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
      XCTFail(
        "missing golden file \(url.lastPathComponent); record it with CHRONOSCOPE_RECORD_GOLDEN=1",
        file: file, line: line)
      return
    }
    if actual != expected {
      XCTFail(
        "\(name) differs from its golden file (- golden, + now):\n\(lineDiff(expected: expected, actual: actual))",
        file: file, line: line)
    }
  }

  private func press(_ app: inout InspectorApp, _ keys: InputKey...) {
    for key in keys { XCTAssertTrue(app.handle(key)) }
  }

  private func type(_ app: inout InspectorApp, _ text: String) {
    for character in text { XCTAssertTrue(app.handle(.character(character))) }
  }

  func testMainViewAtTheStart() throws {
    let app = try Self.app("virtual-timeout")
    try assertGolden(app.render(width: 100, height: 30), "main-start-100x30")
  }

  func testMainViewWhileTheTimeoutIsPending() throws {
    var app = try Self.app("virtual-timeout")
    app.seek(to: .event(5))
    try assertGolden(app.render(width: 100, height: 30), "main-pending-100x30")
  }

  func testMainViewAtTheMinimumSize() throws {
    var app = try Self.app("virtual-timeout")
    app.seek(to: .event(5))
    try assertGolden(app.render(width: 60, height: 16), "main-pending-60x16")
  }

  // The busy app's goldens use its virtual-time recording, the same on every re-record; the live
  // Recordings/busy-app.trace changes each time and is tested in tmux instead.
  func testMainViewOfTheBusyAppWide() throws {
    var app = try Self.app("busy-app-virtual")
    app.seek(to: .time(500_000_000))
    try assertGolden(app.render(width: 140, height: 40), "busy-app-500ms-140x40")
  }

  /// Narrow terminals (issue 27 item 13): columns give way whole, numbers are never cut.
  func testMainViewOfTheBusyAppAt80x24And60x16() throws {
    var app = try Self.app("busy-app-virtual")
    app.seek(to: .time(500_000_000))
    try assertGolden(app.render(width: 80, height: 24), "busy-app-500ms-80x24")
    try assertGolden(app.render(width: 60, height: 16), "busy-app-500ms-60x16")
  }

  func testDetailOfATimerAt80x24And60x16() throws {
    var app = try Self.app("busy-app-virtual")
    app.seek(to: .time(500_000_000))
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 1)))
    try assertGolden(app.render(width: 80, height: 24), "detail-timer-80x24")
    try assertGolden(app.render(width: 60, height: 16), "detail-timer-60x16")
  }

  /// Sorted by activity (`o` twice) with idle lanes hidden (`h`): the busiest lanes first, the
  /// title says which of the 45 it shows, and lanes that share a label are numbered.
  func testLanesSortedByActivityWithIdleLanesHidden() throws {
    var app = try Self.app("busy-app-virtual")
    app.seek(to: .time(500_000_000))
    press(&app, .character("o"), .character("o"), .character("h"), .escape)
    try assertGolden(app.render(width: 140, height: 40), "busy-app-by-activity-idle-hidden-140x40")
  }

  func testLanesByThread() throws {
    var app = try Self.fixture("worker-hops")
    app.seek(to: .time(2_000_000))
    press(&app, .character("v"), .character("j"))
    try assertGolden(app.render(width: 100, height: 30), "worker-hops-by-thread-100x30")
  }

  /// The async search's tasks as lanes (`v` twice): the typing loop's task sleeps between
  /// keystrokes, each keystroke's debounce task sleeps until a later keystroke cancels it, and
  /// each search races its work against a timeout in child tasks.
  func testLanesByTask() throws {
    var app = try Self.app("async-search-virtual")
    app.seek(to: .time(400_000_000))
    press(&app, .character("v"), .character("v"), .character("j"))
    try assertGolden(app.render(width: 100, height: 30), "async-search-by-task-100x30")
  }

  func testTheLanesKeyOffersTasksOnlyWhenTheTraceNamesThem() throws {
    var app = try Self.app("virtual-timeout")
    press(&app, .character("v"), .character("v"))
    XCTAssertEqual(
      app.state.grouping, .byScheduler, "scheduler → thread → scheduler: no task lanes to show")
  }

  func testDetailOfAPendingAction() throws {
    var app = try Self.app("virtual-timeout")
    app.seek(to: .event(5))
    press(&app, .tab, .enter)
    try assertGolden(app.render(width: 100, height: 30), "detail-pending-100x30")
  }

  func testDetailOfAnActionThatHoppedThreads() throws {
    var app = try Self.fixture("worker-hops")
    app.seek(to: .event(14))  // the begin of #5, which hopped from worker 4 to main
    press(&app, .enter)
    try assertGolden(app.render(width: 100, height: 30), "detail-hop-100x30")
  }

  func testDetailOfATimerThatDrifts() throws {
    var app = try Self.app("busy-app-virtual")
    app.seek(to: .time(500_000_000))
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 1)))
    try assertGolden(app.render(width: 120, height: 30), "detail-timer-120x30")
  }

  func testFindingsListOfTheBusyApp() throws {
    var app = try Self.app("busy-app-virtual")
    press(&app, .character("!"))
    try assertGolden(app.render(width: 140, height: 30), "findings-list-140x30")
  }

  func testFindingsListWithTheInfoFindingsAskedFor() throws {
    var app = try Self.app("busy-app-virtual")
    press(&app, .character("!"), .character("i"))
    try assertGolden(app.render(width: 140, height: 30), "findings-list-with-info-140x30")
  }

  func testWhyAnActionWasLate() throws {
    var app = try Self.app("findings-demo-virtual")
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 2)))
    press(&app, .character("w"))
    try assertGolden(app.render(width: 120, height: 30), "why-late-120x30")
  }

  func testFindingsListOfTheFindingsDemo() throws {
    var app = try Self.app("findings-demo-virtual")
    press(&app, .character("!"))
    try assertGolden(app.render(width: 120, height: 24), "findings-demo-list-120x24")
  }

  func testAFindingWithTheActionsInvolved() throws {
    var app = try Self.app("busy-app-virtual")
    press(&app, .character("x"))
    try assertGolden(app.render(width: 120, height: 30), "finding-first-120x30")
  }

  func testHelpScreen() throws {
    var app = try Self.app("virtual-timeout")
    press(&app, .character("?"))
    try assertGolden(app.render(width: 100, height: 30), "help-100x30")
  }

  func testSearchPromptAndResults() throws {
    var app = try Self.app("virtual-timeout")
    press(&app, .character("/"))
    type(&app, "released")
    try assertGolden(app.render(width: 100, height: 30), "search-typing-100x30")
    press(&app, .enter)
    try assertGolden(app.render(width: 100, height: 30), "search-found-100x30")
  }

  func testFilteredLanes() throws {
    var app = try Self.app("busy-app-virtual")
    app.seek(to: .time(500_000_000))
    press(&app, .character("f"))
    type(&app, "app.c")
    press(&app, .enter)
    try assertGolden(app.render(width: 100, height: 30), "filter-100x30")
  }

  func testTerminalTooSmall() throws {
    let app = try Self.app("virtual-timeout")
    try assertGolden(app.render(width: 50, height: 12), "too-small-50x12")
  }

  func testTheCurrentEventIsHighlightedInColourAndInMonochrome() throws {
    var app = try Self.app("virtual-timeout")
    app.seek(to: .event(5))
    let colour = app.render(width: 100, height: 30, colors: true)
    let mono = app.render(width: 100, height: 30, colors: false)
    XCTAssertEqual(colour.plainText, mono.plainText)
    let row = try XCTUnwrap((0..<30).last { mono[$0, 0].text == "▸" })
    XCTAssertEqual(colour[row, 5].style.background, .yellow)
    XCTAssertTrue(mono[row, 5].style.reverse)
    XCTAssertTrue(
      mono.cells.allSatisfy { $0.style.foreground == nil && $0.style.background == nil })
  }
}
