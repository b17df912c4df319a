import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import XCTest

/// `Exploration`: other orders of the work due at one instant,
/// chosen by seed, each one production could produce.
final class ExplorationTests: XCTestCase {
  /// Two requests whose responses arrive at the same instant on a concurrent network queue; each
  /// shows its result on main. The bug: nothing stops the older response from overwriting the
  /// newer one. What the screen shows at the end, under `clock`.
  private func shownAfterTwoResponses(on clock: VirtualClock) -> Int {
    let factory = VirtualSchedulerFactory(clock: clock)
    let network = factory.makeConcurrent(label: "network")
    let main = factory.main
    let shown = Locked(0)
    for request in 1...2 {
      network.after(.milliseconds(100)) {
        main.async { shown.withLock { $0 = request } }
      }
    }
    clock.advance(by: .seconds(1))
    return shown.withLock { $0 }
  }

  func testFirstInFirstOutNeverShowsTheStaleResponse() {
    XCTAssertEqual(shownAfterTwoResponses(on: VirtualClock()), 2)
  }

  func testExplorationFindsTheOrderWhereTheStaleResponseWinsAndItsSeedReproducesIt() throws {
    let failing = try XCTUnwrap(
      (0..<64).first { seed in
        shownAfterTwoResponses(on: VirtualClock(exploring: Exploration(seed: UInt64(seed)))) != 2
      }, "some seed among 64 runs the second response first")
    for _ in 0..<100 {
      let clock = VirtualClock(exploring: Exploration(seed: UInt64(failing)))
      XCTAssertEqual(shownAfterTwoResponses(on: clock), 1)
    }
  }

  func testSerialWorkStaysFirstInFirstOutUnderExploration() {
    for seed in 0..<50 {
      let clock = VirtualClock(exploring: Exploration(seed: UInt64(seed)))
      let factory = VirtualSchedulerFactory(clock: clock)
      let serial = factory.makeSerial(label: "serial")
      let other = factory.makeSerial(label: "other")
      let order = Locked<[Int]>([])
      for index in 0..<5 {
        serial.async { order.withLock { $0.append(index) } }
        other.async {}
      }
      clock.advance()
      XCTAssertEqual(order.withLock { $0 }, [0, 1, 2, 3, 4], "seed \(seed)")
    }
  }

  private struct StaleResponseShown: Error {}

  func testExploreThrowsTheFirstFailingRunWithTheSeedThatRerunsIt() throws {
    do {
      try explore(iterations: 64, seed: 1) { clock in
        if shownAfterTwoResponses(on: clock) != 2 { throw StaleResponseShown() }
      }
      XCTFail("64 runs explore the other order of the two responses")
    } catch {
      XCTAssertTrue(error.error is StaleResponseShown)
      XCTAssertTrue(
        error.description.contains("rerun it alone: explore(iterations: 1, seed: \(error.seed))"),
        error.description)
      XCTAssertEqual(
        shownAfterTwoResponses(on: VirtualClock(exploring: Exploration(seed: error.seed))), 1)
    }
  }

  func testABodyThatIsNotDeterministicIsSaidToBe() throws {
    // How many requests it makes depends on state kept from run to run (as a wall clock or a
    // random source would), not on the seed: two runs with one seed differ.
    let runs = Locked(0)
    do {
      try explore(iterations: 200) { clock in
        let factory = VirtualSchedulerFactory(clock: clock)
        let network = factory.makeConcurrent(label: "network")
        let order = Locked<[Int]>([])
        let count = runs.withLock { runs in
          runs += 1
          return 2 + runs % 2
        }
        for request in 0..<count {
          network.async { order.withLock { $0.append(request) } }
        }
        clock.advance()
        if order.withLock({ $0.first }) != 0 { throw StaleResponseShown() }
      }
      XCTFail("some order runs another request first")
    } catch {
      XCTAssertNotNil(error.divergedAt, error.description)
      XCTAssertTrue(error.description.contains("not deterministic"), error.description)
    }
  }

  /// A body whose failure a counter kept from run to run decides, not the order: its every
  /// fifth run throws `error(n)`.
  private func failsEveryFifthRun(
    counter: Locked<Int>, _ error: @escaping (Int) -> any Error = { _ in StaleResponseShown() }
  ) -> (VirtualClock) throws -> Void {
    { clock in
      let network = VirtualSchedulerFactory(clock: clock).makeConcurrent(label: "network")
      for _ in 0..<3 { network.async {} }
      clock.advance()
      let run = counter.withLock { count in
        count += 1
        return count
      }
      if run % 5 == 0 { throw error(run) }
    }
  }

