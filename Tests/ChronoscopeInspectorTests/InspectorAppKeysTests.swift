@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// The keys issue 27 (item 12) asked for: Home/End, a zoom that fits the trace, the Events
/// panel's selection, seeks past the end, what a search counts, a too-small screen.
final class InspectorAppKeysTests: XCTestCase {
  private func app(_ name: String = "virtual-timeout") throws -> InspectorApp {
    try GoldenScreenTests.app(name)
  }

  private func line(_ grid: ScreenGrid, _ row: Int) -> String {
    String(grid.plainText.split(separator: "\n", omittingEmptySubsequences: false)[row])
  }

  private func type(_ app: inout InspectorApp, _ text: String) {
    for character in text { _ = app.handle(.character(character)) }
  }

  func testHomeAndEndGoToTheStartAndTheEndOfTheTrace() throws {
    var app = try app()
    _ = app.handle(.end)
    XCTAssertEqual(app.replay.position, app.replay.eventCount)
    _ = app.handle(.home)
    XCTAssertEqual(app.replay.position, 0)
  }

  func testZeroFitsTheWholeTraceAndZoomingOutStopsAtItsSpan() throws {
    var app = try app("busy-app-virtual")
    app.seek(to: .time(1_000_000_000))
    for _ in 0..<20 { _ = app.handle(.character("Z")) }
    let span = app.replay.end  // its close line, 1.3 s
    XCTAssertLessThanOrEqual(app.state.laneSpan, span + 1, "no 89 s axis for a 1.3 s trace")
    XCTAssertEqual(app.state.message, "the strips show the whole trace")
    let axis = try XCTUnwrap(
      app.render(width: 100, height: 30).plainText.split(separator: "\n").first { $0.contains("├") }
    )
    XCTAssertTrue(axis.contains("├0.000000s"), String(axis))
    XCTAssertTrue(axis.contains("\(TimeText.seconds(span))┤"), String(axis))

    _ = app.handle(.character("z"))
    _ = app.handle(.character("z"))
    XCTAssertLessThan(app.state.laneSpan, span / 2)
    _ = app.handle(.character("0"))
    XCTAssertEqual(app.state.laneSpan, span + 1)
    let fitted = app.render(width: 100, height: 30).plainText
    XCTAssertTrue(fitted.contains("├0.000000s"), fitted)
    XCTAssertTrue(fitted.contains("\(TimeText.seconds(span))┤"), fitted)
    XCTAssertTrue(fitted.contains("│"), "the cursor shows inside the whole trace")
  }

  func testJAndKSelectAnEventAndEnterOpensThatEventsAction() throws {
    var app = try app()
    app.seek(to: .event(5))
    for _ in 0..<3 { _ = app.handle(.tab) }
    XCTAssertEqual(app.state.focus, .events)
    _ = app.handle(.character("j"))
    _ = app.handle(.character("j"))
    XCTAssertEqual(app.state.selectedEvent, EventIndex(6), "e7: two below the current e5")
    XCTAssertEqual(app.replay.position, 5, "selecting an event does not move the cursor")
    let screen = app.render(width: 100, height: 30, colors: false)
    let row = try XCTUnwrap((0..<30).first { line(screen, $0).contains("e7  1.000000s") })
    XCTAssertTrue(screen[row, 5].style.reverse, "the selected event is highlighted")
    _ = app.handle(.character("k"))
    XCTAssertEqual(app.state.selectedEvent, EventIndex(5))
    _ = app.handle(.enter)
    XCTAssertEqual(
      app.state.mode,
      .detail(action: try XCTUnwrap(app.replay.index(of: ActionID(rawValue: 1))), link: 0),
      "e6 is the end of #1")
    _ = app.handle(.escape)
    _ = app.handle(.character("n"))
    XCTAssertNil(app.state.selectedEvent, "moving the cursor returns the panel to it")
  }

  func testEnterOnAMarkInTheEventsPanelSaysItHasNoAction() throws {
    var app = try app()
    for _ in 0..<3 { _ = app.handle(.tab) }
    _ = app.handle(.character("j"))  // e1, a mark
    XCTAssertEqual(app.state.selectedEvent, EventIndex(0))
    _ = app.handle(.enter)
    XCTAssertEqual(app.state.mode, .main)
    XCTAssertEqual(app.state.message, "e1 is a mark: it belongs to no action")
  }

  func testSeekingPastTheEndSaysSoAndStaysPut() throws {
    var app = try app()
    app.seek(to: .event(5))
    type(&app, "@7s")
    _ = app.handle(.enter)
    XCTAssertEqual(app.state.message, "@7s is after the trace's end: it spans 0s to 6.500000s")
    XCTAssertEqual(app.replay.position, 5)
    type(&app, "@e99")
    _ = app.handle(.enter)
    XCTAssertEqual(
      app.state.message,
      "@e99 is past the last event: the trace has events e1 to e45 (e0 is the start)")
    type(&app, "@#99")
    _ = app.handle(.enter)
    XCTAssertEqual(app.state.message, "@#99: the trace has no action #99")
    XCTAssertEqual(app.replay.position, 5)
  }

  func testTheSearchCountsMatchingEventsAndSaysWhatTheyBelongTo() throws {
    var app = try app()
    type(&app, "/timeout-service")
    _ = app.handle(.enter)
    let status = line(app.render(width: 140, height: 30), 29)
    // Every action on the service matches with each of its events.
    XCTAssertTrue(
      status.contains("search \"timeout-service\": 1/"), status)
    let actions = Set(
      (0..<app.replay.eventCount).compactMap { offset -> ActionIndex? in
        let event = app.replay.event(EventIndex(offset))
        return event.kind == .schedule ? event.action : nil
      })
    let events = (0..<app.replay.eventCount).filter { offset in
      let event = app.replay.event(EventIndex(offset))
      return event.action != nil
    }
    XCTAssertTrue(
      status.contains("1/\(events.count) matching events (\(actions.count) actions)"), status)
    _ = app.handle(.character("n"))
    XCTAssertTrue(
      line(app.render(width: 140, height: 30), 29).contains("2/\(events.count) matching"))
  }

  func testKeysDoNothingWhileTheTerminalIsTooSmallButQAndResizing() throws {
    var app = try app()
    XCTAssertTrue(app.handle(.resize(width: 40, height: 10)))
    for key in [InputKey.character("n"), .end, .character("@"), .enter, .character("?"), .tab] {
      XCTAssertTrue(app.handle(key))
    }
    XCTAssertEqual(app.replay.position, 0)
    XCTAssertEqual(app.state.mode, .main)
    XCTAssertNil(app.state.prompt)
    XCTAssertEqual(app.state.focus, .lanes)
    XCTAssertTrue(app.handle(.resize(width: 100, height: 30)))
    _ = app.handle(.character("n"))
    XCTAssertEqual(app.replay.position, 1, "keys work again once the screen is big enough")
    _ = app.handle(.resize(width: 40, height: 10))
    XCTAssertFalse(app.handle(.character("q")), "q still quits")
  }

  func testTheFirstResizeKeepsTheMessageOfTheOpening() throws {
    let trace = try XCTUnwrap(
      TraceReader.parse(
        Array(
          """
          {"format":"chronoscope-trace","version":1,"clock":"virtual","start":"","process":"x","pid":1,"metadata":{}}
          {"t":0,"e":"mark","th":1,"name":"m"}
          """.utf8), file: "unclosed"
      ).trace)
    var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "unclosed")
    _ = app.handle(.resize(width: 100, height: 30))
    XCTAssertEqual(app.state.message, InspectorApp.unclosedWarning)
  }
}
