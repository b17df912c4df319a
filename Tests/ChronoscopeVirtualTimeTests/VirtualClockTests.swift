import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import XCTest

/// The virtual clock's rules, one test each. Nothing here waits on the wall clock.
final class VirtualClockTests: XCTestCase {
  private var clock = VirtualClock()
  private var factory: VirtualSchedulerFactory { VirtualSchedulerFactory(clock: clock) }

  override func setUp() {
    clock = VirtualClock()
  }

  override func tearDown() {
    XCTAssertNoThrow(try clock.checkNoPendingWork())
  }

  func testTimeStartsAtZeroAndNothingRunsUntilTimeMoves() {
    let ran = Locked(false)
    factory.makeSerial(label: "q").async { ran.withLock { $0 = true } }
    XCTAssertEqual(clock.now, .zero)
    XCTAssertFalse(ran.value)
    clock.advance(by: .zero)
    XCTAssertTrue(ran.value)
  }

  func testEqualDueTimesRunFirstInFirstOutAcrossSchedulers() {
    let order = Locked<[String]>([])
    let a = factory.makeSerial(label: "a")
    let b = factory.makeConcurrent(label: "b")
    for index in 0..<5 {
      a.after(.seconds(1)) { order.withLock { $0.append("a\(index)") } }
      b.after(.seconds(1)) { order.withLock { $0.append("b\(index)") } }
    }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(order.value, ["a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4"])
  }

  func testAtAnInstantTwoTimersShareTheOneThatRanLessRecentlyGoesFirst() {
    let queue = factory.makeSerial(label: "timers")
    let runs = Locked<[String]>([])
    let clock = self.clock
    let fast = queue.every(.seconds(1)) { runs.withLock { $0.append("A@\(clock.now)") } }
    let slow = queue.every(.seconds(2)) { runs.withLock { $0.append("B@\(clock.now)") } }
    clock.advance(by: .seconds(4))
    XCTAssertEqual(
      runs.value,
      [
        "A@1.0 seconds", "B@2.0 seconds", "A@2.0 seconds", "A@3.0 seconds", "B@4.0 seconds",
        "A@4.0 seconds",
      ])
    fast.cancel()
    slow.cancel()
  }

  func testAClockCanStartAtAGivenInstantAndAdvanceRunsWhatIsDueNow() throws {
    let clock = VirtualClock(start: .seconds(1_000))
    let queue = VirtualSchedulerFactory(clock: clock).makeSerial(label: "q")
    XCTAssertEqual(clock.now, .seconds(1_000))
    XCTAssertEqual(queue.now, SchedulerInstant(nanoseconds: 1_000_000_000_000))
    let ran = Locked<[Duration]>([])
    queue.async { ran.withLock { $0.append(clock.now) } }
    queue.after(.seconds(1)) { ran.withLock { $0.append(clock.now) } }
    clock.advance()
    XCTAssertEqual(ran.value, [.seconds(1_000)], "only what is due now; time stays")
    XCTAssertEqual(clock.now, .seconds(1_000))
    clock.advance(by: .seconds(1))
    XCTAssertEqual(ran.value, [.seconds(1_000), .seconds(1_001)])
    XCTAssertEqual(VirtualClock(start: .seconds(-5)).now, .zero, "time is never negative")
    XCTAssertNoThrow(try clock.checkNoPendingWork())
  }

  func testWorkAsFarAwayAsDurationAllowsStaysInTheFuture() {
    for clock in [
      VirtualClock(start: .seconds(5)),
      VirtualClock(jitter: Jitter(seed: 1, maximum: .milliseconds(5))),
    ] {
      let queue = VirtualSchedulerFactory(clock: clock).makeSerial(label: "far")
      let ran = Locked(0)
      let tasks = [
        queue.after(.seconds(Int64.max)) { ran.withLock { $0 += 1 } },
        queue.at(queue.now + .seconds(Int64.max)) { ran.withLock { $0 += 1 } },
        queue.every(.seconds(Int64.max), firstAfter: .seconds(1)) { ran.withLock { $0 += 1 } },
      ]
      clock.advance(by: .seconds(3_600))
      XCTAssertEqual(ran.value, 1, "only the timer's first run, never the far work")
      clock.advance(by: .seconds(Int64.max))
      XCTAssertEqual(
        ran.value, 4, "each runs once at the end of time, where the timer stops; nothing loops")
      for task in tasks { task.cancel() }
    }
  }

