@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// The inspector's behaviour through keys and ticks, without a terminal.
final class InspectorAppTests: XCTestCase {
  private func app(_ name: String = "virtual-timeout") throws -> InspectorApp {
    try GoldenScreenTests.app(name)
  }

  func testStepKeysMoveOneEventEitherWay() throws {
    var app = try app()
    for key in [InputKey.character("n"), .right, .right] { _ = app.handle(key) }
    XCTAssertEqual(app.replay.position, 3)
    for key in [InputKey.character("p"), .left] { _ = app.handle(key) }
    XCTAssertEqual(app.replay.position, 1)
    _ = app.handle(.character("G"))
    XCTAssertEqual(app.replay.position, app.replay.eventCount)
    _ = app.handle(.character("g"))
    XCTAssertEqual(app.replay.position, 0)
  }

  func testPlaybackAdvancesVirtualTimeAtSpeedTimesWallTime() throws {
    var app = try app()
    _ = app.handle(.character(" "))
    XCTAssertTrue(app.state.playing)
    app.tick(elapsed: 500_000_000)  // half a second of wall time at ×1
    XCTAssertEqual(app.state.clock, 500_000_000)
    XCTAssertEqual(app.replay.now, 0)
    app.tick(elapsed: 500_000_000)
    XCTAssertEqual(app.replay.now, 1_000_000_000)
    _ = app.handle(.character("+"))
    _ = app.handle(.character("+"))
    XCTAssertEqual(app.state.speed, 4)
    app.tick(elapsed: 500_000_000)  // ×4: two more virtual seconds
    XCTAssertEqual(app.replay.now, 3_000_000_000)
    _ = app.handle(.character(" "))
    app.tick(elapsed: 10_000_000_000)
    XCTAssertEqual(app.replay.now, 3_000_000_000, "paused")
  }

  func testPlaybackStopsAtTheEnd() throws {
    var app = try app()
    _ = app.handle(.character(" "))
    app.tick(elapsed: 1_000_000_000_000)
    XCTAssertFalse(app.state.playing)
    XCTAssertEqual(app.replay.position, app.replay.eventCount)
    XCTAssertEqual(app.state.message, "end of trace")
  }

