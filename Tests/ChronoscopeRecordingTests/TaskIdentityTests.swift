@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeRecording
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Dispatch
import Foundation
import XCTest

/// Recorded async work names the Swift task it is part of: a `task` line after each schedule,
/// with the runtime's id for the task, so the inspector can show tasks as lanes.
final class TaskIdentityTests: XCTestCase {
  private static func temporaryTrace() -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("tasks-\(UUID().uuidString).trace").path
  }

  /// The task of each action, from the trace's `task` lines.
  private static func tasks(of trace: Trace) -> [UInt32: UInt64] {
    var tasks: [UInt32: UInt64] = [:]
    for event in trace.events where event.kind == .task { tasks[event.action] = event.task }
    return tasks
  }

  func testEachSleepNamesTheTaskThatSlept() throws {
    let path = Self.temporaryTrace()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let virtual = VirtualAsyncClock()
    let recorder = try TraceRecorder(
      reproduciblePath: path, clock: .virtual { virtual.now.offset }, metadata: [:])
    let clock = RecordingClock(wrapping: virtual, recorder: recorder, label: "sleeps")
    // Task A sleeps twice, task B once; A's second sleep is due after B's.
    virtual.task {
      try await clock.sleep(for: .milliseconds(10))
      try await clock.sleep(for: .milliseconds(10))
    }
    virtual.task { try await clock.sleep(for: .milliseconds(15)) }
    virtual.advance(by: .milliseconds(20))
    try virtual.checkNoPendingWork()
    recorder.close()

    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics.map(\.description), [])
    let trace = try XCTUnwrap(reading.trace)
    let schedules = trace.events.filter { $0.kind == .schedule }
    XCTAssertEqual(schedules.map { $0.delay / 1_000_000 }, [10, 15, 10])
    let tasks = Self.tasks(of: trace)
    let (first, other, second) = (schedules[0].action, schedules[1].action, schedules[2].action)
    XCTAssertEqual(tasks.count, 3, "every sleep names its task")
    XCTAssertEqual(tasks[first], tasks[second], "task A's two sleeps")
    XCTAssertNotEqual(tasks[first], tasks[other], "task B is another task")
    // Each `task` line follows its action's schedule, at the same instant.
    for (index, event) in trace.events.enumerated() where event.kind == .task {
      XCTAssertEqual(trace.events[index - 1].kind, .schedule)
      XCTAssertEqual(trace.events[index - 1].action, event.action)
      XCTAssertEqual(trace.events[index - 1].time, event.time)
    }

    var replay = ReplayEngine(trace: trace)
    XCTAssertEqual(replay.tasks.count, 2)
    XCTAssertEqual(replay.tasks.map(\.actionCount).sorted(), [1, 2])
    replay.seek(toTime: 12_000_000)
    let a = try XCTUnwrap(tasks[first].map(TaskID.init))
    let b = try XCTUnwrap(tasks[other].map(TaskID.init))
    XCTAssertEqual(replay.taskState(a).pending, 1, "A's second sleep waits at 12 ms")
    XCTAssertEqual(replay.taskState(b).pending, 1, "B's sleep waits at 12 ms")
    XCTAssertEqual(
      replay.pending(first: 10, of: [b]).map { replay.action($0).id.rawValue }, [other])
  }

  actor Counter {
    nonisolated let executor: RecordingSerialExecutor
    private var count = 0
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(recorder: TraceRecorder) {
      executor = RecordingSerialExecutor(label: "counter", recorder: recorder)
    }

    func add() -> Int {
      count += 1
      return count
    }
  }

  func testActorJobsNameTheTaskTheyRun() throws {
    let path = Self.temporaryTrace()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try TraceRecorder(path: path)
    let counter = Counter(recorder: recorder)
    let done = DispatchSemaphore(value: 0)
    // Two tasks call the actor five times each, interleaving as the pool runs them.
    for _ in 0..<2 {
      Task.detached {
        for _ in 0..<5 { _ = await counter.add() }
        done.signal()
      }
    }
    for _ in 0..<2 { XCTAssertEqual(done.wait(timeout: .now() + 60), .success) }
    counter.executor.waitForEnqueuedJobs()
    recorder.close()

    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics.map(\.description), [])
    let trace = try XCTUnwrap(reading.trace)
    let tasks = Self.tasks(of: trace)
    let jobs = trace.events.filter { $0.kind == .schedule }.map(\.action)
    XCTAssertEqual(jobs.count, 10, "one job per call")
    XCTAssertEqual(Set(jobs.compactMap { tasks[$0] }).count, 2, "two tasks")
    XCTAssertEqual(
      Dictionary(grouping: jobs, by: { tasks[$0] ?? 0 }).values.map(\.count).sorted(), [5, 5],
      "each task's five calls")
    let replay = ReplayEngine(trace: trace)
    XCTAssertEqual(replay.tasks.map(\.actionCount), [5, 5])
    XCTAssertTrue(replay.tasks.allSatisfy { $0.schedulers.count == 1 }, "all on the counter's lane")
  }
}