  func testABodyWhoseRerunPassesIsSaidNotToBeDeterministicAndOffersNoRerun() {
    let counter = Locked(0)
    do {
      try explore(iterations: 40, failsEveryFifthRun(counter: counter))
      XCTFail("the fifth run fails")
    } catch {
      XCTAssertEqual(error.nondeterminism, .passed, error.description)
      XCTAssertTrue(
        error.description.contains(
          "but the body is not deterministic: a second run with the same seed made the same "
            + "choices and passed"), error.description)
      XCTAssertFalse(error.description.contains("rerun it alone"), error.description)
      XCTAssertFalse(error.description.contains("replaying"), error.description)
      XCTAssertFalse(error.description.contains("shortest form"), error.description)
    }
  }

  func testABodyWhoseRerunFailsAnotherWayIsSaidNotToBeDeterministic() {
    struct Wrong: Error, CustomStringConvertible { let description: String }
    // Every fifth run fails, and every run after a failure fails otherwise.
    let counter = Locked(0)
    let failed = Locked(false)
    let body: (VirtualClock) throws -> Void = { clock in
      let failedBefore = failed.value
      do {
        try self.failsEveryFifthRun(counter: counter) { Wrong(description: "run \($0)") }(clock)
      } catch {
        failed.withLock { $0 = true }
        throw error
      }
      if failedBefore { throw Wrong(description: "after a failure") }
    }
    do {
      try explore(iterations: 40, body)
      XCTFail("the fifth run fails")
    } catch {
      XCTAssertEqual(error.nondeterminism, .failedDifferently("after a failure"), error.description)
      XCTAssertTrue(
        error.description.contains("made the same choices and failed another way: after a failure"),
        error.description)
      XCTAssertFalse(error.description.contains("rerun it alone"), error.description)
    }
  }

  // MARK: Schedules

  // MARK: Schedules

  private func failingRun() throws -> ExplorationFailure {
    do {
      try explore(iterations: 64) { clock in
        if shownAfterTwoResponses(on: clock) != 2 { throw StaleResponseShown() }
      }
    } catch {
      return error
    }
    // Exploration that stops finding this bug is a regression, not a reason to skip.
    XCTFail("no run of 64 found the stale response")
    throw StaleResponseShown()
  }

  func testAFailuresScheduleRerunsItExactly() throws {
    let failure = try failingRun()
    XCTAssertTrue(
      failure.description.contains(".replaying(schedule: \"\(failure.schedule)\")"),
      failure.description)
    for _ in 0..<100 {
      do {
        try explore(iterations: 1, strategy: .replaying(schedule: failure.schedule)) { clock in
          if shownAfterTwoResponses(on: clock) != 2 { throw StaleResponseShown() }
        }
        XCTFail("the schedule reruns the failure")
      } catch {
        XCTAssertTrue(error.error is StaleResponseShown, error.description)
        XCTAssertEqual(error.choices, failure.choices)
        XCTAssertNil(error.misfit)
      }
    }
  }

  func testAScheduleFromAnotherVersionOfTheTestIsSaidNotToFit() throws {
    let failure = try failingRun()
    // The test changed: three requests now, so three responses could run where the schedule
    // says two.
    do {
      try explore(iterations: 1, strategy: .replaying(schedule: failure.schedule)) { clock in
        let network = VirtualSchedulerFactory(clock: clock).makeConcurrent(label: "network")
        for _ in 0..<3 { network.after(.milliseconds(100)) {} }
        clock.advance(by: .seconds(1))
      }
      XCTFail("a schedule that does not fit fails the run")
    } catch {
      let misfit = try XCTUnwrap(error.misfit, error.description)
      XCTAssertEqual(misfit.choice, 0)
      XCTAssertTrue(
        error.description.contains(
          "does not fit this test's work at choice 1: 3 pieces of work could run where the schedule says 2"
        ), error.description)
    }
    // Or it makes fewer choices than the schedule holds.
    let leftOver = failureReplaying("2/2 1/2 1/2 1/2 1/2")?.description ?? "passed"
    XCTAssertTrue(leftOver.contains("the run ended after 2 choices; the schedule has 5"), leftOver)
  }

  /// What replaying `schedule` on the two responses reports; nil when the run passed.
  private func failureReplaying(_ schedule: String) -> ExplorationFailure? {
    failure(replaying: schedule) { clock in _ = shownAfterTwoResponses(on: clock) }
  }

