@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The figures of `chronoscope stats` on a trace whose answers are known.
final class TraceStatisticsTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  private static func statistics() -> TraceStatistics {
    // A serial scheduler: #1 async runs 0–10 ms; #2 after 5 ms due at 5 ms, begins at 10 ms (5 ms
    // late), runs 10–40 ms; #3 never runs; #4 is cancelled before it runs. Work hops to thread 4.
    let events: [TraceEvent] = [
      .schedule(
        time: 0, action: 1, scheduler: 2, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
        site: 0),
      .schedule(
        time: 0, action: 2, scheduler: 2, mode: .after, delay: 5 * ms, due: 5 * ms, thread: 1,
        parent: 0, site: 0),
      .schedule(
        time: 0, action: 3, scheduler: 2, mode: .after, delay: 900 * ms, due: 900 * ms,
        thread: 1, parent: 0, site: 0),
      .schedule(
        time: 0, action: 4, scheduler: 2, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
        site: 0),
      .cancel(time: 1, action: 4, thread: 1, by: 0, started: false),
      .begin(time: 0, action: 1, thread: 4, run: 1),
      .end(time: 10 * ms, action: 1, thread: 4, run: 1, duration: 10 * ms),
      .begin(time: 10 * ms, action: 2, thread: 4, run: 1),
      .end(time: 40 * ms, action: 2, thread: 4, run: 1, duration: 30 * ms),
      .mark(time: 200 * ms, thread: 1, mark: 0),
    ]
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: [2: SchedulerRecord(id: 2, label: "db", kind: "serial", family: "v", time: 0)],
      threadNames: [1: "main"], marks: [MarkRecord(name: "end")],
      closing: .init(written: 10, dropped: 0))
    return TraceStatistics(ReplayEngine(trace: trace))
  }

  func testSchedulerCountsLatenessWaitsAndRunTimes() throws {
    let stats = Self.statistics()
    let scheduler = try XCTUnwrap(stats.schedulers.first)
    XCTAssertEqual(scheduler.label, "db")
    XCTAssertEqual(scheduler.scheduled, 4)
    XCTAssertEqual(scheduler.ran, 2)
    XCTAssertEqual(scheduler.cancelled, 1)
    XCTAssertEqual(scheduler.lost, 1)
    XCTAssertEqual(scheduler.runs, 2)
    XCTAssertEqual(scheduler.lateness.count, 1)
    XCTAssertEqual(scheduler.lateness.max, 5 * Self.ms)
    XCTAssertEqual(scheduler.wait.max, 0)
    XCTAssertEqual(scheduler.duration.p50, 10 * Self.ms)
    XCTAssertEqual(scheduler.duration.max, 30 * Self.ms)
    XCTAssertEqual(scheduler.peakConcurrency, 1)
    XCTAssertEqual(scheduler.utilisation, 0.2, accuracy: 1e-9, "40 ms of runs over 200 ms")
    XCTAssertEqual(scheduler.busiestWindow?.start, 0)
    XCTAssertEqual(scheduler.busiestWindow?.busy, 40 * Self.ms)
  }

  /// A work item that cancels itself while it runs (a timer whose body stops it), and a
  /// repeating timer stopped between runs: both ran; neither is also counted as cancelled.
  func testWorkCancelledDuringOrAfterItsRunCountsAsRanOnly() throws {
    let events: [TraceEvent] = [
      .schedule(
        time: 0, action: 1, scheduler: 2, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
        site: 0),
      .schedule(
        time: 0, action: 2, scheduler: 2, mode: .repeating, delay: Self.ms, due: Self.ms,
        thread: 1, parent: 0, site: 0),
      .begin(time: 0, action: 1, thread: 4, run: 1),
      .cancel(time: 1, action: 1, thread: 4, by: 1, started: true),
      .end(time: 2, action: 1, thread: 4, run: 1, duration: 2),
      .begin(time: Self.ms, action: 2, thread: 4, run: 1),
      .end(time: Self.ms + 5, action: 2, thread: 4, run: 1, duration: 5),
      .cancel(time: Self.ms + 10, action: 2, thread: 1, by: 0, started: true),
    ]
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: [2: SchedulerRecord(id: 2, label: "db", kind: "serial", family: "v", time: 0)],
      threadNames: [1: "main"], closing: .init(written: 8, dropped: 0))
    let scheduler = try XCTUnwrap(TraceStatistics(ReplayEngine(trace: trace)).schedulers.first)
    XCTAssertEqual(
      [scheduler.scheduled, scheduler.ran, scheduler.cancelled, scheduler.lost], [2, 2, 0, 0])
  }

  /// What a user adds up: on every bundled recording, ran, cancelled and lost divide what was
  /// scheduled on each scheduler.
  func testRanCancelledAndLostDivideTheScheduledWorkInEveryRecording() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Recordings.folder.path)
      .filter { $0.hasSuffix(".trace") }
    XCTAssertGreaterThan(names.count, 10)
    for name in names {
      let reading = TraceReader.read(path: Recordings.folder.appendingPathComponent(name).path)
      let trace = try XCTUnwrap(reading.trace, name)
      for scheduler in TraceStatistics(ReplayEngine(trace: trace)).schedulers {
        XCTAssertEqual(
          scheduler.ran + scheduler.cancelled + scheduler.lost, scheduler.scheduled,
          "\(name): \(scheduler.label)")
      }
    }
  }

  func testThreadsAreBusyWhileRunsAreUnderWay() throws {
    let stats = Self.statistics()
    XCTAssertEqual(stats.threads.first { $0.id == ThreadID(rawValue: 4) }?.busy, 40 * Self.ms)
    XCTAssertEqual(stats.threads.first { $0.id == ThreadID(rawValue: 1) }?.busy, 0)
  }

  func testActivityAndTheLatenessHistogram() {
    let stats = Self.statistics()
    XCTAssertEqual(stats.activity.reduce(0, +), 2, "two begins")
    XCTAssertEqual(stats.activity.count, TraceStatistics.activityBuckets)
    XCTAssertEqual(stats.latenessHistogram, [0, 1, 0, 0, 0], "5 ms late: the 1–10 ms bucket")
  }
}
