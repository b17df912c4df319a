import Examples
import Scheduling
import Synchronization
import VirtualTime
import XCTest

/// The async virtual clock, at exact virtual instants. Each scenario runs `repeats` times in a
/// row in one test (1000 by default): a run that depended on the thread pool's timing would
/// differ from one run to the next.
final class VirtualAsyncClockTests: XCTestCase {
  private let repeats =
    Int(ProcessInfo.processInfo.environment["CHRONOSCOPE_ASYNC_REPEATS"] ?? "") ?? 1_000

  private func seconds(_ instant: VirtualAsyncClock.Instant) -> Double {
    let (whole, attoseconds) = instant.offset.components
    return Double(whole) + Double(attoseconds) / 1e18
  }

  // MARK: The five scenarios

  /// A timeout race: work that takes 3 s against limits of 2 s and 4 s.
  func testATimeoutRaceEndsAtExactlyTheLimitOrTheWork() throws {
    for _ in 0..<repeats {
      let clock = VirtualAsyncClock()
      let work: @Sendable () async throws -> String = {
        try await clock.sleep(for: .seconds(3))
        return "payload"
      }
      let short = clock.task { try await withTimeout(.seconds(2), clock: clock, operation: work) }
      let long = clock.task { try await withTimeout(.seconds(4), clock: clock, operation: work) }
      clock.advance(by: .seconds(2) - .nanoseconds(1))
      XCTAssertNil(short.result, "a nanosecond before the limit")
      clock.advance(by: .nanoseconds(1))
      XCTAssertThrowsError(try short.result?.get()) { XCTAssertTrue($0 is TimedOut) }
      XCTAssertNil(long.result)
      clock.advance(by: .seconds(1))
      XCTAssertEqual(try long.result?.get(), "payload", "the work won at 3 s")
      XCTAssertEqual(clock.now.offset, .seconds(3))
      try clock.checkNoPendingWork()
    }
  }

  /// A debounce of an AsyncStream: elements at 0, 100, 200 ms, then 600 ms, with 300 ms of quiet.
  func testADebounceLetsThroughOnlyWhatIsFollowedByQuiet() throws {
    for _ in 0..<repeats {
      let clock = VirtualAsyncClock()
      let (input, feed) = AsyncStream.makeStream(of: String.self)
      // The debounce starts its own tasks: started in a clock task, they run on the clock too.
      let received = clock.task { () -> [String] in
        var seen: [String] = []
        for await text in debounced(input, for: .milliseconds(300), clock: clock) {
          seen.append("\(text)@\(clock.now.offset)")
        }
        return seen
      }
      for text in ["s", "sw", "swi"] {
        feed.yield(text)
        clock.advance(by: .milliseconds(100))
      }
      clock.advance(by: .milliseconds(300))  // 500 ms: "swi" went out at 200 + 300 ms
      feed.yield("swift")
      clock.advance(by: .milliseconds(299))
      feed.finish()
      clock.advance(by: .milliseconds(1))
      XCTAssertEqual(
        try received.result?.get(),
        ["swi@0.5 seconds", "swift@0.9 seconds"], "each 300 ms after its last element")
      try clock.checkNoPendingWork()
    }
  }

  /// A retry with exponential backoff: fails twice, then succeeds; waits 1 s, then 2 s.
  func testARetryWaitsTwiceAsLongEachTime() throws {
    for _ in 0..<repeats {
      let clock = VirtualAsyncClock()
      let attempts = Mutex<[Duration]>([])
      let outcome = clock.task {
        try await retrying(attempts: 4, firstDelay: .seconds(1), clock: clock) { attempt in
          attempts.withLock { $0.append(clock.now.offset) }
          if attempt < 3 { throw TimedOut() }
          return attempt
        }
      }
      try clock.run()
      XCTAssertEqual(try outcome.result?.get(), 3)
      XCTAssertEqual(attempts.withLock { $0 }, [.zero, .seconds(1), .seconds(3)])
      try clock.checkNoPendingWork()
    }
  }

  /// An actor ping-pong: two actors hit the ball back after 250 ms and 400 ms, six hits.
  func testAnActorPingPongHitsAtExactInstants() throws {
    for _ in 0..<repeats {
      let clock = VirtualAsyncClock()
      let ping = Player(name: "ping", clock: clock, think: .milliseconds(250))
      let pong = Player(name: "pong", clock: clock, think: .milliseconds(400))
      let rally = clock.task { () -> [String] in
        await ping.face(pong)
        await pong.face(ping)
        return try await ping.receive(remaining: 6).map { "\($0.name)@\($0.at.offset)" }
      }
      try clock.run()
      XCTAssertEqual(
        try rally.result?.get(),
        [
          "ping@0.25 seconds", "pong@0.65 seconds", "ping@0.9 seconds", "pong@1.3 seconds",
          "ping@1.55 seconds", "pong@1.95 seconds",
        ])
      try clock.checkNoPendingWork()
    }
  }

