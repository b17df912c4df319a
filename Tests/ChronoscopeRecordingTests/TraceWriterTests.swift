import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTraceFormat
import Foundation
import XCTest

@testable import ChronoscopeRecording

/// What the writer promises about the file: dense action ids, time order line to line, and
/// definitions just before their first use. Checked on recordings made on several threads.
final class TraceWriterTests: XCTestCase {
  private var path = ""

  override func setUp() {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("writer-\(UUID().uuidString).trace").path
  }

  override func tearDown() {
    try? FileManager.default.removeItem(atPath: path)
  }

  /// The file's lines after the header, as JSON objects.
  private func lines() throws -> [[String: Any]] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return try text.split(separator: "\n").dropFirst().map { line in
      try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
    }
  }

  private func readBack() throws -> Trace {
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics, [])
    return try XCTUnwrap(reading.trace)
  }

  /// Work on four Dispatch queues: each root action, scheduled from the test's thread, schedules
  /// a child on the next queue and a timer that the child cancels — so ids come from the blocks
  /// of several threads, and parents and cancellers cross threads.
  private func recordWorkOnSeveralThreads() throws {
    let recorder = try TraceRecorder(path: path)
    let factory = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: recorder)
    let queues = (0..<4).map { factory.makeSerial(label: "worker.\($0)") }
    let finished = Locked(0)
    let roots = 24
    for index in 0..<roots {
      let queue = queues[index % queues.count]
      let next = queues[(index + 1) % queues.count]
      queue.async {
        let timer = queue.after(.seconds(60)) {}
        next.async {
          timer.cancel()
          finished.withLock { $0 += 1 }
        }
      }
    }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { finished.value == roots }, .satisfied)
    recorder.close()
  }

  func testActionIDsAreDenseInOrderOfFirstAppearanceAcrossThreads() throws {
    try recordWorkOnSeveralThreads()
    let trace = try readBack()
    XCTAssertGreaterThan(Set(trace.events.map(\.thread)).count, 1, "recorded on several threads")

    var firstAppearance: [UInt32] = []
    for event in trace.events {
      for id in [event.action, event.parent ?? 0] where id != 0 && !firstAppearance.contains(id) {
        firstAppearance.append(id)
      }
    }
    XCTAssertEqual(firstAppearance, Array(1...UInt32(24 * 3)), "1, 2, 3… with no gaps")
  }

  func testParentsAndCancellersStillNameTheActionsRunningOnTheirThread() throws {
    try recordWorkOnSeveralThreads()
    let trace = try readBack()
    // Replay the file: which action runs on which thread at each line.
    var running: [UInt32: [UInt32]] = [:]
    var children: [UInt32: [TraceEvent.ScheduleMode]] = [:]
    var cancellers = 0
    for event in trace.events {
      switch event.kind {
      case .begin: running[event.thread, default: []].append(event.action)
      case .end: XCTAssertEqual(running[event.thread]?.popLast(), event.action)
      case .schedule:
        if let parent = event.parent {
          XCTAssertEqual(running[event.thread]?.last, parent, "the parent runs where it schedules")
          children[parent, default: []].append(event.mode)
        }
      case .cancel:
        let by = try XCTUnwrap(event.parent, "cancelled from inside a child")
        XCTAssertEqual(running[event.thread]?.last, by, "the canceller runs where it cancels")
        let cancelled = try XCTUnwrap(
          trace.events.first { $0.kind == .schedule && $0.action == event.action })
        XCTAssertEqual(cancelled.mode, .after, "the child cancels its sibling timer")
        XCTAssertEqual(
          trace.events.first { $0.kind == .schedule && $0.action == by }?.parent,
          cancelled.parent, "canceller and timer share a parent")
        cancellers += 1
      case .hop, .mark, .task, .work, .wait: break
      }
    }
    XCTAssertEqual(cancellers, 24)
    XCTAssertEqual(children.count, 24, "every root scheduled children")
    XCTAssertTrue(children.values.allSatisfy { $0 == [.after, .async] }, "\(children)")
  }

  func testTimeNeverDecreasesFromOneLineToTheNext() throws {
    let recorder = try TraceRecorder(path: path)
    let factory = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: recorder)
    let first = factory.makeSerial(label: "first")
    let ran = Locked(0)
    first.async { ran.withLock { $0 += 1 } }
    // Made after the first events were recorded: its definition must not be dated before them.
    let second = factory.makeSerial(label: "second")
    second.async { ran.withLock { $0 += 1 } }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { ran.value == 2 }, .satisfied)
    recorder.flush()
    let third = factory.makeConcurrent(label: "third")
    third.async { ran.withLock { $0 += 1 } }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { ran.value == 3 }, .satisfied)
    _ = factory.makeSerial(label: "never used")
    recorder.close()

    let times = try lines().map { try XCTUnwrap($0["t"] as? Int64, "\($0)") }
    XCTAssertGreaterThan(times.count, 10)
    for (index, (before, after)) in zip(times, times.dropFirst()).enumerated() {
      XCTAssertLessThanOrEqual(before, after, "line \(index + 3) goes back in time")
    }
    XCTAssertEqual(
      try readBack().schedulers.values.map(\.label).sorted(),
      ["first", "main", "never used", "second", "third"])
  }

  func testDefinitionsComeJustBeforeTheirFirstUseWithItsTime() throws {
    try recordWorkOnSeveralThreads()
    let lines = try lines()
    var defined: Set<String> = []
    for (index, line) in lines.enumerated() {
      let kind = try XCTUnwrap(line["e"] as? String)
      let time = try XCTUnwrap(line["t"] as? Int64)
      switch kind {
      case "thread", "scheduler", "site":
        let key = kind == "thread" ? "th" : kind == "scheduler" ? "q" : "site"
        let id = try XCTUnwrap(line[key] as? Int)
        XCTAssertTrue(defined.insert("\(key) \(id)").inserted, "\(kind) \(id) is defined once")
        // The next event line is the first to use it, and carries the same time.
        let user = try XCTUnwrap(
          lines[(index + 1)...].first {
            !["thread", "scheduler", "site"].contains($0["e"] as? String ?? "")
          })
        if user["e"] as? String != "close" {
          // A hop names the thread it runs on `to`.
          let used = user[key] as? Int ?? (key == "th" ? user["to"] as? Int : nil)
          XCTAssertEqual(used, id, "\(kind) \(id) before \(user)")
        }
        XCTAssertEqual(user["t"] as? Int64, time)
      default:
        for (field, key) in [("th", "th"), ("to", "th"), ("q", "q"), ("site", "site")] {
          if let id = line[field] as? Int {
            XCTAssertTrue(defined.contains("\(key) \(id)"), "\(field) \(id) used before defined")
          }
        }
      }
    }
  }
}
