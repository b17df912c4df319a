@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeRecording
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
import XCTest

/// Sleeps through a `RecordingClock` become actions on the clock's lane: schedule, then begin
/// and end when the sleep returns, or a cancel when it throws.
final class RecordingClockTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  func testSleepsAreScheduledBegunAndCancelledAtTheirVirtualInstants() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("clock-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let virtual = VirtualAsyncClock()
    let recorder = try TraceRecorder(
      reproduciblePath: path, clock: .virtual { virtual.now.offset }, metadata: [:])
    let clock = RecordingClock(wrapping: virtual, recorder: recorder, label: "search")
    // A timeout race: the work sleeps 300 ms, the limit 200 ms; the work's sleep is cancelled.
    let race = virtual.task {
      try await withTimeout(.milliseconds(200), clock: clock) {
        try await clock.sleep(for: .milliseconds(300))
        return "late"
      }
    }
    virtual.advance(by: .milliseconds(250))
    XCTAssertThrowsError(try race.result?.get()) { XCTAssertTrue($0 is TimedOut) }
    // Then a plain sleep of 50 ms that wakes.
    virtual.task { try await clock.sleep(for: .milliseconds(50)) }
    virtual.advance(by: .milliseconds(50))
    try virtual.checkNoPendingWork()
    recorder.close()

    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics.map(\.description), [])
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertEqual(trace.schedulers.values.map(\.label), ["search"])
    XCTAssertEqual(trace.schedulers.values.map(\.family), ["clock"])
    let lines = trace.events.filter { $0.kind != .hop && $0.kind != .task }.map { event in
      "\(event.kind.name) #\(event.action) @\(event.time / Self.ms)ms"
    }
    XCTAssertEqual(
      lines,
      [
        "schedule #1 @0ms", "schedule #2 @0ms", "begin #2 @200ms", "end #2 @200ms",
        "cancel #1 @200ms", "schedule #3 @250ms", "begin #3 @300ms", "end #3 @300ms",
      ], "the limit's sleep woke at 200 ms; the work's, cancelled then; the last woke at 300 ms")
    let delays = trace.events.filter { $0.kind == .schedule }.map { $0.delay / Self.ms }
    XCTAssertEqual(delays, [300, 200, 50], "the group's children started in the order added")

    var replay = ReplayEngine(trace: trace)
    replay.seek(toTime: 100 * Self.ms)
    XCTAssertEqual(replay.pendingCount(), 2, "both sleeps of the race are pending at 100 ms")
  }

  func testASleepOnTheRecordingClockRecordsItsCallSiteAndItsTasksName() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("clock-named-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let virtual = VirtualAsyncClock()
    let recorder = try TraceRecorder(
      reproduciblePath: path, clock: .virtual { virtual.now.offset }, metadata: [:])
    let clock = RecordingClock(wrapping: virtual, recorder: recorder, label: "search")
    let line = #line + 1
    virtual.task(name: "search") { try await clock.sleep(for: .milliseconds(50)) }
    virtual.task { try await clock.sleep(for: .milliseconds(60)) }  // a task with no name
    virtual.advance(by: .milliseconds(100))
    try virtual.checkNoPendingWork()
    recorder.close()

    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics.map(\.description), [])
    var replay = ReplayEngine(trace: try XCTUnwrap(reading.trace))
    let first = try XCTUnwrap(replay.actionIndices.first)
    let site = try XCTUnwrap(replay.callSite(of: first), "the sleep's call site")
    XCTAssertEqual(
      "\(site.file):\(site.line)", "ChronoscopeRecordingTests/RecordingClockTests.swift:\(line)")
    XCTAssertEqual(
      replay.tasks.map(\.title).sorted(),
      [
        "search (task \(replay.tasks.map(\.id.rawValue).min() ?? 0))",
        "task \(replay.tasks.map(\.id.rawValue).max() ?? 0)",
      ].sorted())
    replay.seek(to: replay.eventCount)
    XCTAssertEqual(Set(replay.tasks.compactMap(\.name)), ["search"])
  }
}
