import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import Dispatch
import Foundation
import XCTest

/// The scheduler contract, written once and checked against every family.
///
/// This is the one suite allowed to wait on the wall clock: live schedulers run on real threads.
/// Every wait is condition-driven (`waitUntil`) with a generous deadline that only matters when
/// a test fails.
final class SchedulerContractTests: XCTestCase {
  func testSerialSchedulerRunsActionsInFIFOOrder() {
    for family in FamilyUnderTest.all {
      let serial = family.factory.makeSerial(label: "fifo")
      let order = Locked<[Int]>([])
      for index in 0..<500 {
        serial.async { order.withLock { $0.append(index) } }
      }
      XCTAssertEqual(
        family.settle { order.value.count == 500 }, .satisfied, family.name)
      XCTAssertEqual(order.value, Array(0..<500), family.name)
    }
  }

  func testSerialSchedulerNeverOverlapsActions() {
    for family in FamilyUnderTest.all {
      let serial = family.factory.makeSerial(label: "exclusive")
      let inFlight = Locked(0)
      let maximum = Locked(0)
      let finished = Locked(0)
      for _ in 0..<200 {
        serial.async {
          let now = inFlight.withLock { count in
            count += 1
            return count
          }
          maximum.withLock { $0 = max($0, now) }
          inFlight.withLock { $0 -= 1 }
          finished.withLock { $0 += 1 }
        }
      }
      XCTAssertEqual(
        family.settle { finished.value == 200 }, .satisfied, family.name)
      XCTAssertEqual(maximum.value, 1, family.name)
    }
  }

  func testConcurrentSchedulerRunsTwoActionsAtOnce() {
    for family in FamilyUnderTest.live {
      let concurrent = family.factory.makeConcurrent(label: "overlap")
      // Each action announces itself and then waits for the other: both can only finish if they
      // were in flight at the same time.
      let first = DispatchSemaphore(value: 0)
      let second = DispatchSemaphore(value: 0)
      let met = Locked(0)
      concurrent.async {
        first.signal()
        if second.wait(timeout: .now() + 20) == .success { met.withLock { $0 += 1 } }
      }
      concurrent.async {
        second.signal()
        if first.wait(timeout: .now() + 20) == .success { met.withLock { $0 += 1 } }
      }
      XCTAssertEqual(family.settle { met.value == 2 }, .satisfied, family.name)
    }
  }

  func testMainSchedulerRunsOnTheMainThread() {
    for family in FamilyUnderTest.all {
      let main = family.factory.main
      XCTAssertEqual(main.kind, .main, family.name)
      XCTAssertTrue(main === family.factory.main, "\(family.name): main is one scheduler")
      let observed = Locked<(isMainThread: Bool, isCurrent: Bool)?>(nil)
      main.async { observed.withLock { $0 = (Thread.isMainThread, main.isCurrent) } }
      XCTAssertEqual(
        family.settle { observed.value != nil }, .satisfied, family.name)
      XCTAssertEqual(observed.value?.isMainThread, true, family.name)
      XCTAssertEqual(observed.value?.isCurrent, true, family.name)
    }
  }

  func testBackgroundWorkCanHopToMainWhileTheTestWaitsOnMain() {
    for family in FamilyUnderTest.all {
      let background = family.factory.makeSerial(label: "background")
      let main = family.factory.main
      let delivered = Locked<Bool?>(nil)
      background.async {
        main.async { delivered.withLock { $0 = Thread.isMainThread } }
      }
      XCTAssertEqual(
        family.settle { delivered.value != nil }, .satisfied, family.name)
      XCTAssertEqual(delivered.value, true, family.name)
    }
  }

  func testSyncReturnsTheBlocksValue() {
    for family in FamilyUnderTest.all {
      for scheduler in [
        family.factory.makeSerial(label: "s"), family.factory.makeConcurrent(label: "c"),
        family.factory.main,
      ] {
        let ranOnScheduler = Locked(false)
        let value = scheduler.sync {
          ranOnScheduler.withLock { $0 = scheduler.isCurrent }
          return 6 * 7
        }
        XCTAssertEqual(value, 42, "\(family.name) \(scheduler.kind)")
        XCTAssertTrue(ranOnScheduler.value, "\(family.name) \(scheduler.kind)")
      }
    }
  }

  func testSyncRethrowsTheBlocksError() {
    struct Boom: Error, Equatable {}
    for family in FamilyUnderTest.all {
      let serial = family.factory.makeSerial(label: "throws")
      XCTAssertThrowsError(try serial.sync { () throws(Boom) -> Int in throw Boom() }) { error in
        XCTAssertEqual(error as? Boom, Boom(), family.name)
      }
    }
  }

  func testCancelledActionThatHasNotStartedNeverRuns() {
    for family in FamilyUnderTest.deferred {
      let serial = family.factory.makeSerial(label: "cancel")
      let gate = DispatchSemaphore(value: 0)
      let ran = Locked<[String]>([])
      if family.isLive {
        serial.async { _ = gate.wait(timeout: .now() + 20) }  // holds the queue
      }
      let cancelledAsync = serial.async { ran.withLock { $0.append("async") } }
      let cancelledAfter = serial.after(.milliseconds(1)) { ran.withLock { $0.append("after") } }
      let cancelledRepeat = serial.every(.milliseconds(1)) { ran.withLock { $0.append("every") } }
      cancelledAsync.cancel()
      cancelledAfter.cancel()
      cancelledRepeat.cancel()
      cancelledAsync.cancel()  // idempotent
      gate.signal()
      serial.after(.milliseconds(30)) { ran.withLock { $0.append("sentinel") } }
      XCTAssertEqual(family.settle { ran.value.contains("sentinel") }, .satisfied)
      XCTAssertEqual(ran.value, ["sentinel"], family.name)
      XCTAssertTrue(cancelledAsync.isCancelled)
    }
  }

