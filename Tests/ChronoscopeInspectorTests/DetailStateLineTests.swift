@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// The detail page's "now" line: the action's state at the cursor, dated by its own events.
final class DetailStateLineTests: XCTestCase {
  /// The text after `now` on the detail page of `id`, at the end of the trace.
  private func nowLine(_ app: inout InspectorApp, of id: Int) throws -> String {
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: UInt32(id))))
    let text = app.render(width: 120, height: 30).plainText
    let line = try XCTUnwrap(
      text.split(separator: "\n").first { $0.hasPrefix("   now ") }, "no now line in\n\(text)")
    return line.dropFirst("   now".count).trimmingCharacters(in: .whitespaces)
  }

  func testAnActionCancelledBeforeItRanSaysSoWithTheTimeOfItsCancel() throws {
    var app = try GoldenScreenTests.fixture("worker-hops")
    app.seek(to: .event(app.replay.eventCount))
    // #4 was cancelled at 2.18 ms, before it started; the trace goes on to 5.2 ms.
    XCTAssertEqual(try nowLine(&app, of: 4), "cancelled before it ran, at 0.002180s")
  }

  func testAFinishedActionIsDatedByItsEndNotByTheCursor() throws {
    var app = try GoldenScreenTests.fixture("worker-hops")
    app.seek(to: .event(app.replay.eventCount))
    // #1 ended at 0.14 ms; the cursor is at the end of the trace.
    XCTAssertEqual(try nowLine(&app, of: 1), "finished at 0.000140s")
    XCTAssertEqual(try nowLine(&app, of: 3), "finished at 0.005160s")
  }

  func testTheStateIsTheOneAtTheCursor() throws {
    var app = try GoldenScreenTests.fixture("worker-hops")
    app.seek(to: .event(3))
    XCTAssertEqual(try nowLine(&app, of: 4), "not scheduled yet (scheduled at 0.000130s)")
    app.seek(to: .time(1_000_000))  // #3 has begun on worker 5, #4 is waiting
    XCTAssertEqual(try nowLine(&app, of: 3), "running run 1 since 0.000160s")
    let pending = try nowLine(&app, of: 4)
    XCTAssertTrue(pending.hasPrefix("pending, next due 0.300130s (in "), pending)
  }

  func testARepeatingActionCancelledAfterRunsCountsItsRuns() throws {
    let trace = try XCTUnwrap(
      TraceReader.parse(
        Array(
          """
          {"format":"chronoscope-trace","version":1,"clock":"virtual","start":"","process":"t","pid":0}
          {"t":0,"e":"thread","th":1,"name":"main"}
          {"t":0,"e":"scheduler","q":1,"label":"poll","kind":"serial","family":"virtual"}
          {"t":0,"e":"schedule","a":1,"q":1,"mode":"repeating","delay":100000000,"due":100000000,"th":1}
          {"t":100000000,"e":"begin","a":1,"th":1,"run":1}
          {"t":110000000,"e":"end","a":1,"th":1,"run":1,"dur":10000000}
          {"t":200000000,"e":"begin","a":1,"th":1,"run":2}
          {"t":250000000,"e":"cancel","a":1,"th":1,"started":true}
          {"t":260000000,"e":"end","a":1,"th":1,"run":2,"dur":60000000}
          {"t":900000000,"e":"mark","th":1,"name":"later"}

          """.utf8), file: "t.trace"
      ).trace)
    var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "t")
    app.seek(to: .time(150_000_000))
    XCTAssertTrue(
      try nowLine(&app, of: 1).hasPrefix("pending after running once, next due 0.200000s"))
    app.seek(to: .event(app.replay.eventCount))
    XCTAssertEqual(
      try nowLine(&app, of: 1),
      "ran 2 times, cancelled at 0.250000s, last run ended at 0.260000s")
  }
}
