import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
import XCTest

/// A repeating action whose first run comes after another delay than its interval, and work at
/// an absolute instant, as a trace says them.
final class FirstDelayRecordingTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  func testATimersFirstDueAndIntervalAreBothInItsScheduleLine() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("first-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let clock = VirtualClock()
    let recorder = try TraceRecorder(
      reproduciblePath: path, clock: .virtual { clock.now }, metadata: [:])
    let factory = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
    let queue = factory.makeSerial(label: "poll")
    let timer = queue.every(.milliseconds(10), firstAfter: .milliseconds(3)) {}
    queue.at(queue.now + .milliseconds(7)) {}
    clock.advance(by: .milliseconds(25))
    timer.cancel()
    recorder.close()

    let trace = try XCTUnwrap(TraceReader.read(path: path).trace)
    let schedules = trace.events.filter { $0.kind == .schedule }
    XCTAssertEqual(schedules.map(\.mode), [.repeating, .after])
    XCTAssertEqual(schedules.map(\.delay), [10 * Self.ms, 7 * Self.ms])
    XCTAssertEqual(schedules.map(\.due), [3 * Self.ms, 7 * Self.ms])
    let begins = trace.events.filter { $0.kind == .begin && $0.action == schedules[0].action }
    XCTAssertEqual(begins.map(\.time), [3 * Self.ms, 13 * Self.ms, 23 * Self.ms])
  }

  func testDelaysBeyondTheFormatsRangeAreWrittenAsItsLongest() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("long-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let clock = VirtualClock()
    let recorder = try TraceRecorder(
      reproduciblePath: path, clock: .virtual { clock.now }, metadata: [:])
    let factory = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
    let task = factory.makeSerial(label: "far").after(.seconds(Int64.max)) {}
    task.cancel()
    recorder.close()
    let reading = TraceReader.read(path: path)
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics)")
    let schedule = try XCTUnwrap(reading.trace?.events.first { $0.kind == .schedule })
    XCTAssertEqual(schedule.delay, TraceLimits.maximumTime)
    XCTAssertEqual(schedule.due, TraceLimits.maximumTime)
  }
}

/// `recordingIfRequested` without the variable: the factory itself, not a wrapper.
final class RecordingIfRequestedTests: XCTestCase {
  func testWithoutTheVariableTheFactoryIsReturnedUntouched() {
    let factory = RecordingSchedulerFactory.recordingIfRequested(
      wrapping: .immediate, environment: ["PATH": "/bin"])
    XCTAssertTrue(factory is ImmediateSchedulerFactory, "\(type(of: factory))")
    XCTAssertTrue(
      RecordingSchedulerFactory.recordingIfRequested(
        wrapping: .immediate, environment: ["CHRONOSCOPE_TRACE": ""]) is ImmediateSchedulerFactory)
  }
}
