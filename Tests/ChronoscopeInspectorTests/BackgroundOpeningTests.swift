@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

@_spi(Benchmarks) @testable import ChronoscopeInspector

/// The terminal's inspector draws its first frame before the keyframes and the findings are
/// made (`InspectorApp.opening`). Until it takes them, what it shows must still be true; after,
/// it must be the inspector that made everything first.
final class BackgroundOpeningTests: XCTestCase {
  private static func trace(_ recording: String) throws -> (Trace, String) {
    let path = GoldenScreenTests.recordings.appendingPathComponent("\(recording).trace").path
    return (try XCTUnwrap(TraceReader.read(path: path).trace), "\(recording).trace")
  }

  private func screen(_ app: InspectorApp) -> String {
    app.render(width: 140, height: 40).plainText
  }

  func testUntilItTakesTheFindingsItSaysItIsStillLookingForThem() throws {
    let (trace, name) = try Self.trace("findings-demo")
    let complete = InspectorApp(replay: ReplayEngine(trace: trace), name: name)
    XCTAssertFalse(complete.findings.isEmpty, "the recording has findings to wait for")
    var opening = InspectorApp.opening(
      replay: ReplayEngine(trace: trace, makingKeyframes: false), name: name)
    // Whatever the other threads have done by now, nothing is taken before `takePreparedWork`.
    XCTAssertFalse(opening.hasFindings)
    let title = screen(opening).split(separator: "\n")[0]
    XCTAssertTrue(title.contains("⚑ finding…"), "\(title)")
    XCTAssertFalse(
      title.contains("⚑ \(complete.findings.count)"), "no count before it is known: \(title)")
    XCTAssertTrue(opening.handle(.character("x")))
    XCTAssertEqual(opening.state.message, "still looking for findings; try again in a moment")
    XCTAssertEqual(opening.state.clock, 0, "x moved nowhere")
    XCTAssertTrue(opening.handle(.character("!")))
    XCTAssertTrue(screen(opening).contains(" Findings (…)"), screen(opening))
    XCTAssertTrue(screen(opening).contains("still looking for findings"), screen(opening))
    XCTAssertTrue(opening.handle(.escape))

    opening.finishPreparing()
    XCTAssertTrue(opening.hasFindings)
    XCTAssertFalse(opening.isPreparing)
    XCTAssertFalse(opening.takePreparedWork(), "everything was taken once")
    XCTAssertEqual(opening.findings, complete.findings)
    XCTAssertTrue(opening.replay.hasKeyframes)
    XCTAssertEqual(screen(opening), screen(complete))
  }

  func testSeeksBeforeAndAfterTheKeyframesArriveLandWhereTheCompleteInspectorsDo() throws {
    let (trace, name) = try Self.trace("busy-app-virtual")
    var complete = InspectorApp(replay: ReplayEngine(trace: trace), name: name)
    var opening = InspectorApp.opening(
      replay: ReplayEngine(trace: trace, makingKeyframes: false), name: name)
    XCTAssertFalse(opening.replay.hasKeyframes)
    let count = complete.replay.eventCount
    let targets = [count / 2, count, 3, count - 1, count / 3, 0, count * 2 / 3]
    for (step, target) in targets.enumerated() {
      if step == 3 { opening.finishPreparing() }
      XCTAssertEqual(opening.replay.hasKeyframes, step >= 3)
      XCTAssertTrue(complete.seek(to: .event(target)))
      XCTAssertTrue(opening.seek(to: .event(target)))
      let (expected, found) = (complete.replay, opening.replay)
      XCTAssertEqual(found.position, expected.position, "seek \(step) to event \(target)")
      XCTAssertEqual(found.pending(first: 1000), expected.pending(first: 1000))
      XCTAssertEqual(found.runningCount, expected.runningCount)
      for action in expected.actionIndices {
        XCTAssertEqual(found.state(of: action), expected.state(of: action))
      }
      opening.replay._checkInvariants()
    }
  }

  func testTheOtherGroupingsLanesAreIndexedAfterTheFindingsAndShowTheSame() throws {
    let (trace, name) = try Self.trace("busy-app-virtual")
    var complete = InspectorApp(replay: ReplayEngine(trace: trace), name: name)
    var opening = InspectorApp.opening(
      replay: ReplayEngine(trace: trace, makingKeyframes: false), name: name)
    // Only the lanes shown are indexed before the first frame; the others come with the rest.
    XCTAssertNotNil(opening.cache.stripIndexes[.byScheduler])
    XCTAssertNil(opening.cache.stripIndexes[.byThread])
    opening.finishPreparing()
    XCTAssertNotNil(opening.cache.stripIndexes[.byThread], "made in the background")
    complete.group(by: .byThread)
    opening.group(by: .byThread)
    XCTAssertEqual(screen(opening), screen(complete))
    // Asked for before the background made it, it is made at once, the same.
    var early = InspectorApp.opening(
      replay: ReplayEngine(trace: trace, makingKeyframes: false), name: name)
    early.group(by: .byThread)
    early.finishPreparing()
    XCTAssertEqual(screen(early), screen(complete))
  }
}
