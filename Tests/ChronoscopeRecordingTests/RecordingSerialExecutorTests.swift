import ChronoscopeRecording
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTraceFormat
import Dispatch
import Foundation
import XCTest

/// Actors that opt into a `RecordingSerialExecutor`: each job is an action on the actor's lane,
/// and a call from one actor to the other is scheduled with the caller's job as its parent.
/// Live (Dispatch): the test waits only for the rally to end, with a generous deadline.
final class RecordingSerialExecutorTests: XCTestCase {
  actor Player {
    let name: String
    nonisolated let executor: RecordingSerialExecutor
    private var opponent: Player?
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(name: String, recorder: TraceRecorder) {
      self.name = name
      executor = RecordingSerialExecutor(label: name, recorder: recorder)
    }

    func face(_ opponent: Player) { self.opponent = opponent }

    func receive(_ remaining: Int) async -> [String] {
      guard remaining > 0, let opponent else { return [] }
      return [name] + (await opponent.receive(remaining - 1))
    }
  }

  func testActorJobsAreActionsOnTheActorsLanesLinkedCallerToCallee() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("actors-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try TraceRecorder(path: path)
    let ping = Player(name: "ping", recorder: recorder)
    let pong = Player(name: "pong", recorder: recorder)
    let done = DispatchSemaphore(value: 0)
    let rally = Locked<[String]>([])
    Task.detached {
      await ping.face(pong)
      await pong.face(ping)
      let hits = await ping.receive(6)
      rally.withLock { $0 = hits }
      done.signal()
    }
    XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
    // The last job may still be recording its end when the rally's caller resumes.
    ping.executor.waitForEnqueuedJobs()
    pong.executor.waitForEnqueuedJobs()
    recorder.close()
    XCTAssertEqual(rally.value, ["ping", "pong", "ping", "pong", "ping", "pong"])

    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics.map(\.description), [])
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertEqual(Set(trace.schedulers.values.map(\.label)), ["ping", "pong"])
    XCTAssertTrue(
      trace.schedulers.values.allSatisfy { $0.family == "actor" && $0.kind == "serial" })
    let lane = Dictionary(uniqueKeysWithValues: trace.schedulers.values.map { ($0.id, $0.label) })
    let schedules = trace.events.filter { $0.kind == .schedule }
    let laneOf = Dictionary(
      uniqueKeysWithValues: schedules.map { ($0.action, lane[$0.scheduler] ?? "?") })
    // Every call from one actor into the other is a job scheduled from inside the caller's job.
    let crossings = schedules.filter { schedule in
      guard let parent = schedule.parent, parent != 0, let from = laneOf[parent] else {
        return false
      }
      return from != laneOf[schedule.action]
    }
    XCTAssertGreaterThanOrEqual(crossings.count, 5, "ping → pong → ping …")
    let begins = trace.events.filter { $0.kind == .begin }.count
    XCTAssertEqual(begins, schedules.count, "every job ran")
    XCTAssertEqual(trace.events.filter { $0.kind == .end }.count, begins)
  }
}