  /// What replaying `schedule` on `body` reports; nil when the run passed.
  private func failure(replaying schedule: String, _ body: (VirtualClock) throws -> Void)
    -> ExplorationFailure?
  {
    do {
      try explore(iterations: 1, strategy: .replaying(schedule: schedule), body)
      return nil
    } catch {
      return error
    }
  }

  func testAScheduleThatIsNotOneIsSaidToBeWrong() {
    for text in ["2/x", "3/2", "0/2", "1/1", "2-2", "/"] {
      let failure = failureReplaying("1/2 \(text)")
      XCTAssertEqual(failure?.misfit?.choice, 1, text)
      XCTAssertTrue(failure?.description.contains("is not a choice") == true, text)
    }
  }

  func testAScheduleThatCannotBeReadIsSaidSoOnceWithoutBlamingAnotherVersion() {
    for text in ["two/2", "0/2"] {
      XCTAssertEqual(
        failureReplaying(text)?.description,
        "run 1 of 1: the schedule cannot be read at choice 1: \"\(text)\" is not a choice: "
          + "write chosen/enabled, as in 2/3, 2 or more enabled and 1 to that many chosen")
    }
  }

  func testAScheduleThatDoesNotFitIsSaidOnceAndNoScheduleOfTheFallbackRunIsOffered() {
    XCTAssertEqual(
      failureReplaying("2/3")?.description,
      "run 1 of 1: the schedule does not fit this test's work at choice 1: 2 pieces of work "
        + "could run where the schedule says 3 — was it written by another version of the test?")
  }

  func testARunOfOneChoiceIsSaidInTheSingular() {
    do {
      try explore(iterations: 20) { clock in
        let network = VirtualSchedulerFactory(clock: clock).makeConcurrent(label: "network")
        let order = Locked<[Int]>([])
        for request in 0..<2 { network.async { order.withLock { $0.append(request) } } }
        clock.advance()
        if order.value != [0, 1] { throw StaleResponseShown() }
      }
      XCTFail("some run runs the second request first")
    } catch {
      XCTAssertTrue(
        error.description.contains("or by its schedule (1 choice): "), error.description)
    }
  }

  func testAScheduleEndingEarlyRunsTheRestFirstInFirstOut() throws {
    // The responses' order is the first choice; the rest are first in, first out.
    try explore(iterations: 1, strategy: .replaying(schedule: "1/2")) { clock in
      XCTAssertEqual(shownAfterTwoResponses(on: clock), 2)
      XCTAssertEqual(clock.exploration?.choices.count, 2, "it made its second choice too")
    }
  }

  func testStrategiesAreHashable() {
    let strategies: Set<Exploration.Strategy> = [
      .random, .pct(depth: 2), .pct(depth: 2, steps: 3), .replaying(schedule: "2/2"), .random,
    ]
    XCTAssertEqual(strategies.count, 4)
  }

  func testInAnAsyncFunctionABodyThatAwaitsNothingExploresAnAsyncClock() async throws {
    var clocks: [String] = []
    try await explore(iterations: 2) { clock in
      clock.advance()
      clocks.append("\(type(of: clock))")
    }
    XCTAssertEqual(clocks, ["VirtualAsyncClock", "VirtualAsyncClock"])
  }

  // MARK: PCT

  /// Under PCT with depth d, a run switches away from a queue that could still run at most d − 1
  /// times (the change points); the first queue to run otherwise runs all its work first.
  func testPCTPreemptsAtMostDepthMinusOneTimes() {
    for depth in 1...3 {
      var preemptedSomewhere = false
      for seed in UInt64(0)..<50 {
        let clock = VirtualClock(
          exploring: Exploration(seed: seed, strategy: .pct(depth: depth, steps: 12)))
        let factory = VirtualSchedulerFactory(clock: clock)
        let order = Locked<[String]>([])
        for queue in ["a", "b", "c"] {
          let scheduler = factory.makeSerial(label: queue)
          for _ in 0..<4 { scheduler.async { order.withLock { $0.append(queue) } } }
        }
        clock.advance()
        let ran = order.value
        XCTAssertEqual(ran.count, 12)
        // A switch away from a queue with work left is a preemption.
        var preemptions = 0
        for index in ran.indices.dropLast() where ran[index] != ran[index + 1] {
          if ran[(index + 1)...].contains(ran[index]) { preemptions += 1 }
        }
        XCTAssertLessThanOrEqual(preemptions, depth - 1, "seed \(seed): \(ran)")
        if preemptions > 0 { preemptedSomewhere = true }
      }
      XCTAssertEqual(preemptedSomewhere, depth > 1, "depth \(depth)")
    }
  }

