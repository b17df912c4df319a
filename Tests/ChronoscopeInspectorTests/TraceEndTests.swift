@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import XCTest

/// One end instant everywhere: the trace's end as the header shows it (its close line, after the
/// last event), where `G`, End and play all stop, and from which `n` never moves the clock back.
final class TraceEndTests: XCTestCase {
  /// The live busy app closed 0.475 ms after its last event: 0.242293 s, then 0.242768 s.
  private func app() throws -> InspectorApp {
    let app = try GoldenScreenTests.app("busy-app")
    XCTAssertGreaterThan(app.replay.end, app.replay.span, "the close line is after the last event")
    return app
  }

  private func header(_ app: InspectorApp) -> String {
    String(app.render(width: 100, height: 30).plainText.prefix { $0 != "\n" })
  }

  func testGAndEndGoToTheEndTheHeaderShows() throws {
    for key in [InputKey.character("G"), .end] {
      var app = try app()
      _ = app.handle(key)
      XCTAssertEqual(app.state.clock, app.replay.end, "\(key)")
      XCTAssertEqual(app.replay.position, app.replay.eventCount, "\(key)")
      XCTAssertTrue(header(app).contains("0.242768s / 0.242768s"), header(app))
    }
  }

  func testPlayStopsAtTheSameEndAsG() throws {
    var app = try app()
    _ = app.handle(.character(" "))
    // Small ticks: play must run past the last event to the end, not stop at the last event.
    for _ in 0..<10_000 where app.state.playing { app.tick(elapsed: 100_000) }
    XCTAssertFalse(app.state.playing)
    XCTAssertEqual(app.state.clock, app.replay.end)
    XCTAssertEqual(app.state.message, "end of trace")
  }

  func testNextAtTheEndNeverMovesTheClockBack() throws {
    var app = try app()
    _ = app.handle(.character("G"))
    _ = app.handle(.character("n"))
    XCTAssertEqual(app.state.clock, app.replay.end)
    // From the last event, n has nowhere to go: the clock stays too.
    app.seek(to: .event(app.replay.eventCount))
    let last = app.state.clock
    _ = app.handle(.right)
    XCTAssertEqual(app.state.clock, last)
    XCTAssertEqual(app.replay.position, app.replay.eventCount)
  }

  func testPlayFromTheLastEventRunsOnToTheEnd() throws {
    var app = try app()
    app.seek(to: .event(app.replay.eventCount))
    _ = app.handle(.character(" "))
    XCTAssertTrue(app.state.playing, "the trace goes on to its close line")
    app.tick(elapsed: 1_000_000_000)
    XCTAssertEqual(app.state.clock, app.replay.end)
  }
}
