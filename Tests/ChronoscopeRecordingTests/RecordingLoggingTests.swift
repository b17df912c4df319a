import ChronoscopeRecording
import ChronoscopeScheduling
import Foundation
import InMemoryLogging
import Logging
import XCTest

/// What the recorder cannot throw — a recording asked for from the environment that cannot
/// start, a flight recorder's dump that fails — goes to the logger the app gives (its logging by
/// default), once, and the app runs on.
final class RecordingLoggingTests: XCTestCase {
  func testARecordingThatCannotStartIsSaidOnceThroughTheGivenLogger() {
    let log = InMemoryLogHandler()
    let factory = RecordingSchedulerFactory.recordingIfRequested(
      wrapping: ImmediateSchedulerFactory(),
      environment: ["CHRONOSCOPE_TRACE": "/tmp/x.trace", "CHRONOSCOPE_TRACE_KEEP": "many"],
      logger: Logger(label: "chronoscope") { _ in log })
    XCTAssertTrue(factory is ImmediateSchedulerFactory, "the app runs unrecorded")
    XCTAssertEqual(log.entries.map(\.level), [.error])
    XCTAssertTrue(
      log.entries.first?.message.description.hasPrefix("CHRONOSCOPE_TRACE: not recording: ")
        == true, "\(log.entries)")
  }

  func testAFileThatCannotBeOpenedIsSaidThroughTheGivenLogger() {
    let log = InMemoryLogHandler()
    let missing = "/nonexistent-\(UUID().uuidString)/app.trace"
    _ = RecordingSchedulerFactory.recordingIfRequested(
      wrapping: ImmediateSchedulerFactory(), environment: ["CHRONOSCOPE_TRACE": missing],
      logger: Logger(label: "chronoscope") { _ in log })
    XCTAssertEqual(log.entries.count, 1, "\(log.entries)")
    XCTAssertTrue(
      log.entries.first?.message.description.contains(missing) == true, "\(log.entries)")
  }

  func testAFlightRecordersFailedDumpOnASignalIsSaidThroughItsLogger() {
    let log = InMemoryLogHandler()
    let flight = FlightRecorder(logger: Logger(label: "chronoscope") { _ in log })
    defer { flight.close() }
    let missing = "/nonexistent-\(UUID().uuidString)/dump.trace"
    flight.dump(on: SIGUSR2, to: missing)
    // Dispatch arms the signal source asynchronously, and the signal is ignored until then: send
    // it until a dump has been tried.
    let deadline = Date(timeIntervalSinceNow: 10)
    while log.entries.isEmpty, Date() < deadline {
      kill(getpid(), SIGUSR2)
      usleep(20_000)
    }
    XCTAssertEqual(log.entries.first?.level, .error)
    XCTAssertTrue(
      log.entries.first?.message.description.hasPrefix("flight recorder: ") == true,
      "\(log.entries)")
  }
}
