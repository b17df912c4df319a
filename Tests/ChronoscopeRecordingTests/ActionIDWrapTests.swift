import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
import XCTest

/// Action ids are 32 bits in a trace: a long-running flight recorder or rotated recording hands
/// out more than that. Where the file keeps the recorder's ids, they must still never repeat in
/// it: never 0 (which means "no action"), and never an id a live action still holds (a timer
/// scheduled at the start, here id 1). The counter is moved on near 2³² by a package hook.
final class ActionIDWrapTests: XCTestCase {
  /// Schedules a timer (the first id), then, near the wrap, 1,600 one-shot actions past it.
  private func recordAcrossTheWrap(_ recorder: TraceRecorder, clock: VirtualClock) {
    let factory = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
    let poll = factory.makeSerial(label: "poll")
    let worker = factory.makeSerial(label: "worker")
    let timer = poll.every(.milliseconds(10)) {}
    clock.advance(by: .milliseconds(10))
    recorder.flush()
    recorder.skipActionIDs(to: (1 << 32) - 1_024)
    for _ in 0..<8 {
      for _ in 0..<200 { worker.async {} }
      clock.advance(by: .milliseconds(10))
      recorder.flush()
    }
    timer.cancel()
    clock.advance(by: .milliseconds(10))
  }

  private func checkIDs(_ reading: TraceReading, file: StaticString = #filePath, line: UInt = #line)
    throws
  {
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics.prefix(3))", file: file, line: line)
    let trace = try XCTUnwrap(reading.trace, file: file, line: line)
    let scheduled = trace.events.filter { $0.kind == .schedule }.map(\.action)
    XCTAssertGreaterThan(scheduled.count, 1_600, file: file, line: line)
    XCTAssertTrue(
      scheduled.contains { $0 < 1_024 } && scheduled.contains { $0 > UInt32.max - 1_024 },
      "the ids went round", file: file, line: line)
    XCTAssertFalse(scheduled.contains(0), "no action is numbered 0", file: file, line: line)
    XCTAssertEqual(
      Set(scheduled).count, scheduled.count, "every action has an id of its own", file: file,
      line: line)
  }

  func testIDsNeverRepeatInARotatingFileWhenTheCounterGoesRound() throws {
    let path = temporaryTracePath("wrap-rotating")
    let clock = VirtualClock()
    let recorder = try TraceRecorder(
      path: path, clock: .virtual { clock.now }, rotation: TraceRotation(maxBytes: 64 << 20))
    recordAcrossTheWrap(recorder, clock: clock)
    recorder.close()
    try checkIDs(TraceReader.read(path: path))
  }

  func testIDsNeverRepeatInAFlightRecordersDumpWhenTheCounterGoesRound() throws {
    let path = temporaryTracePath("wrap-flight")
    let clock = VirtualClock()
    let flight = FlightRecorder(
      keeping: FlightRecorderWindow(keeping: .seconds(3_600), maxBytes: 64 << 20),
      clock: .virtual { clock.now })
    recordAcrossTheWrap(flight.recorder, clock: clock)
    try flight.dump(to: path)
    flight.close()
    try checkIDs(TraceReader.read(path: path))
  }
}