  func testNowEqualsTheDueTimeWhileAnActionRuns() {
    let seen = Locked<[Duration]>([])
    let queue = factory.makeSerial(label: "q")
    for delay in [Duration.milliseconds(700), .milliseconds(20), .seconds(3)] {
      queue.after(delay) { [clock] in seen.withLock { $0.append(clock.now) } }
    }
    clock.advance(by: .seconds(10))
    XCTAssertEqual(seen.value, [.milliseconds(20), .milliseconds(700), .seconds(3)])
    XCTAssertEqual(clock.now, .seconds(10))
  }

  func testTimeNeverGoesBackwards() {
    clock.advance(to: .seconds(5))
    clock.advance(to: .seconds(2))
    XCTAssertEqual(clock.now, .seconds(5))
    clock.advance(by: .seconds(-1))
    XCTAssertEqual(clock.now, .seconds(5))
  }

  func testSchedulingInThePastRunsAtNow() {
    clock.advance(to: .seconds(5))
    let ranAt = Locked<Duration?>(nil)
    factory.makeSerial(label: "q").after(.seconds(-3)) { [clock] in
      ranAt.withLock { $0 = clock.now }
    }
    clock.advance(by: .zero)
    XCTAssertEqual(ranAt.value, .seconds(5))
  }

  func testWorkScheduledByWorkWithinTheSpanRunsInTheSameAdvance() {
    let queue = factory.makeSerial(label: "q")
    let ranAt = Locked<[Duration]>([])
    queue.after(.seconds(1)) { [clock] in
      ranAt.withLock { $0.append(clock.now) }
      queue.after(.seconds(2)) { ranAt.withLock { $0.append(clock.now) } }
    }
    clock.advance(by: .seconds(3))
    XCTAssertEqual(ranAt.value, [.seconds(1), .seconds(3)])
  }

  func testAnInstantsBatchIsTakenBeforeAnyOfItRuns() {
    let queue = factory.makeSerial(label: "q")
    let order = Locked<[String]>([])
    queue.after(.seconds(1)) {
      order.withLock { $0.append("first") }
      queue.async { order.withLock { $0.append("scheduled-now-by-first") } }
    }
    queue.after(.seconds(1)) { order.withLock { $0.append("second") } }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(order.value, ["first", "second", "scheduled-now-by-first"])
  }

  func testCancellingLaterWorkInTheSameBatchStopsIt() {
    let queue = factory.makeSerial(label: "q")
    let order = Locked<[String]>([])
    let victim = Locked<SchedulerTask?>(nil)
    queue.after(.seconds(1)) {
      order.withLock { $0.append("first") }
      victim.value?.cancel()
    }
    let task = queue.after(.seconds(1)) { order.withLock { $0.append("victim") } }
    victim.withLock { $0 = task }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(order.value, ["first"])
  }

  /// A handle outlives its work: the clock gives the work's place to later work, which a
  /// stale handle must not cancel, however many times the place has been given since.
  func testCancellingAHandleWhoseWorkRanLeavesLaterWorkAlone() {
    let queue = factory.makeSerial(label: "q")
    let ran = Locked<[Int]>([])
    var stale: [SchedulerTask] = []
    for round in 0..<3 {
      stale.append(queue.async { ran.withLock { $0.append(round) } })
      clock.advance()
    }
    let later = (10..<13).map { value in
      queue.after(.seconds(1)) { ran.withLock { $0.append(value) } }
    }
    for task in stale { task.cancel() }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(ran.value, [0, 1, 2, 10, 11, 12])
    XCTAssertFalse(later.contains { $0.isCancelled })
  }

  /// Cancelling a repeating action from its own run stops it, as does cancelling it while it
  /// waits; the places both leave are given to new work, which runs.
  func testRepeatingWorkCancelledFromItsOwnRunOrWhileWaitingStops() {
    let queue = factory.makeSerial(label: "q")
    let ticks = Locked<[String]>([])
    let own = Locked<SchedulerTask?>(nil)
    let task = queue.every(.seconds(1)) {
      ticks.withLock { $0.append("self") }
      own.value?.cancel()
    }
    own.withLock { $0 = task }
    let waiting = queue.every(.seconds(1)) { ticks.withLock { $0.append("waiting") } }
    clock.advance(by: .milliseconds(500))
    waiting.cancel()
    clock.advance(by: .seconds(5))
    queue.after(.seconds(1)) { ticks.withLock { $0.append("new") } }
    queue.after(.seconds(1)) { ticks.withLock { $0.append("newer") } }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(ticks.value, ["self", "new", "newer"])
  }