  func testPCTTakesAnyDepthAndStepCountWithoutHangingOrTrapping() {
    for (depth, steps) in [(Int.max, Int.max), (-5, -3), (0, 0), (3, Int.min), (1_000_000, 10)] {
      let clock = VirtualClock(
        exploring: Exploration(seed: 1, strategy: .pct(depth: depth, steps: steps)))
      XCTAssertTrue([1, 2].contains(shownAfterTwoResponses(on: clock)))
      XCTAssertEqual(clock.exploration?.choices.count, 2, "depth \(depth), steps \(steps)")
    }
  }

  func testPCTTakesADepthBelowOneAsOneWithoutTrapping() {
    // One choice between two enabled chains; depth 1 has no change points, so the smallest depth
    // chooses exactly as depth 1 does (it trapped computing `depth - 1`).
    for depth in [Int.min, Int.min + 1, -1, 0] {
      for seed: UInt64 in 0..<8 {
        let smallest = VirtualClock(
          exploring: Exploration(seed: seed, strategy: .pct(depth: depth, steps: 4)))
        let one = VirtualClock(
          exploring: Exploration(seed: seed, strategy: .pct(depth: 1, steps: 4)))
        XCTAssertEqual(shownAfterTwoResponses(on: smallest), shownAfterTwoResponses(on: one))
        XCTAssertEqual(
          smallest.exploration?.choices, one.exploration?.choices, "depth \(depth), seed \(seed)")
      }
    }
  }

  // MARK: Asking for no runs

  func testExploringNoIterationsFailsInsteadOfPassingUntested() {
    for iterations in [0, -1, Int.min] {
      var runs = 0
      XCTAssertThrowsError(
        try explore(iterations: iterations, seed: 5) { _ in runs += 1 }
      ) { error in
        let failure = error as? ExplorationFailure
        XCTAssertEqual(failure?.iterations, iterations)
        XCTAssertEqual(
          failure?.description,
          "explore(iterations: \(iterations)) runs nothing, so it would pass without testing "
            + "anything: ask for 1 or more iterations")
      }
      XCTAssertThrowsError(try explore(iterations: iterations) { runs += 1 }) { error in
        XCTAssertTrue("\(error)".contains("runs nothing"), "\(error)")
      }
      XCTAssertEqual(runs, 0)
    }
  }

  func testExploringNoIterationsOfAnAsyncBodyFailsInsteadOfPassingUntested() async {
    for iterations in [0, -3] {
      var failures: [String] = []
      do {
        try await explore(iterations: iterations) { clock in
          await clock.advance()
          XCTFail("no run")
        }
      } catch {
        failures.append(error.description)
      }
      do {
        try await explore(iterations: iterations) {
          await Task.yield()
          XCTFail("no run")
        }
      } catch {
        failures.append(error.description)
      }
      XCTAssertEqual(
        failures,
        Array(
          repeating: "explore(iterations: \(iterations)) runs nothing, so it would pass without "
            + "testing anything: ask for 1 or more iterations", count: 2))
    }
  }

  // MARK: Shrinking

  /// The stale response among work that does not matter: eight unrelated actions on another
  /// concurrent queue at the same instant. A random failing order moves many of them; the bug
  /// needs one choice.
  private func staleResponseAmongNoise(on clock: VirtualClock) throws {
    let noise = VirtualSchedulerFactory(clock: clock).makeConcurrent(label: "noise")
    for _ in 0..<8 { noise.after(.milliseconds(100)) {} }
    if shownAfterTwoResponses(on: clock) != 2 { throw StaleResponseShown() }
  }

  func testAFailingScheduleIsShrunkToTheChoicesTheBugNeeds() throws {
    var found: ExplorationFailure?
    do {
      try explore(iterations: 200, seed: 3) { clock in try staleResponseAmongNoise(on: clock) }
    } catch {
      found = error
    }
    let failure = try XCTUnwrap(found)
    let away = { (choices: [Exploration.Choice]) in choices.count { $0.chosen != 0 } }
    let shortest = try XCTUnwrap(failure.shortest, failure.description)
    XCTAssertLessThan(away(shortest), away(failure.choices), failure.description)
    XCTAssertLessThanOrEqual(away(shortest), 2, "the second response first, then its main work")
    XCTAssertTrue(failure.description.contains("shortest form found"), failure.description)
    // The shortest form is a schedule of its own: replayed strictly, it fails the same way.
    let replayed = self.failure(replaying: Exploration.schedule(of: shortest)) { clock in
      try staleResponseAmongNoise(on: clock)
    }
    XCTAssertTrue(replayed?.error is StaleResponseShown, "\(String(describing: replayed))")
    XCTAssertNil(replayed?.misfit)
  }

