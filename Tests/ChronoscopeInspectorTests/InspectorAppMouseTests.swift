@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import XCTest

/// Clicks and the wheel, as the terminal adapter reports them, on a 100 × 30 screen of
/// virtual-timeout at e5: lanes on rows 2–3, the marks on 4, the axis on 5, Pending's rows 7–8,
/// Running's 10, Events' 12–28.
final class InspectorAppMouseTests: XCTestCase {
  private func app() throws -> InspectorApp {
    var app = try GoldenScreenTests.app("virtual-timeout")
    _ = app.handle(.resize(width: 100, height: 30))
    app.seek(to: .event(5))
    return app
  }

  private func click(_ app: inout InspectorApp, column: Int = 10, row: Int) {
    XCTAssertTrue(app.handle(.mouse(MouseEvent(.press, column: column, row: row))))
  }

  func testAClickSelectsALane() throws {
    var app = try app()
    click(&app, row: 3)
    XCTAssertEqual(app.state.focus, .lanes)
    XCTAssertEqual(app.state.selected(.lanes), 1, "timeout-service, the second lane")
    let screen = app.render(width: 100, height: 30).plainText
    XCTAssertTrue(screen.contains("▸timeout-service"), screen)
  }

  func testAClickSelectsAPendingRowAndEnterOpensIt() throws {
    var app = try app()
    click(&app, row: 8)
    XCTAssertEqual(app.state.focus, .pending)
    XCTAssertEqual(app.state.selected(.pending), 1)
    _ = app.handle(.enter)
    let action = try XCTUnwrap(app.replay.index(of: ActionID(rawValue: 3)))
    XCTAssertEqual(app.state.mode, .detail(action: action, link: 0), "#3, the second pending")
  }

  func testAClickSelectsTheRunningRowAndAnEvent() throws {
    var app = try app()
    click(&app, row: 10)
    XCTAssertEqual(app.state.focus, .running)
    click(&app, row: 14)  // e3, the third row of Events
    XCTAssertEqual(app.state.focus, .events)
    XCTAssertEqual(app.state.selectedEvent, EventIndex(2))
    XCTAssertEqual(app.replay.position, 5, "a click selects; it does not move the cursor")
  }

  func testAClickOnATitleFocusesItsPanelAndElsewhereDoesNothing() throws {
    var app = try app()
    click(&app, row: 9)
    XCTAssertEqual(app.state.focus, .running)
    click(&app, row: 0)
    click(&app, row: 29)
    XCTAssertEqual(app.state.focus, .running)
    XCTAssertEqual(app.replay.position, 5)
  }

  func testTheWheelMovesTheFocusedListAndZoomsOverTheStripsOrWithAModifier() throws {
    var app = try app()
    for _ in 0..<3 { _ = app.handle(.tab) }
    _ = app.handle(.mouse(MouseEvent(.wheelDown, column: 10, row: 20)))
    XCTAssertEqual(app.state.selectedEvent, EventIndex(5), "one event below e5")
    _ = app.handle(.mouse(MouseEvent(.wheelUp, column: 10, row: 20)))
    XCTAssertEqual(app.state.selectedEvent, EventIndex(4))
    let span = app.state.laneSpan
    _ = app.handle(.mouse(MouseEvent(.wheelUp, column: 40, row: 2)))
    XCTAssertEqual(app.state.laneSpan, span / 2, "over the strips the wheel zooms in")
    _ = app.handle(.mouse(MouseEvent(.wheelDown, column: 40, row: 20, control: true)))
    XCTAssertEqual(app.state.laneSpan, span, "with Ctrl it zooms anywhere")
  }

  func testWithoutAKnownSizeAClickDoesNothing() throws {
    var app = try GoldenScreenTests.app("virtual-timeout")
    _ = app.handle(.mouse(MouseEvent(.press, column: 10, row: 3)))
    XCTAssertEqual(app.state.selected(.lanes), 0)
  }

  func testTheWheelMovesAmongADetailsRelatedActions() throws {
    var app = try app()
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 1)))
    guard case .detail(let action, 0) = app.state.mode else { return XCTFail("no detail") }
    _ = app.handle(.mouse(MouseEvent(.wheelDown, column: 10, row: 20)))
    XCTAssertEqual(app.state.mode, .detail(action: action, link: 1))
  }
}
