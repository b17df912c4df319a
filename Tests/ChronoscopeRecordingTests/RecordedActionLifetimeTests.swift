import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
import XCTest

@testable import ChronoscopeRecording

/// What a recorded action keeps alive, and for how long: an action that ran inside the call
/// that scheduled it is used again for the thread's next action, so it must come back as new
/// and hold nothing; one that outlives that call holds the recorder's core until it is gone.
final class RecordedActionLifetimeTests: XCTestCase {
  /// A recorder with no writer thread, so that nothing but the recording holds its core.
  private func makeRecorder(path: String, clock: TraceClock = .host) throws -> TraceRecorder {
    try TraceRecorder(
      path: path, clock: clock, metadata: [:], bufferCapacity: 1 << 10, onError: { _ in },
      backgroundWriter: false)
  }

  func testEachInlineActionIsRecordedAsNewWhateverRanBeforeIt() throws {
    let path = temporaryTracePath()
    let recorder = try makeRecorder(path: path)
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
    queue.every(.seconds(1)) {}
    queue.async {}
    queue.async { queue.async {} }
    let value = queue.sync { 42 }
    queue.after(.seconds(1)) {}
    recorder.close()

    XCTAssertEqual(value, 42)
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics, [])
    let events = try XCTUnwrap(reading.trace).events
    let schedules = events.filter { $0.kind == .schedule }
    XCTAssertEqual(schedules.count, 6)
    XCTAssertEqual(Set(schedules.map(\.action)).count, 6, "every action has an id of its own")
    XCTAssertEqual(
      schedules.map(\.parent), [nil, nil, nil, schedules[2].action, nil, nil],
      "the nested action's parent is the one running it")
    let begins = events.filter { $0.kind == .begin }
    XCTAssertEqual(begins.map(\.action), schedules.map(\.action), "each began as scheduled")
    XCTAssertEqual(
      begins.map(\.run), Array(repeating: 1, count: 6), "each is its action's first run")
    XCTAssertEqual(events.filter { $0.kind == .end }.count, 6)
  }

  func testWorkRepeatedInlineIsLetGoOnceItRan() throws {
    let recorder = try makeRecorder(path: temporaryTracePath())
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
    weak var weakCaptured: Captured?
    let task: SchedulerTask
    do {
      let captured = Captured()
      weakCaptured = captured
      task = queue.every(.seconds(1)) { captured.touch() }
    }
    XCTAssertNil(weakCaptured, "the handle is kept; the work, which ran, is not")
    withExtendedLifetime(task) {}
    recorder.close()
  }

  func testNothingRecordedInlineKeepsTheRecorder() throws {
    weak var weakCore: RecorderCore?
    do {
      let recorder = try makeRecorder(path: temporaryTracePath())
      weakCore = recorder.core
      let queue = RecordingScheduler(
        wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
      queue.every(.seconds(1)) {}
      queue.async { queue.async {} }
      queue.sync {}
      recorder.close()
    }
    XCTAssertNil(weakCore, "the recorder goes with its last user")
  }

  func testPendingWorkHoldsTheRecorderUntilItIsGone() throws {
    let clock = VirtualClock()
    weak var weakCore: RecorderCore?
    let ran = Locked(0)
    var task: SchedulerTask?
    do {
      let recorder = try makeRecorder(path: temporaryTracePath(), clock: .virtual { clock.now })
      weakCore = recorder.core
      let queue = RecordingScheduler(
        wrapping: VirtualSchedulerFactory(clock: clock).makeSerial(label: "later"),
        recorder: recorder)
      queue.after(.seconds(1)) { ran.withLock { $0 += 1 } }
      task = queue.every(.seconds(1)) { ran.withLock { $0 += 1 } }
    }
    XCTAssertNotNil(weakCore, "the recorder is held while its work is pending")
    clock.advance(by: .seconds(2))
    XCTAssertEqual(ran.value, 3, "both ran after their recorder's last user went")
    XCTAssertNotNil(weakCore, "the repeating work still holds it")
    task?.cancel()
    task = nil
    clock.advance(by: .seconds(1))
    XCTAssertNil(weakCore, "gone with the last of its work")
  }
}

private final class Captured: Sendable {
  func touch() {}
}
