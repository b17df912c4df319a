@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import XCTest

/// The timing bugs of `ChronoscopeExamples/OrderBugs.swift`, each passing in first-in, first-out order,
/// found by exploring orders by seed, reproduced by its seed 100 times out of 100, and gone with
/// its fix.
final class OrderBugScenarioTests: XCTestCase {
  struct Wrong: Error, CustomStringConvertible {
    let description: String
  }

  // MARK: The scenarios, each a body `explore` runs

  /// Two withdrawals of 80 from 100, one after looking the price up on another actor.
  static func reentrancy(fixed: Bool) -> (VirtualClock) throws -> Void {
    { clock in
      let tasks = VirtualAsyncClock(clock: clock)
      let account = Account(balance: 100, checkingAgain: fixed)
      tasks.task { await account.twoCustomersWithdraw() }
      tasks.advance()
      let balance = tasks.task { await account.balance }
      tasks.advance()
      let left = try balance.result?.get()
      guard left == 20 else { throw Wrong(description: "balance \(left.map(String.init) ?? "?")") }
    }
  }

  /// One item, two customers.
  static func lostUpdate(fixed: Bool) -> (VirtualClock) throws -> Void {
    { clock in
      let stock = Stock(
        items: 1, factory: VirtualSchedulerFactory(clock: clock), decidingOnTheStore: fixed)
      stock.twoCustomersBuy()
      clock.advance()
      guard stock.sales.value.count == 1 else {
        throw Wrong(description: "sold \(stock.sales.value), \(stock.left) left")
      }
    }
  }

  /// A response and a time limit due at the same instant.
  static func completionTwice(fixed: Bool) -> (VirtualClock) throws -> Void {
    { clock in
      let request = LimitedRequest(
        factory: VirtualSchedulerFactory(clock: clock), claimingFirst: fixed)
      let outcomes = Locked<[String]>([])
      request.start(latency: .seconds(1), limit: .seconds(1)) { outcome in
        outcomes.withLock { $0.append(outcome) }
      }
      clock.advance(by: .seconds(2))
      guard outcomes.value.count == 1 else {
        throw Wrong(
          description: "completion called \(outcomes.value.count) times: \(outcomes.value)")
      }
    }
  }

  /// A quote whose time limit is its latency.
  static func timeoutRace(limit: Duration) -> (VirtualClock) throws -> Void {
    { clock in
      let tasks = VirtualAsyncClock(clock: clock)
      let quote = tasks.task {
        try await fetchQuote(clock: tasks, latency: .seconds(1), limit: limit)
      }
      tasks.advance(by: .seconds(2))
      let result = quote.result
      guard case .success(42)? = result else {
        throw Wrong(description: "the quote was \(String(describing: result))")
      }
    }
  }

  /// "s" then "swift" typed 300 ms later, when the first's timer fires.
  static func debounce(fixed: Bool) -> (VirtualClock) throws -> Void {
    { clock in
      let field = SearchField(
        factory: VirtualSchedulerFactory(clock: clock), checkingTheLatest: fixed)
      field.typeOverTime(["s", "swift"], gap: .milliseconds(300))
      clock.advance(by: .seconds(1))
      guard field.searches.value == ["swift"] else {
        throw Wrong(description: "searches sent: \(field.searches.value)")
      }
    }
  }

  // MARK: Found, reproduced, fixed

  /// `buggy` passes first in, first out and fails under exploration with `strategy`; the failing
  /// seed fails the same way 100 times out of 100; `fixed` passes every explored run.
  private func check(
    _ buggy: (VirtualClock) throws -> Void, fixed: (VirtualClock) throws -> Void,
    strategy: Exploration.Strategy, iterations: Int = 200, failing: String,
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    XCTAssertNoThrow(
      try buggy(VirtualClock()), "first in, first out passes", file: file, line: line)
    var found: ExplorationFailure?
    do {
      try explore(iterations: iterations, strategy: strategy, buggy)
    } catch {
      found = error
    }
    let failure = try XCTUnwrap(found, "found in \(iterations) runs", file: file, line: line)
    XCTAssertNil(failure.divergedAt, failure.description, file: file, line: line)
    XCTAssertTrue("\(failure.error)".contains(failing), failure.description, file: file, line: line)
    XCTAssertTrue(failure.description.contains(failure.rerun), failure.description)
    for _ in 0..<100 {
      do {
        try explore(iterations: 1, seed: failure.seed, strategy: failure.strategy, buggy)
        XCTFail("seed \(failure.seed) passed on a rerun", file: file, line: line)
        return
      } catch {
        XCTAssertEqual(error.choices, failure.choices, file: file, line: line)
        XCTAssertEqual("\(error.error)", "\(failure.error)", file: file, line: line)
      }
    }
    XCTAssertNoThrow(
      try explore(iterations: iterations, strategy: strategy, fixed), "the fix holds in every run",
      file: file, line: line)
  }

  func testActorReentrancy() throws {
    for strategy in [Exploration.Strategy.random, .pct(depth: 2)] {
      try check(
        Self.reentrancy(fixed: false), fixed: Self.reentrancy(fixed: true), strategy: strategy,
        failing: "balance -60")
    }
  }

  func testALostUpdateBetweenTwoQueues() throws {
    for strategy in [Exploration.Strategy.random, .pct(depth: 2)] {
      try check(
        Self.lostUpdate(fixed: false), fixed: Self.lostUpdate(fixed: true), strategy: strategy,
        failing: "-1 left")
    }
  }

  func testACompletionCalledTwice() throws {
    for strategy in [Exploration.Strategy.random, .pct(depth: 2)] {
      try check(
        Self.completionTwice(fixed: false), fixed: Self.completionTwice(fixed: true),
        strategy: strategy, failing: "completion called 2 times")
    }
  }

  func testATimeoutRacingAResultAtTheSameInstant() throws {
    for strategy in [Exploration.Strategy.random, .pct(depth: 2)] {
      try check(
        Self.timeoutRace(limit: .seconds(1)), fixed: Self.timeoutRace(limit: .seconds(2)),
        strategy: strategy, failing: "TimedOut")
    }
  }

  func testADebounceThatLetsTwoSearchesThrough() throws {
    for strategy in [Exploration.Strategy.random, .pct(depth: 2)] {
      try check(
        Self.debounce(fixed: false), fixed: Self.debounce(fixed: true), strategy: strategy,
        failing: "searches sent: [\"s\", \"swift\"]")
    }
  }
}
