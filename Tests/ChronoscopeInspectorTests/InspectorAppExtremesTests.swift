@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// The inspector on the largest values a trace may hold (docs/TraceFormat.md) and on extreme
/// settings: every view draws, and figures that cannot be computed honestly saturate instead of
/// trapping.
final class InspectorAppExtremesTests: XCTestCase {
  private static let most = TraceLimits.maximumTime

  /// A repeating action due at the end of time with the longest interval, begun at 0 (as early as
  /// can be) and at the end, with the largest run numbers, then cancelled.
  private static let lines = [
    #"{"format":"chronoscope-trace","version":1,"clock":"virtual"}"#,
    #"{"t":0,"e":"scheduler","q":1,"label":"q","kind":"serial","family":"virtual"}"#,
    #"{"t":0,"e":"schedule","a":4294967295,"q":1,"mode":"repeating","delay":\#(most),"due":\#(most),"th":4294967295}"#,
    #"{"t":0,"e":"begin","a":4294967295,"th":0,"run":1}"#,
    #"{"t":0,"e":"end","a":4294967295,"th":0,"run":1,"dur":\#(most)}"#,
    #"{"t":\#(most),"e":"begin","a":4294967295,"th":4294967295,"run":4294967295}"#,
    #"{"t":\#(most),"e":"cancel","a":4294967295,"th":0,"started":true}"#,
    #"{"t":\#(most),"e":"mark","th":0,"name":"end"}"#,
  ]

  private func app(timeStep: Int64?) throws -> InspectorApp {
    let text =
      (Self.lines + [#"{"t":\#(Self.most),"e":"close","events":6,"dropped":0}"#])
      .joined(separator: "\n") + "\n"
    let reading = TraceReader.parse(Array(text.utf8), file: "extremes.trace")
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics)")
    let trace = try XCTUnwrap(reading.trace)
    return InspectorApp(replay: ReplayEngine(trace: trace), name: "extremes", timeStep: timeStep)
  }

  func testEveryViewDrawsAtTheLargestTimesWithAnyTimeStep() throws {
    for timeStep: Int64? in [nil, .max, .min, 0, -1, 1] {
      var app = try app(timeStep: timeStep)
      XCTAssertGreaterThan(app.state.timeStep, 0, "a step of \(String(describing: timeStep))")
      XCTAssertGreaterThan(app.state.laneSpan, 0)
      let keys: [InputKey] =
        [.character("t"), .character("t"), .character("T")]
        + Array(repeating: .character("Z"), count: 70) + [.character("G"), .character("p")]
        + Array(repeating: .character("z"), count: 70) + [.character(" ")]
      for key in keys {
        _ = app.handle(key)
        _ = app.render(width: 120, height: 30)
      }
      app.tick(elapsed: .max)
      app.tick(elapsed: .min)
      _ = app.render(width: 60, height: 16)
      for position in 0...app.replay.eventCount {
        app.seek(to: .event(position))
        XCTAssertTrue(app.showDetail(of: ActionID(rawValue: .max)))
        let detail = app.render(width: 200, height: 40).plainText
        XCTAssertTrue(detail.contains("Action #4294967295"), detail)
        _ = app.handle(.escape)
        _ = app.render(width: 200, height: 40)
      }
    }
  }

  func testADetailOfAnActionBegunLongBeforeItWasDueSaysHowEarly() throws {
    var app = try app(timeStep: nil)
    app.seek(to: .event(3))
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: .max)))
    let text = app.render(width: 250, height: 40).plainText
    XCTAssertTrue(text.contains("began 0.000000s (early 4611686018.427s)"), text)
    XCTAssertTrue(text.contains("run 2        due 9223372036.854775s"), text)
    app.seek(to: .event(6))
    _ = app.handle(.escape)
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: .max)))
    XCTAssertTrue(app.render(width: 250, height: 40).plainText.contains("did not end"))
  }

  func testTimeTextSaysOverflowAtTheExtremesOfInt64AndFormatsTheRest() {
    XCTAssertEqual(TimeText.seconds(.max), "overflow", "where saturation stopped")
    XCTAssertEqual(TimeText.seconds(.min), "overflow")
    XCTAssertEqual(TimeText.duration(.min), "overflow")
    XCTAssertEqual(TimeText.duration(.max), "overflow")
    XCTAssertEqual(TimeText.seconds(.max - 1), "9223372036.854775s")
    XCTAssertEqual(TimeText.duration(.min + 1), "-9223372036.855s")
    XCTAssertNil(TimeText.parse("9223372036.9s"), "past Int64 is not a time")
    XCTAssertEqual(TimeText.parse("9000000000s"), .time(9_000_000_000_000_000_000))
  }

  func testInspectorStateWithTheMostExtremeStepsKeepsAPositiveSpan() {
    XCTAssertEqual(InspectorState(timeStep: .max).laneSpan, .max)
    // A negative step is no step: every one, however large, gets the floor (the span saturates
    // instead of wrapping, and does not flip to the largest).
    XCTAssertEqual(InspectorState(timeStep: .min).laneSpan, 1_000)
    XCTAssertEqual(InspectorState(timeStep: -1).laneSpan, 1_000)
  }
}
