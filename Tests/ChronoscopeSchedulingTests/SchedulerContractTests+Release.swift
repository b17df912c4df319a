import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Dispatch
import Foundation
import XCTest

/// Something a closure captures, to watch when it is released.
private final class Captured: Sendable {
  func touch() {}
}

/// An object that keeps its own timer, whose work captures the object: a cycle that only a
/// cancel that lets go of the work can break.
private final class Poller: @unchecked Sendable {
  // @unchecked Sendable: `timer` is set once, in `init`, before anything can run the work.
  private var timer: SchedulerTask?
  let polls = Locked(0)

  init(_ scheduler: any Scheduler) {
    timer = scheduler.every(.seconds(1)) { [self] in polls.withLock { $0 += 1 } }
  }

  func stop() { timer?.cancel() }
}

extension SchedulerContractTests {
  func testCancellingLetsGoOfWhatTheWorkCapturedAtOnce() {
    for family in FamilyUnderTest.all {
      let scheduler = family.factory.makeSerial(label: "release")
      weak var delayed: Captured?
      weak var repeating: Captured?
      var tasks: [SchedulerTask] = []
      do {
        let first = Captured()
        let second = Captured()
        delayed = first
        repeating = second
        tasks.append(scheduler.after(.seconds(3_600)) { first.touch() })
        tasks.append(scheduler.every(.seconds(3_600)) { second.touch() })
      }
      if !family.runsInline {
        XCTAssertNotNil(delayed, "\(family.name): pending work keeps what it captured")
        XCTAssertNotNil(repeating, family.name)
      }
      for task in tasks { task.cancel() }
      XCTAssertNil(delayed, "\(family.name): released on cancel, not an hour later")
      XCTAssertNil(repeating, "\(family.name): a cancelled timer lets go too")
    }
  }

  func testCancellingQueuedWorkLetsGoOfItBeforeTheQueueReachesIt() {
    for family in FamilyUnderTest.deferred {
      let scheduler = family.factory.makeSerial(label: "release-queued")
      // Hold a live queue with a first action, so the second waits behind it. (Semaphores, not
      // `waitUntil`: the first action is still running when the test goes on.)
      let gate = DispatchSemaphore(value: 0)
      let started = DispatchSemaphore(value: 0)
      if family.isLive {
        scheduler.async {
          started.signal()
          _ = gate.wait(timeout: .now() + 20)
        }
        XCTAssertEqual(started.wait(timeout: .now() + 20), .success, family.name)
      }
      weak var queued: Captured?
      let task: SchedulerTask
      do {
        let captured = Captured()
        queued = captured
        task = scheduler.async { captured.touch() }
      }
      XCTAssertNotNil(queued, family.name)
      task.cancel()
      XCTAssertNil(queued, "\(family.name): released while still queued")
      gate.signal()
    }
  }

  func testAnObjectThatOwnsItsTimerIsFreedOnceItCancelsIt() throws {
    for family in FamilyUnderTest.all {
      weak var weakPoller: Poller?
      do {
        let poller = Poller(family.factory.makeSerial(label: "poller"))
        weakPoller = poller
        poller.stop()
      }
      XCTAssertNil(weakPoller, "\(family.name): the owner/timer cycle is broken by cancel")
      if case .virtual(let clock) = family.timing {
        XCTAssertNoThrow(try clock.checkNoPendingWork(), family.name)
      }
    }
  }

  func testWorkThatRanForTheLastTimeIsLetGo() {
    for family in FamilyUnderTest.all {
      let scheduler = family.factory.makeSerial(label: "ran")
      weak var weakCaptured: Captured?
      let ran = Locked(false)
      let task: SchedulerTask
      do {
        let captured = Captured()
        weakCaptured = captured
        task = scheduler.after(.milliseconds(1)) {
          captured.touch()
          ran.withLock { $0 = true }
        }
      }
      XCTAssertEqual(family.settle { ran.value }, .satisfied, family.name)
      // A live queue lets go of a block on its own thread just after it returns: once the next
      // action on the same serial queue has run, the first is gone.
      let next = Locked(false)
      scheduler.async { next.withLock { $0 = true } }
      XCTAssertEqual(family.settle { next.value }, .satisfied, family.name)
      XCTAssertNil(weakCaptured, "\(family.name): the handle is kept, the work is not")
      withExtendedLifetime(task) {}
    }
  }
}