  /// Two bugs that throw one error type, saying different things: a stale response, and a log
  /// that starts with the wrong entry, among noise.
  private func twoBugsAmongNoise(on clock: VirtualClock) throws {
    struct Wrong: Error, CustomStringConvertible { let description: String }
    let factory = VirtualSchedulerFactory(clock: clock)
    let noise = factory.makeConcurrent(label: "noise")
    for _ in 0..<6 { noise.after(.milliseconds(100)) {} }
    let log = Locked<[String]>([])
    let other = factory.makeConcurrent(label: "other")
    for name in ["a", "b", "c"] {
      other.after(.milliseconds(100)) { log.withLock { $0.append(name) } }
    }
    if shownAfterTwoResponses(on: clock) != 2 {
      throw Wrong(description: "the stale response is shown")
    }
    if let first = log.value.first, first != "a" {
      throw Wrong(description: "the log starts with \(first)")
    }
  }

  func testEveryShortestFormFailsAsItsRunFailedAndEndsAtItsLastChoiceAwayFromFirstInFirstOut()
    throws
  {
    var shortestForms = 0
    for seed in stride(from: UInt64(0), to: 40_000, by: 1_000) {
      do {
        try explore(iterations: 200, seed: seed) { clock in try twoBugsAmongNoise(on: clock) }
        XCTFail("seed \(seed): 200 runs find a bug")
      } catch let failure {
        guard let shortest = failure.shortest else { continue }
        shortestForms += 1
        XCTAssertNotEqual(shortest.last?.chosen, 0, "no first-in-first-out padding: \(failure)")
        XCTAssertLessThanOrEqual(shortest.count, failure.choices.count, failure.description)
        let replayed = self.failure(replaying: Exploration.schedule(of: shortest)) { clock in
          try twoBugsAmongNoise(on: clock)
        }
        XCTAssertEqual(
          replayed.map { "\($0.error)" }, "\(failure.error)", "seed \(seed): \(failure)")
        XCTAssertNil(replayed?.misfit)
      }
    }
    XCTAssertGreaterThan(shortestForms, 20)
  }

  func testEveryClockABodyMakesExploresWithItsRunsSeed() throws {
    let seeds = Locked<[UInt64?]>([])
    try explore(iterations: 5, seed: 10) {
      let clocks = [VirtualClock(), VirtualAsyncClock().clock]
      seeds.withLock { $0.append(Exploration.runSeed) }
      XCTAssertEqual(
        clocks.map { $0.exploration?.seed }, [Exploration.runSeed, Exploration.runSeed])
    }
    XCTAssertEqual(seeds.value, [10, 11, 12, 13, 14])
    XCTAssertNil(Exploration.runSeed, "outside a run")
    XCTAssertNil(VirtualClock().exploration, "a clock made outside a run does not explore")
  }

  /// Under PCT a task is one chain: its sleeps' wake-ups and its jobs share its priority. With
  /// depth 1 (no change point) the task that goes first at one instant goes first at each.
  func testUnderPCTATasksWakeUpsKeepItsPriority() {
    var orders = Set<[String]>()
    for seed in UInt64(0)..<30 {
      let clock = VirtualAsyncClock(
        clock: VirtualClock(exploring: Exploration(seed: seed, strategy: .pct(depth: 1))))
      let log = Locked<[String]>([])
      for name in ["a", "b"] {
        clock.task {
          for _ in 0..<3 {
            try await clock.sleep(for: .seconds(1))
            log.withLock { $0.append(name) }
          }
        }
      }
      clock.advance(by: .seconds(3))
      let ran = log.value
      XCTAssertTrue(
        ran == ["a", "b", "a", "b", "a", "b"] || ran == ["b", "a", "b", "a", "b", "a"],
        "seed \(seed): \(ran)")
      orders.insert(ran)
    }
    XCTAssertEqual(orders.count, 2, "either task may have the higher priority")
  }
}