  /// The TimeoutService with async/await: a second start cancels the first attempt at once; the
  /// second times out at exactly its limit; a third, given enough time, returns the work.
  func testTheAsyncTimeoutServiceCancelsTimesOutAndSucceeds() throws {
    for _ in 0..<repeats {
      let clock = VirtualAsyncClock()
      let service = AsyncTimeoutService(clock: clock) {
        try await clock.sleep(for: .seconds(2))
        return "payload"
      }
      let first = clock.task { try await service.start(timeout: .seconds(5)) }
      clock.advance(by: .milliseconds(500))
      let second = clock.task { try await service.start(timeout: .seconds(1)) }
      XCTAssertThrowsError(try first.result?.get(), "replaced at 0.5 s") {
        XCTAssertTrue($0 is CancellationError, "\($0)")
      }
      clock.advance(by: .seconds(1))
      XCTAssertThrowsError(try second.result?.get()) { XCTAssertTrue($0 is TimedOut) }
      let third = clock.task { try await service.start(timeout: .seconds(3)) }
      clock.advance(by: .seconds(2))
      XCTAssertEqual(try third.result?.get(), "payload")
      XCTAssertEqual(clock.now.offset, .milliseconds(3_500))
      try clock.checkNoPendingWork()
    }
  }

  // MARK: Rules

  func testACancelledSleepThrowsAtOnceAndLeavesNothingPending() throws {
    let clock = VirtualAsyncClock()
    let sleeper = clock.task { try await clock.sleep(for: .seconds(3_600)) }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(clock.clock.pendingActions.count, 1)
    sleeper.cancel()
    XCTAssertThrowsError(try sleeper.result?.get()) { XCTAssertTrue($0 is CancellationError) }
    XCTAssertEqual(clock.now.offset, .seconds(1), "at the current instant")
    try clock.checkNoPendingWork()
  }

  func testLeftoverTasksAreReportedWithTheCallersLineAndCancelled() {
    let clock = VirtualAsyncClock()
    let sleeper = clock.task { try await clock.sleep(for: .seconds(10)) }
    let (stream, _) = AsyncStream.makeStream(of: Int.self)
    let waiter = clock.task { for await _ in stream {} }
    XCTAssertThrowsError(try clock.checkNoPendingWork()) { error in
      let text = "\(error)"
      XCTAssertTrue(text.contains("VirtualAsyncClockTests.swift:"), text)
      XCTAssertTrue(text.contains("2 task(s)"), text)
      XCTAssertTrue(text.contains("Task.sleep"), text)
    }
    XCTAssertThrowsError(try sleeper.result?.get()) { XCTAssertTrue($0 is CancellationError) }
    XCTAssertNotNil(waiter.result, "a stream's waiter ends when cancelled")
    XCTAssertNoThrow(try clock.checkNoPendingWork(), "nothing is left to hold the runtime's jobs")
  }

  func testSleepersAndSchedulerWorkShareOneTimelineInDueOrder() throws {
    let clock = VirtualAsyncClock()
    let queue = VirtualSchedulerFactory(clock: clock.clock).makeSerial(label: "queue")
    let order = Mutex<[String]>([])
    queue.after(.seconds(2)) { order.withLock { $0.append("queue@2") } }
    clock.task {
      try await clock.sleep(for: .seconds(1))
      order.withLock { $0.append("task@1") }
      queue.after(.seconds(0)) { order.withLock { $0.append("queue@1 from task") } }
      try await clock.sleep(for: .seconds(1))
      order.withLock { $0.append("task@2") }
    }
    queue.after(.seconds(1)) { order.withLock { $0.append("queue@1") } }
    clock.advance(by: .seconds(2))
    XCTAssertEqual(
      order.withLock { $0 }, ["task@1", "queue@1", "queue@1 from task", "queue@2", "task@2"],
      "(deadline, order of sleeping or scheduling); the task's own work runs when it is due")
    try clock.checkNoPendingWork()
  }

  /// From an async test method the clock routes jobs only during moves, so the test can await
  /// between them (its own jobs would otherwise wait in the clock's queue).
  func testAnAsyncTestMethodCanAwaitBetweenMoves() async throws {
    let clock = VirtualAsyncClock()
    let sleeper = clock.task { () -> Duration in
      try await clock.sleep(for: .seconds(1))
      return clock.now.offset
    }
    await Task.yield()
    clock.advance(by: .seconds(1) - .nanoseconds(1))
    await Task.yield()
    XCTAssertNil(sleeper.result)
    clock.advance(by: .nanoseconds(1))
    XCTAssertEqual(try sleeper.result?.get(), .seconds(1))
    try clock.checkNoPendingWork()
  }

  func testUnstructuredTasksAndMainActorWorkRunBeforeAMoveReturns() throws {
    let clock = VirtualAsyncClock()
    let log = Locked<[String]>([])
    clock.task {
      Task {
        try await clock.sleep(for: .seconds(1))
        log.withLock { $0.append("unstructured@\(clock.now.offset)") }
        await MainActor.run { log.withLock { $0.append("main") } }
      }
    }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(log.value, ["unstructured@1.0 seconds", "main"])
  }
}

/// Long runs stay fast: 300,000 actions with the async clock attached (it settles after each),
/// which used to deepen the settling closure by a level per action until the stack overflowed.
final class VirtualAsyncClockLongRunTests: XCTestCase {
  func testThreeHundredThousandActionsRunWithTheAsyncClockAttached() {
    let clock = VirtualAsyncClock()
    let queue = VirtualSchedulerFactory(clock: clock.clock).makeSerial(label: "many")
    let runs = Locked(0)
    let timer = queue.every(.milliseconds(1)) { runs.withLock { $0 += 1 } }
    clock.advance(by: .seconds(300))
    timer.cancel()
    XCTAssertEqual(runs.value, 300_000)
  }
}
