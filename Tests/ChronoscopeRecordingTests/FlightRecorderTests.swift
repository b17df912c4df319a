@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeRecording
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
import XCTest

/// A flight recorder keeps a window of the recent past and dumps it as a trace that validates
/// and replays truthfully. Virtual time: each step advances the clock and flushes, so the
/// window moves by the clock, not by the machine.
final class FlightRecorderTests: XCTestCase {
  private static let second: Int64 = 1_000_000_000

  private func temporaryPath(_ name: String) -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-\(UUID().uuidString).trace").path
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }

  /// Reads a dump, failing on any error or warning.
  private func readClean(_ path: String, file: StaticString = #filePath, line: UInt = #line)
    throws -> Trace
  {
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics.map(\.description), [], file: file, line: line)
    return try XCTUnwrap(reading.trace, file: file, line: line)
  }

  /// A flight recorder on a virtual clock, closed when the test ends, and a factory it records.
  private func virtualFlight(_ window: FlightRecorderWindow = FlightRecorderWindow()) -> (
    clock: VirtualClock, flight: FlightRecorder, factory: RecordingSchedulerFactory
  ) {
    let clock = VirtualClock()
    let flight = FlightRecorder(keeping: window, clock: .virtual { clock.now })
    addTeardownBlock { flight.close() }
    let factory = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: flight.recorder)
    return (clock, flight, factory)
  }

  func testADumpHoldsTheLastWindowWithTheWorkLiveAtItsStart() throws {
    let (clock, flight, factory) = virtualFlight(
      FlightRecorderWindow(keeping: .seconds(10), maxBytes: 1 << 20))
    let poll = factory.makeSerial(label: "poll")
    let worker = factory.makeConcurrent(label: "worker")
    let timer = poll.every(.seconds(1)) {}
    defer { timer.cancel() }
    let far = factory.makeSerial(label: "far").after(.seconds(3_600)) {}
    defer { far.cancel() }
    let dropped = worker.after(.seconds(5)) {}
    dropped.cancel()
    for step in 1...120 {
      if step % 7 == 0 { worker.async {} }
      clock.advance(by: .seconds(1))
      flight.recorder.flush()
    }
    let path = temporaryPath("flight")
    try flight.dump(to: path)

    let trace = try readClean(path)
    let window = try XCTUnwrap(trace.header.sliceWindow, "a dump says which window it holds")
    XCTAssertLessThanOrEqual(window.lowerBound, 110 * Self.second, "at least the last 10 s")
    XCTAssertGreaterThanOrEqual(window.lowerBound, 100 * Self.second, "not much more")
    XCTAssertEqual(window.upperBound, 120 * Self.second)
    XCTAssertTrue(
      trace.header.metadata[TraceHeader.sliceSourceKey]?.hasPrefix("flight recorder of") == true)

    // The timer's runs carry on from its last run before the window, one after the other.
    let timerID = try XCTUnwrap(trace.events.first { $0.kind == .schedule }?.action)
    let runs = trace.events.filter { $0.kind == .begin && $0.action == timerID }.map(\.run)
    XCTAssertEqual(runs.last, 120)
    XCTAssertEqual(runs, Array(runs.first!...120), "consecutive runs")
    XCTAssertLessThan(
      trace.events.filter { $0.kind == .begin && $0.time < window.lowerBound }.count, 3,
      "before the window only the live work's last runs")
    // The far work is pending since 0 s; the work cancelled at 0 s is gone.
    let schedules = trace.events.filter { $0.kind == .schedule }
    XCTAssertEqual(
      schedules.filter { $0.time == 0 }.map(\.delay), [Self.second, 3_600 * Self.second])

    var replay = ReplayEngine(trace: trace)
    replay.seek(to: replay.eventCount)
    XCTAssertEqual(replay.pendingCount(), 2, "the far work and the timer's next run")
    let findings = FindingsAnalysis.findings(in: replay)
    XCTAssertEqual(
      findings.filter { $0.severity > .info }.map(\.message), [],
      "the app went on after the dump: nothing is leaked or lost")
  }

  func testMemoryStaysWithinItsBoundAndTheDumpEndsWithTheLatestWork() throws {
    let (clock, flight, factory) = virtualFlight(
      FlightRecorderWindow(keeping: .seconds(3_600), maxBytes: 64 << 10))
    let queue = factory.makeSerial(label: "busy")
    for step in 0..<20_000 {
      queue.async {}
      if step % 100 == 99 {
        clock.advance(by: .milliseconds(10))
        flight.recorder.flush()
      }
    }
    let path = temporaryPath("bounded")
    try flight.dump(to: path)
    let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    XCTAssertLessThan(size, (64 + 8 + 4) << 10, "the bound, one segment and a header")
    XCTAssertGreaterThan(size, 56 << 10, "and close to it")
    let trace = try readClean(path)
    XCTAssertEqual(
      trace.events.filter { $0.kind == .begin }.last?.time, 1_990_000_000,
      "the last batch, queued at 1.99 s")
    XCTAssertEqual(trace.closing?.written, Int64(trace.events.count))
  }

  func testAClosedFlightRecorderCannotDump() {
    let flight = FlightRecorder()
    flight.close()
    XCTAssertThrowsError(try flight.dump(to: temporaryPath("closed")))
  }

  func testEveryDumpIsWholeAndLaterOnesHoldMore() throws {
    let (clock, flight, factory) = virtualFlight()
    let queue = factory.makeSerial(label: "q")
    queue.async {}
    clock.advance()
    let first = temporaryPath("first")
    try flight.dump(to: first)
    queue.async {}
    clock.advance()
    let second = temporaryPath("second")
    try flight.dump(to: second)
    XCTAssertEqual(try readClean(first).events.count, 3, "schedule, begin, end")
    XCTAssertEqual(try readClean(second).events.count, 6)
  }

  func testNamedWorkLiveAtTheWindowsStartKeepsItsName() throws {
    let (clock, flight, factory) = virtualFlight(
      FlightRecorderWindow(keeping: .seconds(5), maxBytes: 1 << 20))
    let queue = factory.makeSerial(label: "q")
    let far = queue.after(.seconds(3_600), name: "nightly sync", ["job": "7"]) {}
    defer { far.cancel() }
    let timer = queue.every(.seconds(1), name: "poll") {}
    defer { timer.cancel() }
    for _ in 0..<60 {
      clock.advance(by: .seconds(1))
      flight.recorder.flush()
    }
    let path = temporaryPath("flight-named")
    try flight.dump(to: path)
    var replay = ReplayEngine(trace: try readClean(path))
    XCTAssertGreaterThan(try XCTUnwrap(replay.header.sliceWindow).lowerBound, 0)
    replay.seek(to: replay.eventCount)
    let names = replay.pending(first: 10).compactMap { replay.work(of: $0)?.summary }.sorted()
    XCTAssertEqual(
      names, ["nightly sync job=7", "poll"], "scheduled before the window, named in it")
  }
}

