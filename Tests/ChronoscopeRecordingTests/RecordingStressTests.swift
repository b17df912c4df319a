import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

@testable import ChronoscopeRecording

/// Threads race schedules against cancels on live Dispatch and OperationQueue schedulers through
/// the recorder; the trace must never contradict itself: no begin after a cancel that said "not
/// started", `t` never going back, and the end marker's counts matching the file.
///
/// The default run is small enough for every `swift test`; `scripts/stress.sh` runs it at
/// `CHRONOSCOPE_STRESS_SCALE` (e.g. 50: 8 threads × 100,000 actions) and prints events/s.
final class RecordingStressTests: XCTestCase {
  private static var scale: Int {
    ProcessInfo.processInfo.environment["CHRONOSCOPE_STRESS_SCALE"].flatMap(Int.init) ?? 1
  }

  private func stress(_ factory: some SchedulerFactory, family: String) throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("stress-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let threads = 8
    let perThread = 2_000 * Self.scale
    // Buffers large enough that a healthy writer drops nothing; drops are counted if it does.
    let recorder = try TraceRecorder(path: path, bufferCapacity: 1 << 16)
    let recording = RecordingSchedulerFactory(wrapping: factory, recorder: recorder)
    let queues = (0..<4).map { recording.makeSerial(label: "\(family).\($0)") }
    let concurrent = recording.makeConcurrent(label: "\(family).concurrent")
    let ran = Locked(0)
    let started = ContinuousClock.now
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      var random = SystemRandomNumberGenerator()
      var kept: [SchedulerTask] = []
      for index in 0..<perThread {
        let queue = index % 5 == 4 ? concurrent : queues[(thread + index) % queues.count]
        let task: SchedulerTask
        switch index % 3 {
        case 0: task = queue.async { ran.withLock { $0 += 1 } }
        case 1: task = queue.after(.microseconds(Int.random(in: 0...200, using: &random))) {}
        default: task = queue.every(.microseconds(300)) {}
        }
        // Cancel most of them after a short spin, racing their start on another thread.
        if index % 4 != 0 || index % 3 == 2 {
          let spin = ContinuousClock.now + .nanoseconds(Int.random(in: 0...40_000, using: &random))
          while ContinuousClock.now < spin {}
          task.cancel()
        } else {
          kept.append(task)
        }
      }
      _ = kept
    }
    // Let what was not cancelled finish: each serial queue, then the concurrent one, drains.
    for queue in queues { queue.sync {} }
    concurrent.sync {}
    for queue in queues { queue.sync {} }
    let elapsed = ContinuousClock.now - started
    recorder.close()
    let (written, dropped) = recorder.counts

    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics.map(\.description), [], family)
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertEqual(trace.closing?.written, Int64(trace.events.count), "counts match the file")
    XCTAssertEqual(trace.closing?.written, written)
    XCTAssertEqual(trace.closing?.dropped, dropped)
    XCTAssertEqual(trace.droppedEvents, dropped)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(
      "stress \(family): \(threads) threads × \(perThread) actions, \(written) events in "
        + "\(String(format: "%.2f", seconds)) s (\(Int(Double(written) / seconds)) events/s), "
        + "\(dropped) dropped")
  }

  func testRacingCancelsOnDispatchNeverContradictTheTrace() throws {
    try stress(DispatchSchedulerFactory(), family: "dispatch")
  }

  func testRacingCancelsOnOperationQueuesNeverContradictTheTrace() throws {
    try stress(OperationQueueSchedulerFactory(), family: "operation-queue")
  }

  /// Work still queued on Dispatch's threads when the last user of its recorder lets go runs
  /// and records as usual, on the recorder it holds; the recorder goes with the last of it.
  func testWorkPendingOnDispatchHoldsItsRecorderUntilTheLastOfItHasRun() throws {
    let actions = 2_000 * Self.scale
    weak var weakCore: RecorderCore?
    let ran = Locked(0)
    do {
      let recorder = try TraceRecorder(path: temporaryTracePath("pending"))
      weakCore = recorder.core
      let recording = RecordingSchedulerFactory(
        wrapping: DispatchSchedulerFactory(), recorder: recorder)
      let queues = (0..<4).map { recording.makeSerial(label: "pending.\($0)") }
      for index in 0..<actions {
        queues[index % queues.count].after(.milliseconds(1 + index % 20)) {
          ran.withLock { $0 += 1 }
        }
      }
    }
    XCTAssertEqual(waitUntil { ran.value == actions }, .satisfied, "every action ran")
    XCTAssertEqual(
      waitUntil { weakCore == nil }, .satisfied, "the recorder went after the last of its work")
  }
}
