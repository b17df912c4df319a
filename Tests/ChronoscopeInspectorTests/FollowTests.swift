@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// Following a trace that is still being written: newer reads replace the replay, and the cursor
/// moves with the end only while it is at the end.
final class FollowTests: XCTestCase {
  /// The first `count` events of the busy app's virtual recording, as a recorder that has not
  /// closed yet would have written them.
  private func prefix(_ count: Int) throws -> ReplayEngine {
    let path = GoldenScreenTests.recordings.appendingPathComponent("busy-app-virtual.trace").path
    var trace = try XCTUnwrap(TraceReader.read(path: path).trace)
    // `count` steps of the replay: a work line, which names the action before it, is no step.
    var steps = 0
    let end =
      trace.events.firstIndex { event in
        guard event.kind != .work, event.kind != .task else { return false }
        steps += 1
        return steps > count
      } ?? trace.events.endIndex
    trace.events = Array(trace.events[..<end])
    trace.closing = nil
    trace.closedAt = nil
    return ReplayEngine(trace: trace)
  }

  func testAtTheEndTheCursorMovesWithNewEventsElsewhereItStays() throws {
    var app = InspectorApp(replay: try prefix(100), name: "live.trace")
    app.startFollowing()
    XCTAssertEqual(app.replay.position, 100)
    XCTAssertTrue(app.isLive)
    app.follow(try prefix(250))
    XCTAssertEqual(app.replay.position, 250, "live: at the new end")
    XCTAssertEqual(app.state.clock, app.replay.now)
    var header = app.render(width: 120, height: 30).plainText.split(separator: "\n")[0]
    XCTAssertTrue(header.contains("● live"), String(header))
    XCTAssertTrue(header.contains("event 250/250"), String(header))
    XCTAssertFalse(header.contains("not closed"), "a trace being written is not closed yet")

    for _ in 0..<10 { _ = app.handle(.character("p")) }
    app.follow(try prefix(400))
    XCTAssertEqual(app.replay.position, 240, "stepped back: it stays on its event")
    XCTAssertFalse(app.isLive)
    header = app.render(width: 120, height: 30).plainText.split(separator: "\n")[0]
    XCTAssertTrue(header.contains("◌ following · G live end"), String(header))
    XCTAssertTrue(header.contains("event 240/400"), String(header))

    _ = app.handle(.character("G"))
    app.follow(try prefix(500))
    XCTAssertEqual(app.replay.position, 500, "G went back to the live end")
    app.replay._checkInvariants()
  }

  func testFindingsAndSearchMatchesAreRedoneForTheLongerTrace() throws {
    var app = InspectorApp(replay: try prefix(30), name: "live.trace")
    app.startFollowing()
    let early = app.findings.count
    _ = app.handle(.character("/"))
    for character in "app.network" { _ = app.handle(.character(character)) }
    _ = app.handle(.enter)
    _ = app.handle(.character("g"))
    _ = app.handle(.character("n"))
    let firstMatch = app.replay.position
    app.follow(try prefix(2_000))
    XCTAssertGreaterThan(app.findings.count, early, "the longer trace has more to find")
    XCTAssertEqual(app.replay.position, firstMatch, "not live: the cursor stayed")
    var positions: [Int] = []
    for _ in 0..<5 {
      _ = app.handle(.character("n"))
      positions.append(app.replay.position)
    }
    XCTAssertTrue(positions.contains { $0 > 30 }, "matches in the new events: \(positions)")
  }

  func testALiveTailHasNoLostWorkAndItsFindingsOnlyGrow() throws {
    var app = InspectorApp(replay: try prefix(50), name: "live.trace")
    app.startFollowing()
    var counts: [Int] = []
    for count in stride(from: 50, through: 3_000, by: 50) {
      app.follow(try prefix(count))
      XCTAssertFalse(
        app.findings.contains { $0.kind == .lostWork },
        "work pending at a live tail is not lost (\(count) events): \(app.findings.map(\.message))")
      counts.append(app.findings.count)
    }
    XCTAssertEqual(counts, counts.sorted(), "a growing trace's findings never go away: \(counts)")
  }

  func testTheHeaderSaysTheRecordingEndedOnceTheCloseLineArrives() throws {
    var app = InspectorApp(replay: try prefix(100), name: "live.trace")
    app.startFollowing()
    let path = GoldenScreenTests.recordings.appendingPathComponent("busy-app-virtual.trace").path
    app.follow(ReplayEngine(trace: try XCTUnwrap(TraceReader.read(path: path).trace)))
    let header = app.render(width: 120, height: 30).plainText.split(separator: "\n")[0]
    XCTAssertTrue(header.contains("■ recording ended"), String(header))
    XCTAssertFalse(header.contains("● live"), String(header))
  }
}