  func testCancelIsSafeFromManyThreadsAtOnce() {
    for family in FamilyUnderTest.deferred {
      let serial = family.factory.makeSerial(label: "cancel-race")
      let runs = Locked(0)
      let tasks = (0..<200).map { _ in serial.after(.milliseconds(50)) { runs.withLock { $0 += 1 } }
      }
      DispatchQueue.concurrentPerform(iterations: 400) { index in tasks[index % 200].cancel() }
      let sentinel = Locked(false)
      serial.after(.milliseconds(80)) { sentinel.withLock { $0 = true } }
      XCTAssertEqual(family.settle { sentinel.value }, .satisfied, family.name)
      XCTAssertEqual(runs.value, 0, family.name)
    }
  }

  func testRepeatingActionRunsUntilCancelled() {
    for family in FamilyUnderTest.all {
      let serial = family.factory.makeSerial(label: "repeat")
      let runs = Locked(0)
      let handle = Locked<SchedulerTask?>(nil)
      let task = serial.every(.milliseconds(2)) {
        let count = runs.withLock { count in
          count += 1
          return count
        }
        if count == 3 { handle.value?.cancel() }
      }
      handle.withLock { $0 = task }
      if family.runsInline {
        // Documented: an inline scheduler runs a repeating action once.
        XCTAssertEqual(runs.value, 1, family.name)
        continue
      }
      let sentinel = Locked(false)
      serial.after(.milliseconds(60)) { sentinel.withLock { $0 = true } }
      XCTAssertEqual(family.settle { sentinel.value && runs.value >= 3 }, .satisfied)
      XCTAssertEqual(runs.value, 3, family.name)
      XCTAssertTrue(task.isCancelled, family.name)
    }
  }

  func testDelayedActionsNeverRunEarly() {
    for family in FamilyUnderTest.deferred {
      let now = family.now
      for kind in ["serial", "concurrent", "main"] {
        let scheduler =
          switch kind {
          case "serial": family.factory.makeSerial(label: "delay")
          case "concurrent": family.factory.makeConcurrent(label: "delay")
          default: family.factory.main
          }
        let delays: [Duration] = [.zero, .microseconds(300), .milliseconds(3), .milliseconds(25)]
        let elapsed = Locked<[Int: Duration]>([:])
        for (index, delay) in delays.enumerated() {
          let start = now()
          scheduler.after(delay) { elapsed.withLock { $0[index] = now() - start } }
        }
        XCTAssertEqual(
          family.settle { elapsed.value.count == delays.count }, .satisfied)
        for (index, delay) in delays.enumerated() {
          let measured = elapsed.value[index] ?? .zero
          XCTAssertGreaterThanOrEqual(measured, delay, "\(family.name) \(kind) ran early")
        }
      }
    }
  }

  func testIsCurrentIsTrueOnlyInsideTheSchedulersOwnActions() {
    for family in FamilyUnderTest.all {
      let serial = family.factory.makeSerial(label: "mine")
      let other = family.factory.makeSerial(label: "other")
      XCTAssertFalse(serial.isCurrent, family.name)
      let inside = Locked<(mine: Bool, other: Bool)?>(nil)
      serial.async { inside.withLock { $0 = (serial.isCurrent, other.isCurrent) } }
      XCTAssertEqual(family.settle { inside.value != nil }, .satisfied, family.name)
      XCTAssertEqual(inside.value?.mine, true, family.name)
      XCTAssertEqual(inside.value?.other, false, family.name)
      XCTAssertFalse(serial.isCurrent, family.name)
    }
  }

  func testReentrantSyncRunsInlineInsteadOfDeadlocking() {
    for family in FamilyUnderTest.all {
      let first = family.factory.makeSerial(label: "first")
      let second = family.factory.makeSerial(label: "second")
      let main = family.factory.main
      // From the test's own (main) thread.
      XCTAssertEqual(main.sync { main.sync { 1 } }, 1, family.name)
      XCTAssertEqual(first.sync { first.sync { 2 } }, 2, family.name)
      XCTAssertEqual(first.sync { second.sync { first.sync { 3 } } }, 3, family.name)
      // From inside an asynchronous action.
      let result = Locked<Int?>(nil)
      first.async {
        let value = first.sync { second.sync { first.sync { 4 } } }
        result.withLock { $0 = value }
      }
      XCTAssertEqual(family.settle { result.value != nil }, .satisfied, family.name)
      XCTAssertEqual(result.value, 4, family.name)
    }
  }

  func testSyncOntoMainFromBackgroundRunsOnMain() {
    for family in FamilyUnderTest.all {
      let background = family.factory.makeSerial(label: "to-main")
      let main = family.factory.main
      let result = Locked<Bool?>(nil)
      background.async {
        let onMain = main.sync { Thread.isMainThread }
        result.withLock { $0 = onMain }
      }
      XCTAssertEqual(family.settle { result.value != nil }, .satisfied, family.name)
      XCTAssertEqual(result.value, true, family.name)
    }
  }

  func testSchedulersReportTheirLabelKindAndFamily() {
    for family in FamilyUnderTest.all {
      let serial = family.factory.makeSerial(label: "com.example.state")
      let concurrent = family.factory.makeConcurrent(label: "com.example.work")
      XCTAssertEqual(serial.label, "com.example.state")
      XCTAssertEqual(serial.kind, .serial)
      XCTAssertEqual(concurrent.kind, .concurrent)
      XCTAssertEqual(serial.family.rawValue, family.reportedFamily)
    }
  }
}