  func testTimeStepKeysMoveByTheConfiguredDelta() throws {
    let trace = try XCTUnwrap(
      TraceReader.read(
        path: GoldenScreenTests.recordings.appendingPathComponent("virtual-timeout.trace").path
      ).trace)
    var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "t", timeStep: 1_000_000_000)
    _ = app.handle(.character("t"))
    XCTAssertEqual(app.replay.now, 1_000_000_000)
    _ = app.handle(.character("t"))
    _ = app.handle(.character("t"))
    XCTAssertEqual(app.state.clock, 3_000_000_000, "time moves even where no event happens")
    XCTAssertEqual(app.replay.now, 3_000_000_000)
    _ = app.handle(.character("T"))
    XCTAssertEqual(app.state.clock, 2_000_000_000)
    XCTAssertEqual(app.replay.now, 1_000_000_000, "the cursor is on the last event before 2 s")
  }

  func testSeekPromptAcceptsTimesEventsAndActionsAndRejectsNonsense() throws {
    var app = try app()
    for key in "@2.5s" { _ = app.handle(.character(key)) }
    _ = app.handle(.enter)
    XCTAssertEqual(app.replay.now, 1_000_000_000, "the last event at or before 2.5 s")
    for key in "@e7" { _ = app.handle(.character(key)) }
    _ = app.handle(.enter)
    XCTAssertEqual(app.replay.position, 7)
    for key in "@#3" { _ = app.handle(.character(key)) }
    _ = app.handle(.enter)
    let current = try XCTUnwrap(app.replay.currentEvent)
    XCTAssertEqual(current.kind, .schedule, "#3 is the action: its schedule")
    XCTAssertEqual(current.action.map { app.replay.action($0).id }, ActionID(rawValue: 3))
    let position = app.replay.position
    for key in "@soon" { _ = app.handle(.character(key)) }
    _ = app.handle(.enter)
    XCTAssertEqual(
      app.state.message,
      "cannot read \"soon\" (try 1.25s, 300ms, e120 for an event, #12 for an action)")
    for key in "@120" { _ = app.handle(.character(key)) }
    _ = app.handle(.enter)
    XCTAssertEqual(app.state.message, "\"120\" needs a unit: 120s, 120ms… (or e120 for an event)")
    XCTAssertEqual(app.replay.position, position)
  }

  func testSearchFindsLabelsAndMarksAndNCyclesThroughMatches() throws {
    var app = try app()
    for key in "/timeout fires" { _ = app.handle(.character(key)) }
    _ = app.handle(.enter)
    let first = app.replay.position
    XCTAssertEqual(app.replay.currentEvent?.kind, .mark)
    for key in "/timeout-service" { _ = app.handle(.character(key)) }
    _ = app.handle(.enter)
    let second = app.replay.position
    XCTAssertGreaterThan(second, first)
    _ = app.handle(.character("n"))
    XCTAssertGreaterThan(app.replay.position, second)
    _ = app.handle(.character("N"))
    XCTAssertEqual(app.replay.position, second)
    _ = app.handle(.escape)
    _ = app.handle(.character("n"))
    XCTAssertEqual(app.replay.position, second + 1, "n steps again once the search is cleared")
  }

  func testLaneStepsFindTheNextEventOnTheSelectedLane() throws {
    var app = try app()
    // Lanes are main (1) and timeout-service (2); select the service and step along it.
    _ = app.handle(.character("j"))
    _ = app.handle(.character("]"))
    let event = try XCTUnwrap(app.replay.currentEvent)
    XCTAssertEqual(
      app.replay.action(try XCTUnwrap(event.action)).scheduler, SchedulerID(rawValue: 2))
    let position = app.replay.position
    _ = app.handle(.character("]"))
    XCTAssertGreaterThan(app.replay.position, position)
    _ = app.handle(.character("["))
    XCTAssertEqual(app.replay.position, position)
  }

  func testEnterOpensTheDetailAndEscapeGoesBack() throws {
    var app = try app()
    app.seek(to: .event(5))
    _ = app.handle(.tab)
    XCTAssertEqual(app.state.focus, .pending)
    _ = app.handle(.enter)
    guard case .detail = app.state.mode else { return XCTFail("no detail") }
    _ = app.handle(.escape)
    XCTAssertEqual(app.state.mode, .main)
  }

  func testQuitKeyEndsTheApp() throws {
    var app = try app()
    XCTAssertFalse(app.handle(.character("q")))
  }

  func testControlCharactersFromATraceNeverReachTheScreen() throws {
    let hostile = """
      {"format":"chronoscope-trace","version":1,"clock":"virtual","start":"","process":"x","pid":1,"metadata":{}}
      {"t":0,"e":"scheduler","q":1,"label":"evil\\u001b[2J\\u001b]0;pwned\\u0007","kind":"serial","family":"virtual"}
      {"t":0,"e":"site","site":1,"file":"a\\u001b[31m.swift","line":1,"func":"f\\u009b"}
      {"t":0,"e":"schedule","a":1,"q":1,"mode":"async","due":0,"th":1,"site":1}
      {"t":1,"e":"mark","th":1,"name":"\\u202eevil"}
      """
    let trace = try XCTUnwrap(TraceReader.parse(Array(hostile.utf8), file: "hostile").trace)
    var app = InspectorApp(
      replay: ReplayEngine(trace: trace), name: "hostile\u{1B}[2J", timeStep: nil)
    app.seek(to: .event(2))
    for grid in [
      app.render(width: 100, height: 30), app.render(width: 100, height: 30, colors: false),
    ] {
      let scalars = grid.cells.flatMap { $0.text.unicodeScalars }
      XCTAssertFalse(
        scalars.contains {
          $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || $0.value == 0x202E
        })
      XCTAssertTrue(grid.plainText.contains("evil\\u{"), grid.plainText)
    }
    // Wide enough for the label's start, its escapes are shown as text.
    XCTAssertTrue(app.render(width: 200, height: 30).plainText.contains("evil\\u{1b}[2J"))
  }

  func testResizingRedrawsAtTheNewSize() throws {
    var app = try app()
    XCTAssertTrue(app.handle(.resize(width: 70, height: 20)))
    let grid = app.render(width: 70, height: 20)
    XCTAssertEqual(grid.width, 70)
    XCTAssertTrue(grid.plainText.contains("virtual-timeout.trace"), "the header names the file")
  }
}
