@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Synchronization
import XCTest

/// The async virtual clock, at exact virtual instants. Each scenario runs `repeats` times in a
/// row in one test (1000 by default): a run that depended on the thread pool's timing would
/// differ from one run to the next.
final class VirtualAsyncClockTests: XCTestCase {
  // MARK: The five scenarios (AsyncScenarios.swift), from a synchronous XCTest method

  func testATimeoutRaceEndsAtExactlyTheLimitOrTheWork() {
    XCTAssertEqual(AsyncScenario.timeoutRace.runRepeatedly(), [])
  }

  func testADebounceLetsThroughOnlyWhatIsFollowedByQuiet() {
    XCTAssertEqual(AsyncScenario.debounce.runRepeatedly(), [])
  }

  func testARetryWaitsTwiceAsLongEachTime() {
    XCTAssertEqual(AsyncScenario.retry.runRepeatedly(), [])
  }

  func testAnActorPingPongHitsAtExactInstants() {
    XCTAssertEqual(AsyncScenario.pingPong.runRepeatedly(), [])
  }

  func testTheAsyncTimeoutServiceCancelsTimesOutAndSucceeds() {
    XCTAssertEqual(AsyncScenario.timeoutService.runRepeatedly(), [])
  }

  /// Two players facing each other do not keep each other, nor their clock, alive once the
  /// rally is over: a clock kept alive routes the runtime's jobs until its idle limit, and a
  /// thousand rallies held a thousand clocks for ten seconds (RuntimeHookTests waited for them).
  func testARallyLetsGoOfItsPlayersAndItsClockOnceItIsOver() throws {
    weak var clockAfterwards: VirtualAsyncClock?
    weak var playerAfterwards: Player<VirtualAsyncClock>?
    do {
      let clock = VirtualAsyncClock()
      let ping = Player(name: "ping", clock: clock, think: .milliseconds(250))
      let pong = Player(name: "pong", clock: clock, think: .milliseconds(400))
      let rally = clock.task { () -> Int in
        await ping.face(pong)
        await pong.face(ping)
        return try await ping.receive(remaining: 6).count
      }
      try clock.run()
      XCTAssertEqual(try rally.result?.get(), 6)
      clockAfterwards = clock
      playerAfterwards = ping
    }
    XCTAssertNil(playerAfterwards, "a player outlived its rally")
    XCTAssertNil(clockAfterwards, "the clock outlived its rally")
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

  /// From an async test method the test's own jobs run where the runtime runs them, so it can
  /// await between moves; the clock's task waits for the moves.
  func testAnAsyncTestMethodCanAwaitBetweenMoves() async throws {
    let clock = VirtualAsyncClock()
    let sleeper = clock.task { () -> Duration in
      try await clock.sleep(for: .seconds(1))
      return clock.now.offset
    }
    await Task.yield()
    await clock.advance(by: .seconds(1) - .nanoseconds(1))
    await Task.yield()
    XCTAssertNil(sleeper.result)
    await clock.advance(by: .nanoseconds(1))
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

  func testEveryMoveStopsAtRunsStepLimitAndFailsTheTestAtItsLine() async {
    let clock = VirtualAsyncClock()
    let task = VirtualSchedulerFactory(clock: clock.clock).makeSerial(label: "spin")
      .every(.nanoseconds(1)) {}
    let reports = Locked<[String]>([])
    let reporter: @Sendable (String, StaticString, UInt) -> Void = { message, file, line in
      reports.withLock { $0.append("\(file):\(line): \(message)") }
    }
    let line = #line + 2
    TestFailure.$reporter.withValue(TestFailure.Reporter(reporter)) {
      clock.advance(by: .seconds(Int64.max))
    }
    // A lower limit: the async move lets the main actor run after each step, so a million of
    // them take minutes.
    await TestFailure.$reporter.withValue(TestFailure.Reporter(reporter)) {
      await clock.advance(by: .seconds(Int64.max), maxSteps: 1_000)
    }
    let file = "ChronoscopeVirtualTimeTests/VirtualAsyncClockTests.swift"
    let stopped = "steps with work still pending:"
    XCTAssertEqual(
      reports.value.map { $0.components(separatedBy: "\n").first ?? "" },
      [
        "\(file):\(line): virtual clock stopped after 1000000 \(stopped)",
        "\(file):\(line + 5): virtual clock stopped after 1000 \(stopped)",
      ])
    XCTAssertEqual(clock.now.offset, .nanoseconds(1_001_000), "where the last action ran")
    task.cancel()
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