  /// What cancelled work captured goes when it is cancelled, not when its time comes; and a
  /// handle its caller drops cancels nothing.
  func testCancelledWorkLetsGoOfWhatItCapturedAtOnce() {
    final class Token: Sendable {}
    weak var weakToken: Token?
    let queue = factory.makeSerial(label: "q")
    let ran = Locked(false)
    let task: SchedulerTask = {
      let token = Token()
      weakToken = token
      return queue.after(.seconds(60)) { withExtendedLifetime(token) {} }
    }()
    _ = queue.after(.seconds(1)) { ran.withLock { $0 = true } }
    XCTAssertNotNil(weakToken)
    task.cancel()
    XCTAssertNil(weakToken)
    clock.advance(by: .seconds(1))
    XCTAssertTrue(ran.value)
  }

  func testRepeatingWorkRunsAtEachIntervalUntilCancelled() {
    let ticks = Locked<[Duration]>([])
    let task = factory.makeSerial(label: "tick").every(.milliseconds(250)) { [clock] in
      ticks.withLock { $0.append(clock.now) }
    }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(
      ticks.value, [.milliseconds(250), .milliseconds(500), .milliseconds(750), .seconds(1)])
    task.cancel()
    clock.advance(by: .seconds(10))
    XCTAssertEqual(ticks.value.count, 4)
  }

  func testRunStopsAtTheStepLimitAndListsThePendingWork() {
    let task = factory.makeSerial(label: "heartbeat").every(.seconds(1)) {}
    XCTAssertThrowsError(try clock.run(maxSteps: 100)) { error in
      guard case .stepLimitExceeded(let steps, let pending) = error as? VirtualTimeError else {
        return XCTFail("unexpected \(error)")
      }
      XCTAssertEqual(steps, 100)
      XCTAssertEqual(pending.map(\.label), ["heartbeat"])
      XCTAssertEqual(pending.first?.isRepeating, true)
      XCTAssertEqual(pending.first?.due, .seconds(101))
      XCTAssertTrue("\(error)".contains("\"heartbeat\" (serial) due 101.0 seconds, repeating"))
    }
    XCTAssertEqual(clock.now, .seconds(100))
    task.cancel()
  }

  func testAdvanceStopsAtRunsStepLimitAndFailsTheTestAtItsLine() {
    let task = factory.makeSerial(label: "spin").every(.nanoseconds(1)) {}
    let reports = Locked<[String]>([])
    let reporter: @Sendable (String, StaticString, UInt) -> Void = { message, file, line in
      reports.withLock { $0.append("\(file):\(line): \(message)") }
    }
    let line = #line + 2
    TestFailure.$reporter.withValue(TestFailure.Reporter(reporter)) {
      clock.advance(by: .seconds(Int64.max))
    }
    XCTAssertEqual(reports.value.count, 1, "\(reports.value)")
    let report = reports.value.first ?? ""
    XCTAssertTrue(
      report.hasPrefix(
        "ChronoscopeVirtualTimeTests/VirtualClockTests.swift:\(line): virtual clock stopped after 1000000 "
          + "steps with work still pending:\n  - \"spin\" (serial) due"), report)
    XCTAssertEqual(clock.now, .nanoseconds(1_000_000), "time stays where the last action ran")
    task.cancel()
  }

  func testAdvanceTakesAStepLimitOfItsOwnAndTravelChecksNothingPastIt() {
    let task = factory.makeSerial(label: "tick").every(.microseconds(1)) {}
    let reports = Locked<[String]>([])
    let reporter: @Sendable (String, StaticString, UInt) -> Void = { message, _, _ in
      reports.withLock { $0.append(message) }
    }
    let checked = Locked(0)
    TestFailure.$reporter.withValue(TestFailure.Reporter(reporter)) {
      clock.advance(to: .microseconds(100), maxSteps: 1_000)
      clock.advance(to: .microseconds(200), maxSteps: 10)
      clock.travel(
        by: .seconds(1), maxSteps: 10, justBefore: { checked.withLock { $0 += 1 } },
        justAfter: { checked.withLock { $0 += 1 } })
    }
    // The 100 µs move fits in 1,000 steps; the next stops after 10, and so does the travel's
    // first move, before its checks.
    XCTAssertEqual(
      reports.value.map { String($0.prefix { $0 != ":" }) },
      Array(repeating: "virtual clock stopped after 10 steps with work still pending", count: 2))
    XCTAssertEqual(checked.value, 0)
    XCTAssertEqual(clock.now, .microseconds(120))
    task.cancel()
  }