/// A flight recorder's dump keeps the task of a sleep that began before its window.
final class FlightRecorderTaskTests: XCTestCase {
  func testASleepPendingAtTheWindowsStartKeepsItsTask() throws {
    let virtual = VirtualAsyncClock()
    let flight = FlightRecorder(
      keeping: FlightRecorderWindow(keeping: .seconds(5), maxBytes: 1 << 20),
      clock: .virtual { virtual.now.offset })
    defer { flight.close() }
    let clock = RecordingClock(wrapping: virtual, recorder: flight.recorder, label: "sleeps")
    // A long sleep starts at 0; a ticking task sleeps a second at a time for a minute.
    virtual.task { try await clock.sleep(for: .seconds(3_600)) }
    virtual.task {
      for _ in 0..<60 { try await clock.sleep(for: .seconds(1)) }
    }
    for _ in 0..<60 {
      virtual.advance(by: .seconds(1))
      flight.recorder.flush()
    }
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("flight-task-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try flight.dump(to: path)
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics.map(\.description), [])
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertGreaterThan(try XCTUnwrap(trace.header.sliceWindow).lowerBound, 0)

    var replay = ReplayEngine(trace: trace)
    replay.seek(to: replay.eventCount)
    let long = try XCTUnwrap(
      replay.pending(first: 10).first { replay.action($0).delay == 3_600 * 1_000_000_000 },
      "the hour-long sleep, scheduled before the window, is pending at its end")
    XCTAssertNotNil(replay.task(of: long), "its task line came with its schedule")
    XCTAssertEqual(replay.tasks.count, 2, "the long sleeper and the ticker")
    XCTAssertThrowsError(try virtual.checkNoPendingWork(), "the hour-long sleeper is cancelled")
  }
}
