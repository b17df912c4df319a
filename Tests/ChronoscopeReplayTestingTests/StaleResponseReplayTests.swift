@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeReplayTesting
import ChronoscopeTestSupport
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import XCTest

/// The proof of issue 31's first item: a race recorded once on live Dispatch schedulers
/// (`Recordings/stale-response.trace`, where a's late response overwrote b's) fails the same way
/// on every replay, and after the fix the replay says where the code now differs.
final class StaleResponseReplayTests: XCTestCase {
  private static let recording = Recordings.path("stale-response")

  func testTheRecordedRaceShowsTheStaleResponseOnEachOfAThousandReplays() throws {
    let schedule = try RecordedSchedule(contentsOf: Self.recording)
    var shown: [String?: Int] = [:]
    for _ in 0..<1_000 {
      let replay = ReplayingSchedulerFactory(replaying: schedule)
      let search = StaleResponseSearch(factory: replay)
      search.type(["a", "b"], gap: .milliseconds(3))
      try replay.run()
      XCTAssertTrue(search.showsStaleResults)
      shown[search.shownQuery, default: 0] += 1
    }
    XCTAssertEqual(shown, ["a": 1_000], "b was typed last, a's results show: every time")
  }

  /// A replayed run is recorded like any test on virtual time, and its trace kept when it
  /// fails: that trace is the same order again, one command from the inspector.
  func testAReplayedRunKeepsItsTraceWhichReplaysTheSameWay() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("chronoscope-replay-kept-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let replay = try ReplayingSchedulerFactory(replaying: Self.recording)
    let trace = TestTraceRecorder(
      factory: replay, clock: replay.clock, testName: "stale-response",
      settings: TestTraceSettings(folder: folder.path))
    let search = StaleResponseSearch(factory: trace.factory)
    search.type(["a", "b"], gap: .milliseconds(3))
    try replay.run()
    XCTAssertTrue(search.showsStaleResults)
    let kept = trace.keep(reason: "a's results shown after b was typed")
    let path = try XCTUnwrap(kept.path, kept.message)
    XCTAssertTrue(kept.message.contains("chronoscope view \(path)"), kept.message)
    let again = try ReplayingSchedulerFactory(replaying: path)
    let rerun = StaleResponseSearch(factory: again)
    rerun.type(["a", "b"], gap: .milliseconds(3))
    try again.run()
    XCTAssertEqual(rerun.shownQuery, "a", "the kept trace replays the stale response")
  }

  func testAFreshLiveRecordingOfTheRaceReplaysAsTheRaceEveryTime() throws {
    let path = temporaryTracePath("stale-response")
    let (status, output) = try CommandRun.examples(["record-stale-response", "-o", path])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("the race happened on run"), output)
    let schedule = try RecordedSchedule(contentsOf: path)
    for _ in 0..<100 {
      let replay = ReplayingSchedulerFactory(replaying: schedule)
      let search = StaleResponseSearch(factory: replay)
      search.type(["a", "b"], gap: .milliseconds(3))
      try replay.run()
      XCTAssertEqual(search.shownQuery, "a")
    }
  }

  func testTheLatenciesTheCodeAsksForDoNotChangeTheReplayedOrder() throws {
    let replay = try ReplayingSchedulerFactory(replaying: Self.recording)
    // On its own, a's response would come long before b's.
    let search = StaleResponseSearch(factory: replay) { $0 == "a" ? .zero : .seconds(10) }
    search.type(["a", "b"], gap: .milliseconds(3))

    try replay.run()

    XCTAssertEqual(search.shownQuery, "a")
    XCTAssertEqual(search.lastQuery, "b")
  }

  func testOnVirtualTimeTheFixShowsTheLastQueryWhenTheFirstResponseIsLate() throws {
    for variant in [StaleResponseSearch.Variant.showsEveryResponse, .cancelsStaleRequests] {
      let clock = VirtualClock()
      let search = StaleResponseSearch(factory: .virtual(clock), variant: variant) {
        $0 == "a" ? .milliseconds(30) : .milliseconds(20)
      }
      search.type(["a", "b"], gap: .milliseconds(3))

      try clock.run()

      XCTAssertEqual(search.showsStaleResults, variant == .showsEveryResponse, "\(variant)")
      XCTAssertEqual(search.responsesShown, variant == .showsEveryResponse ? 2 : 1)
    }
  }

  func testAfterTheFixTheReplayReportsWhereTheCodeNowDiffers() throws {
    let replay = try ReplayingSchedulerFactory(replaying: Self.recording)
    let search = StaleResponseSearch(factory: replay, variant: .cancelsStaleRequests)
    search.type(["a", "b"], gap: .milliseconds(3))

    XCTAssertThrowsError(try replay.run()) { error in
      XCTAssertEqual(
        "\(error)",
        """
        replay of \(Self.recording) stopped: the trace ran work the code did not schedule or cancelled
        A: \(Self.recording) (times from its first event, at 0.000076s)
        B: the code under test, on virtual time
        first divergence at run 5 in begin order:
          A ran #3 search.network (ChronoscopeExamples/StaleResponseSearch.swift:82 send(_:)) occurrence 1, run 1, at 0.024282s
          B ran nothing more
        """)
    }
    XCTAssertEqual(search.shownQuery, "b", "what ran before the divergence ran")
  }
}