  func testRunStopsAtTheHorizon() {
    let queue = factory.makeSerial(label: "late")
    let ran = Locked(0)
    queue.after(.seconds(1)) { ran.withLock { $0 += 1 } }
    let late = queue.after(.seconds(60)) { ran.withLock { $0 += 1 } }
    XCTAssertThrowsError(try clock.run(horizon: .seconds(30))) { error in
      guard case .horizonExceeded(let horizon, let pending) = error as? VirtualTimeError else {
        return XCTFail("unexpected \(error)")
      }
      XCTAssertEqual(horizon, .seconds(30))
      XCTAssertEqual(pending.map(\.due), [.seconds(60)])
    }
    XCTAssertEqual(ran.value, 1)
    late.cancel()
  }

  func testRunUntilIdleRunsEverythingAndReturns() throws {
    let queue = factory.makeSerial(label: "q")
    let ran = Locked(0)
    for index in 1...10 { queue.after(.seconds(index)) { ran.withLock { $0 += 1 } } }
    try clock.run()
    XCTAssertEqual(ran.value, 10)
    XCTAssertEqual(clock.now, .seconds(10))
  }

  func testPendingActionsListsLiveWorkInRunOrder() {
    let serial = factory.makeSerial(label: "serial")
    let concurrent = factory.makeConcurrent(label: "pool")
    let cancelled = serial.after(.seconds(1)) {}
    serial.after(.seconds(3)) {}
    let timer = concurrent.every(.seconds(2)) {}
    cancelled.cancel()
    let pending = clock.pendingActions
    XCTAssertEqual(pending.map(\.label), ["pool", "serial"])
    XCTAssertEqual(pending.map(\.kind), [.concurrent, .serial])
    XCTAssertEqual(pending.map(\.due), [.seconds(2), .seconds(3)])
    XCTAssertEqual(pending.map(\.isRepeating), [true, false])
    XCTAssertTrue(
      pending[1].callSite.description.hasPrefix(
        "ChronoscopeVirtualTimeTests/VirtualClockTests.swift:"))
    timer.cancel()
    clock.advance(by: .seconds(3))
  }

  /// Each pending action names where it was scheduled, however many places schedule work and in
  /// whatever order: places that share a file and line but not a function, lines that share the
  /// clock's cache entries, and non-ASCII names.
  func testEveryPendingActionNamesItsOwnCallSite() {
    let queue = factory.makeSerial(label: "q")
    let functions: [StaticString] = ["first()", "second()", "x"]
    var expected: [String] = []
    for _ in 0..<2 {
      for line in stride(from: 1, through: 97, by: 8) as StrideThrough<UInt> {
        for function in functions {
          let site = CallSite(fileID: "M/F.swift", line: line, function: function)
          _ = queue.scheduleAfter(.seconds(expected.count), from: site) {}
          expected.append("M/F.swift:\(line) in \(function)")
        }
      }
    }
    let odd = CallSite(fileID: "é", line: 7, function: "ß")
    _ = queue.scheduleAfter(.seconds(expected.count), from: odd) {}
    expected.append("é:7 in ß")
    XCTAssertEqual(clock.pendingActions.map(\.callSite.description), expected)
    clock.advance(by: .seconds(expected.count))
  }

  func testTeardownCheckFailsListingLeftovers() {
    let task = factory.makeSerial(label: "forgotten").after(.seconds(9)) {}
    let line = #line + 1
    XCTAssertThrowsError(try clock.checkNoPendingWork()) { error in
      XCTAssertTrue(
        "\(error)".hasPrefix("ChronoscopeVirtualTimeTests/VirtualClockTests.swift:\(line): "),
        "the failure points at the test: \(error)")
      XCTAssertTrue("\(error)".contains("1 action(s) still pending"))
      XCTAssertTrue("\(error)".contains("\"forgotten\""))
    }
    task.cancel()
  }

  func testCurrentSchedulerTellsWhichContextIsRunning() {
    let main = factory.main
    let background = factory.makeSerial(label: "background")
    let seen = Locked<[String]>([])
    background.async { [clock] in
      seen.withLock { $0.append(clock.currentScheduler?.label ?? "none") }
      main.async { seen.withLock { $0.append(clock.currentScheduler?.label ?? "none") } }
    }
    XCTAssertNil(clock.currentScheduler)
    clock.advance(by: .zero)
    XCTAssertEqual(seen.value, ["background", "main"])
    XCTAssertTrue(factory.main === main)
  }

