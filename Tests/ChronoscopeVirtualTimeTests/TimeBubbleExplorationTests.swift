import ChronoscopeVirtualTime
import Dispatch
import Foundation
import XCTest

/// Exploration reaches the work of a bubble: plain Dispatch queues and tasks of unchanged code run
/// in other orders, by seed; a failing order is found, and its seed reruns it every time.
final class TimeBubbleExplorationTests: XCTestCase {
  struct LostUpdate: Error, Equatable { let value: Int }
  struct Overdrawn: Error, Equatable { let results: [Bool] }

  private func countBoth() async throws {
    let value = try await withTimeBubble { _ in
      let counter = SharedCounter()
      await withCheckedContinuation { continuation in
        counter.incrementFromBothQueues { continuation.resume() }
      }
      return counter.value
    }
    if value != 2 { throw LostUpdate(value: value) }
  }

  private func withdrawTwice() async throws {
    let results = try await withTimeBubble { _ in
      await twoWithdrawals(from: PlainAccount(balance: 100))
    }
    if results == [true, true] { throw Overdrawn(results: results) }
  }

  func testInFirstInFirstOutOrderNeitherBugShows() async throws {
    try await countBoth()
    try await withdrawTwice()
  }

  func testALostUpdateBetweenTwoPlainQueuesIsFoundAndItsSeedReproducesIt() async throws {
    try await assertFoundAndReproduced(LostUpdate(value: 1)) { try await self.countBoth() }
  }

  func testAnActorReentrancyBugInUnchangedCodeIsFoundAndItsSeedReproducesIt() async throws {
    try await assertFoundAndReproduced(Overdrawn(results: [true, true])) {
      try await self.withdrawTwice()
    }
  }

  private func assertFoundAndReproduced<E: Error & Equatable>(
    _ expected: E, file: StaticString = #filePath, line: UInt = #line,
    _ run: () async throws -> Void
  ) async throws {
    var found: ExplorationFailure?
    do {
      try await explore(iterations: 200, seed: 7, eachRun: run)
    } catch {
      found = error
    }
    let failure = try XCTUnwrap(
      found, "200 explored orders found no failing one", file: file, line: line)
    XCTAssertEqual(failure.error as? E, expected, file: file, line: line)
    XCTAssertNil(failure.nondeterminism, file: file, line: line)
    for _ in 0..<100 {
      do {
        try await explore(
          iterations: 1, seed: failure.seed, strategy: failure.strategy, eachRun: run)
        XCTFail("seed \(failure.seed) passed on a rerun", file: file, line: line)
        return
      } catch {
        XCTAssertEqual(error.error as? E, expected, file: file, line: line)
      }
    }
  }
}

/// A thousand runs of a bubble test give the same result, in every detail the code can see.
final class TimeBubbleDeterminismTests: XCTestCase {
  func testAThousandRunsOfMinutesOfVirtualTimeAreIdentical() async throws {
    let realStart = ContinuousClock.now
    var outcomes = Set<String>()
    for _ in 0..<1_000 {
      let outcome = try await withTimeBubble { bubble in
        let log = Log()
        let debouncer = Debouncer(delay: 0.25, queue: DispatchQueue(label: "debounce"))
        let poller = Poller(interval: 7)
        poller.start()
        let client = FlakyClient(failures: 3)
        async let fetched = client.fetchWithRetry()
        for index in 0..<20 {
          debouncer.call { log.append("debounced \(index) at \(bubble.elapsed)") }
          try await Task.sleep(for: .milliseconds(index % 3 == 0 ? 400 : 100))
        }
        let monitor = HeartbeatMonitor()
        let dead = try await monitor.watch(timeout: .seconds(30))
        poller.stop()
        let result = try await fetched
        return
          "\(log.entries) \(poller.pollsSoFar()) \(result) \(client.callTimes) \(dead) \(bubble.elapsed)"
      }
      outcomes.insert(outcome)
    }
    XCTAssertEqual(outcomes.count, 1, "\(outcomes.prefix(2))")
    XCTAssertTrue(outcomes.first?.contains("35.1 seconds") ?? false, "\(outcomes)")
    XCTAssertLessThan(ContinuousClock.now - realStart, .seconds(60))
  }
}
