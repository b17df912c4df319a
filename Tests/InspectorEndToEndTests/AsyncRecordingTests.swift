import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The async search demo, recorded through `RecordingClock`s: live on `ContinuousClock` and on a
/// `VirtualAsyncClock`, bundled in `Recordings/`, and shown by the inspector.
final class AsyncRecordingTests: XCTestCase {
  func testReRecordingTheVirtualAsyncSearchReproducesTheBundledTrace() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("async-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (status, output) = try CommandRun.examples([
      "record", "async-search-virtual", "--output", path,
    ])
    XCTAssertEqual(status, 0, output)
    XCTAssertEqual(
      try String(contentsOfFile: path, encoding: .utf8),
      try String(contentsOfFile: Recordings.path("async-search-virtual"), encoding: .utf8),
      "re-record with: swift run chronoscope-examples record async-search-virtual")
  }

  func testTheLiveRecordingHasAClockLaneForEachPartWithCancelledSleeps() throws {
    let trace = try XCTUnwrap(TraceReader.read(path: Recordings.path("async-search")).trace)
    XCTAssertEqual(trace.header.clock, .host)
    XCTAssertEqual(
      Set(trace.schedulers.values.map(\.label)), ["typing", "debounce", "search"])
    XCTAssertTrue(trace.schedulers.values.allSatisfy { $0.family == "clock" })
    // Keystrokes cancel the debounce's sleeps; the slow first answer's timeout cancels its work.
    let cancels = trace.events.filter { $0.kind == .cancel }
    XCTAssertGreaterThanOrEqual(cancels.count, 5)
    XCTAssertTrue(cancels.allSatisfy { !$0.started }, "a sleep is cancelled before it wakes")
    // The recorder closed when the demo ended (its wait woke on the change), not at the wait's
    // 30 s deadline: zoom-to-fit and play show the run, not 29 s of nothing after it.
    let last = try XCTUnwrap(trace.events.last?.time)
    let end = try XCTUnwrap(trace.closedAt)
    XCTAssertLessThan(end - last, 100_000_000, "closed \(end - last) ns after the last event")
  }

  func testTheInspectorShowsSleepsAsPendingWorkOnTheClocksLanes() throws {
    let (status, output) = try CommandRun.chronoscope([
      "show", Recordings.path("async-search-virtual"), "--at", "400ms", "--size", "100x30",
    ])
    XCTAssertEqual(status, 0, output)
    for lane in ["typing", "debounce", "search"] {
      XCTAssertTrue(output.contains(lane), "lane \(lane):\n\(output)")
    }
    XCTAssertTrue(output.contains("── Pending (3)"), output)
    // The search's sleeps are named after the query (a WorkContext scope in the demo).
    XCTAssertTrue(
      output.contains("#10 after       search \"swift\" … search           due 0.510000s"), output)
  }

  func testShowByTaskDrawsATaskPerLaneWithItsPendingAndRunningWork() throws {
    let (status, output) = try CommandRun.chronoscope([
      "show", Recordings.path("async-actors"), "--at", "e30", "--size", "100x30", "--by-task",
    ])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("Lanes (by task) (1)"), "one task rallies:\n\(output)")
    XCTAssertTrue(
      output.contains("on think, ping, pong"), "its work is on both actors and the clock")
    let (valid, report) = try CommandRun.chronoscope([
      "validate", Recordings.path("async-actors"),
    ])
    XCTAssertEqual(valid, 0, report)
    XCTAssertTrue(
      report.contains("ok, 95 events (and 27 task lines)"), "as the inspector counts: \(report)")
    // The search's sleeps are named: a work line is no event either (the inspector counts 53).
    let named = try CommandRun.chronoscope(["validate", Recordings.path("async-search-virtual")])
    XCTAssertEqual(named.status, 0, named.output)
    XCTAssertTrue(
      named.output.contains("ok, 53 events (and 20 task lines, 7 work lines)"), named.output)
    let (refused, message) = try CommandRun.chronoscope([
      "show", Recordings.path("busy-app-virtual"), "--by-task",
    ])
    XCTAssertEqual(refused, 2)
    XCTAssertTrue(message.contains("the trace names no Swift task"), message)
  }

  func testRecordedActorsAreLanesAndTheirCallsCrossBetweenThem() throws {
    let trace = try XCTUnwrap(TraceReader.read(path: Recordings.path("async-actors")).trace)
    let actors = trace.schedulers.values.filter { $0.family == "actor" }
    XCTAssertEqual(Set(actors.map(\.label)), ["ping", "pong"])
    let lane = Dictionary(uniqueKeysWithValues: trace.schedulers.values.map { ($0.id, $0.label) })
    let schedules = trace.events.filter { $0.kind == .schedule }
    let laneOf = Dictionary(
      uniqueKeysWithValues: schedules.map { ($0.action, lane[$0.scheduler] ?? "?") })
    let arrows = schedules.compactMap { schedule -> String? in
      guard let parent = schedule.parent, parent != 0, let from = laneOf[parent],
        let to = laneOf[schedule.action], from != to
      else { return nil }
      return "\(from)→\(to)"
    }
    XCTAssertTrue(arrows.contains("ping→pong") && arrows.contains("pong→ping"), "\(arrows)")
    // The players think on a recorded clock. Its `sleep` is nonisolated, so Swift leaves the
    // actor to call it: the sleep is scheduled on the pool, after the actor's job has ended.
    let thinking = schedules.filter { laneOf[$0.action] == "think" }
    XCTAssertEqual(thinking.count, 6)
    XCTAssertTrue(thinking.allSatisfy { $0.parent == nil || $0.parent == 0 }, "off the actor")
    XCTAssertGreaterThan(trace.events.filter { $0.kind == .hop }.count, 0, "thread hops")
  }
}