  func testSyncRunsWorkAlreadyDueFirstThenReturnsTheValue() {
    let queue = factory.makeSerial(label: "q")
    let order = Locked<[String]>([])
    queue.async { order.withLock { $0.append("queued") } }
    queue.after(.seconds(1)) { order.withLock { $0.append("later") } }
    let value = queue.sync {
      order.withLock { $0.append("sync") }
      return 7
    }
    XCTAssertEqual(value, 7)
    XCTAssertEqual(order.value, ["queued", "sync"])
    XCTAssertEqual(clock.now, .zero)
    clock.advance(by: .seconds(1))
  }

  func testSerialContextsNeverOverlap() {
    let queue = factory.makeSerial(label: "q")
    let inFlight = Locked(0)
    let maximum = Locked(0)
    for index in 0..<100 {
      queue.after(.milliseconds(index % 7)) {
        let now = inFlight.withLock { count in
          count += 1
          return count
        }
        maximum.withLock { $0 = max($0, now) }
        inFlight.withLock { $0 -= 1 }
      }
    }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(maximum.value, 1)
  }

  func testTravelChecksJustBeforeAndJustAfterTheBoundary() {
    let fired = Locked(false)
    factory.makeSerial(label: "q").after(.seconds(5)) { fired.withLock { $0 = true } }
    var before: Bool?
    var after: Bool?
    clock.travel(
      by: .seconds(5), justBefore: { before = fired.value }, justAfter: { after = fired.value })
    XCTAssertEqual(before, false)
    XCTAssertEqual(after, true)
    XCTAssertEqual(clock.now, .seconds(5))
  }

  func testJitterIsBoundedAndDeterministicForASeed() {
    func fireTimes(seed: UInt64) -> [Duration] {
      let clock = VirtualClock(jitter: Jitter(seed: seed, maximum: .milliseconds(50)))
      let queue = VirtualSchedulerFactory(clock: clock).makeSerial(label: "jittery")
      let times = Locked<[Duration]>([])
      for _ in 0..<20 { queue.after(.seconds(1)) { times.withLock { $0.append(clock.now) } } }
      clock.advance(by: .seconds(2))
      return times.value
    }
    let first = fireTimes(seed: 42)
    XCTAssertEqual(first, fireTimes(seed: 42))
    XCTAssertNotEqual(first, fireTimes(seed: 43))
    XCTAssertTrue(first.allSatisfy { $0 >= .seconds(1) && $0 <= .seconds(1) + .milliseconds(50) })
    XCTAssertGreaterThan(Set(first.map(\.components.attoseconds)).count, 10, "fires are spread out")
  }

  func testJitterNeverReordersAsyncWorkOnASerialContext() {
    let clock = VirtualClock(jitter: Jitter(seed: 7, maximum: .seconds(1)))
    let queue = VirtualSchedulerFactory(clock: clock).makeSerial(label: "fifo")
    let order = Locked<[Int]>([])
    for index in 0..<50 { queue.async { order.withLock { $0.append(index) } } }
    clock.advance(by: .zero)
    XCTAssertEqual(order.value, Array(0..<50))
  }

  func testTheClockCanBeDrivenAndFedFromOtherThreads() {
    let queue = factory.makeConcurrent(label: "shared")
    let ran = Locked(0)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for index in 0..<250 {
        queue.after(.milliseconds(index + thread)) { ran.withLock { $0 += 1 } }
      }
    }
    clock.advance(by: .seconds(1))
    XCTAssertEqual(ran.value, 2000)
  }
}

extension VirtualClockTests {
  func testSpendingTimeInsideAnActionMakesWorkDueMeanwhileRunLateAfterIt() {
    let seen = Locked<[(String, Duration)]>([])
    let main = factory.makeSerial(label: "main")
    let other = factory.makeSerial(label: "other")
    main.async { [clock] in
      clock.spend(.milliseconds(300))
      seen.withLock { $0.append(("long run ends", clock.now)) }
    }
    other.after(.milliseconds(100)) { [clock] in
      seen.withLock { $0.append(("due at 100", clock.now)) }
    }
    clock.advance(by: .milliseconds(50))
    XCTAssertEqual(seen.value.map(\.0), ["long run ends"], "the advance stops where it was asked")
    clock.advance(by: .zero)
    XCTAssertEqual(seen.value.map(\.0), ["long run ends", "due at 100"])
    XCTAssertEqual(
      seen.value.map(\.1), [.milliseconds(300), .milliseconds(300)], "late, not early")
    XCTAssertEqual(clock.now, .milliseconds(300), "time never goes back to the 50 ms asked for")
    clock.spend(.seconds(-1))
    XCTAssertEqual(clock.now, .milliseconds(300), "a negative length spends nothing")
  }
}
