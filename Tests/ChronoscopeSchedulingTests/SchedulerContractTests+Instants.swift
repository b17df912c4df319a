import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import Foundation
import XCTest

/// Work due at an absolute instant, and repeating work whose first run comes sooner (or later)
/// than its interval, in every family.
extension SchedulerContractTests {
  func testWorkAtAnInstantRunsNoSoonerThanThatInstantOnTheSchedulersClock() {
    for family in FamilyUnderTest.deferred {
      let scheduler = family.factory.makeSerial(label: "at")
      let deadline = scheduler.now + .milliseconds(20)
      let ranAt = Locked<SchedulerInstant?>(nil)
      scheduler.at(deadline) { ranAt.withLock { $0 = scheduler.now } }
      XCTAssertEqual(family.settle { ranAt.value != nil }, .satisfied, family.name)
      let ran = ranAt.value ?? SchedulerInstant(nanoseconds: 0)
      XCTAssertGreaterThanOrEqual(ran, deadline, "\(family.name) ran early")
      if case .virtual = family.timing {
        XCTAssertEqual(ran, deadline, "\(family.name): exactly at the deadline")
      }
    }
  }

  func testADeadlineAlreadyPassedIsDueAtOnceAndCancellable() {
    for family in FamilyUnderTest.all {
      let scheduler = family.factory.makeSerial(label: "at-past")
      let ran = Locked(false)
      scheduler.at(scheduler.now - .seconds(5)) { ran.withLock { $0 = true } }
      XCTAssertEqual(family.settle { ran.value }, .satisfied, family.name)
      guard !family.runsInline else { continue }
      let cancelled = Locked(false)
      scheduler.at(scheduler.now + .seconds(3_600)) { cancelled.withLock { $0 = true } }.cancel()
      let after = Locked(false)
      scheduler.async { after.withLock { $0 = true } }
      XCTAssertEqual(family.settle { after.value }, .satisfied, family.name)
      XCTAssertFalse(cancelled.value, family.name)
    }
  }

  func testRepeatingWorkCanFirstRunSoonerThanItsInterval() {
    for family in FamilyUnderTest.deferred {
      let scheduler = family.factory.makeSerial(label: "first")
      let start = scheduler.now
      let runs = Locked<[SchedulerInstant]>([])
      let timer = scheduler.every(.milliseconds(40), firstAfter: .zero) {
        runs.withLock { $0.append(scheduler.now) }
      }
      XCTAssertEqual(family.settle { runs.value.count >= 3 }, .satisfied, family.name)
      timer.cancel()
      let times = runs.value
      // Never early: run k (from 0) is due at start + k × 40 ms.
      for (index, time) in times.enumerated() {
        XCTAssertGreaterThanOrEqual(
          time, start + .milliseconds(40) * index, "\(family.name) run \(index) early")
      }
      if case .virtual = family.timing {
        XCTAssertEqual(
          Array(times.prefix(3)),
          [start, start + .milliseconds(40), start + .milliseconds(80)], family.name)
      }
    }
  }

  func testRepeatingWorkCanFirstRunLaterThanItsInterval() {
    for family in FamilyUnderTest.deferred {
      let scheduler = family.factory.makeSerial(label: "later")
      let start = scheduler.now
      let runs = Locked<[SchedulerInstant]>([])
      let timer = scheduler.every(.milliseconds(5), firstAfter: .milliseconds(60)) {
        runs.withLock { $0.append(scheduler.now) }
      }
      XCTAssertEqual(family.settle { runs.value.count >= 2 }, .satisfied, family.name)
      timer.cancel()
      XCTAssertGreaterThanOrEqual(
        runs.value.first ?? start, start + .milliseconds(60), "\(family.name) ran early")
      if case .virtual = family.timing {
        XCTAssertEqual(
          Array(runs.value.prefix(2)), [start + .milliseconds(60), start + .milliseconds(65)])
      }
    }
  }
}
