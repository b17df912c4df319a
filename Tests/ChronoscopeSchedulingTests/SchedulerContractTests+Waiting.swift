@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import Foundation
import Synchronization
import XCTest

/// `waitUntil`, the condition-driven wait the live contract relies on.
extension SchedulerContractTests {
  func testWaitUntilReturnsSatisfiedAsSoonAsABackgroundActionMakesTheConditionTrue() {
    let background = DispatchSchedulerFactory().makeSerial(label: "waker")
    let done = Locked(false)
    let clock = ContinuousClock()
    let start = clock.now
    background.after(.milliseconds(5)) { done.withLock { $0 = true } }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { done.value }, .satisfied)
    // Woken by the completion, not by the deadline.
    XCTAssertLessThan(clock.now - start, .seconds(10))
  }

  /// Async code, a plain thread: no scheduler finishes an action, the `Locked` change wakes the
  /// wait (the bundled `async-search` recording ran 29 s past its last event waiting for this).
  func testWaitUntilWakesWhenALockedValueChangesOutsideAScheduler() {
    for onMainThread in [true, false] {
      let done = Locked(false)
      let waited = Locked<Duration?>(nil)
      let clock = ContinuousClock()
      Task.detached {
        try? await Task.sleep(for: .milliseconds(5))
        done.withLock { $0 = true }
      }
      let wait: @Sendable () -> Void = {
        let start = clock.now
        XCTAssertEqual(waitUntil(timeout: .seconds(20)) { done.value }, .satisfied)
        waited.withLock { $0 = clock.now - start }
      }
      if onMainThread {
        wait()
      } else {
        let thread = Thread(block: wait)
        thread.start()
        while waited.value == nil { usleep(1_000) }
      }
      XCTAssertLessThan(waited.value ?? .seconds(99), .seconds(10), "woken by the change")
    }
  }

  /// State nothing reports a change of — a plain `Mutex` set from a task: no `Locked`, no
  /// scheduler — is seen within the back-off's 10 ms, not at the timeout.
  func testWaitUntilSeesStateThatNothingReportsSoonAfterItChanges() async {
    final class Flag: Sendable {
      let isSet = Mutex(false)
    }
    let flag = Flag()
    Task.detached {
      try? await Task.sleep(for: .milliseconds(5))
      flag.isSet.withLock { $0 = true }
    }
    let clock = ContinuousClock()
    let start = clock.now
    let outcome = await Task.detached {
      waitUntil(timeout: .seconds(20)) { flag.isSet.withLock { $0 } }
    }.value
    XCTAssertEqual(outcome, .satisfied)
    XCTAssertLessThan(clock.now - start, .seconds(5), "seen by a check, not at the timeout")
  }

  func testWaitUntilTimesOutWithoutBusyLoopingOnTheMainThread() {
    XCTAssertTrue(Thread.isMainThread)
    let checks = Locked(0)
    let outcome = waitUntil(timeout: .milliseconds(200)) {
      checks.withLock { $0 += 1 }
      return false
    }
    XCTAssertEqual(outcome, .timedOut)
    XCTAssertLessThan(checks.value, 50, "the condition is checked on wake-ups, not in a loop")
  }

  func testWaitUntilTimesOutWithoutBusyLoopingOffTheMainThread() {
    let checks = Locked(0)
    let outcome = Locked<WaitOutcome?>(nil)
    Thread.detachNewThread {
      let result = waitUntil(timeout: .milliseconds(200)) {
        checks.withLock { $0 += 1 }
        return false
      }
      outcome.withLock { $0 = result }
      wakeWaiters()
    }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { outcome.value != nil }, .satisfied)
    XCTAssertEqual(outcome.value, .timedOut)
    XCTAssertLessThan(checks.value, 50)
  }

  func testWaitUntilOnTheMainThreadKeepsMainQueueWorkRunning() {
    for family in FamilyUnderTest.live {
      let ranOnMain = Locked(false)
      family.factory.main.after(.milliseconds(2)) {
        ranOnMain.withLock { $0 = Thread.isMainThread }
      }
      XCTAssertEqual(waitUntil(timeout: .seconds(20)) { ranOnMain.value }, .satisfied, family.name)
    }
  }
}

/// The seeds' examples on live schedulers (the immediate versions live in `ChronoscopeExamplesTests`).
extension SchedulerContractTests {
  func testContactLoaderOnLiveSchedulersCallsBackWithSortedContacts() {
    for family in FamilyUnderTest.live {
      let loader = ContactLoader(factory: family.factory) {
        [Contact(name: "b"), Contact(name: "a")]
      }
      let received = Locked<[Contact]?>(nil)
      loader.loadContacts { contacts in received.withLock { $0 = contacts } }
      XCTAssertEqual(waitUntil(timeout: .seconds(20)) { received.value != nil }, .satisfied)
      XCTAssertEqual(received.value?.map(\.name), ["a", "b"], family.name)
    }
  }

  func testMessageLoaderOnLiveSchedulersDeliversOnTheMainThread() {
    for family in FamilyUnderTest.live {
      let loader = MessageLoader(factory: family.factory) { ["one", "two"] }
      let received = Locked<(messages: [String], onMain: Bool)?>(nil)
      loader.load { messages in received.withLock { $0 = (messages, Thread.isMainThread) } }
      XCTAssertEqual(waitUntil(timeout: .seconds(20)) { received.value != nil }, .satisfied)
      XCTAssertEqual(received.value?.messages, ["one", "two"], family.name)
      XCTAssertEqual(received.value?.onMain, true, family.name)
    }
  }
}
