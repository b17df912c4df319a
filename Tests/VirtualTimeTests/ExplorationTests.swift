import Scheduling
import SchedulingTesting
import VirtualTime
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
}
