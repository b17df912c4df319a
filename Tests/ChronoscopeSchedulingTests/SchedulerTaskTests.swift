import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import XCTest

/// The cancellation handle on its own: no scheduler, no waiting.
final class SchedulerTaskTests: XCTestCase {
  private final class Observer: CancellationObserver {
    let calls = Locked(0)
    func schedulerTaskCancelled() { calls.withLock { $0 += 1 } }
  }

  func testCancelRunsTheHandlerOnceAndIsIdempotent() {
    let runs = Locked(0)
    let task = SchedulerTask { runs.withLock { $0 += 1 } }
    XCTAssertFalse(task.isCancelled)
    task.cancel()
    task.cancel()
    XCTAssertTrue(task.isCancelled)
    XCTAssertEqual(runs.value, 1)
  }

  func testEveryHandlerAndObserverRunsInTheOrderAdded() {
    let order = Locked<[String]>([])
    let first = Observer()
    let task = SchedulerTask()
    task.whenCancelled(notify: first)
    task.whenCancelled { order.withLock { $0.append("closure") } }
    let second = Observer()
    task.whenCancelled(notify: second)
    task.cancel()
    XCTAssertEqual(first.calls.value, 1)
    XCTAssertEqual(second.calls.value, 1)
    XCTAssertEqual(order.value, ["closure"])
  }

  func testAHandlerAddedAfterCancellingRunsAtOnce() {
    let task = SchedulerTask()
    task.cancel()
    let observer = Observer()
    task.whenCancelled(notify: observer)
    XCTAssertEqual(observer.calls.value, 1)
  }

  /// The handle holds its observers by hand (a retained word): each is let go of once, when the
  /// handle goes uncancelled, or as soon as it is cancelled, and none is let go of early.
  func testObserversAreReleasedOnceWhetherOrNotTheHandleIsCancelled() {
    for cancelFirst in [false, true] {
      weak var first: Observer?
      weak var second: Observer?
      weak var closureOwner: Observer?
      var task: SchedulerTask? = SchedulerTask()
      do {
        let one = Observer()
        let two = Observer()
        let owner = Observer()
        first = one
        second = two
        closureOwner = owner
        task?.whenCancelled(notify: one)
        // The second observer turns the single observer into a list: the list must take over
        // the first one's reference, not drop it.
        task?.whenCancelled(notify: two)
        task?.whenCancelled { owner.schedulerTaskCancelled() }
      }
      XCTAssertNotNil(first, "cancelFirst: \(cancelFirst)")
      XCTAssertNotNil(second)
      XCTAssertNotNil(closureOwner)
      if cancelFirst {
        task?.cancel()
        XCTAssertNil(first, "a cancelled handle keeps no observer")
        XCTAssertNil(second)
        XCTAssertNil(closureOwner)
      }
      task = nil
      XCTAssertNil(first, "cancelFirst: \(cancelFirst)")
      XCTAssertNil(second)
      XCTAssertNil(closureOwner)
    }
  }

  func testConcurrentCancelsRunHandlersExactlyOnce() {
    for _ in 0..<200 {
      let runs = Locked(0)
      let task = SchedulerTask { runs.withLock { $0 += 1 } }
      DispatchQueue.concurrentPerform(iterations: 8) { _ in task.cancel() }
      XCTAssertEqual(runs.value, 1)
    }
  }
}

/// A handle's work stays the closure it was given however often it is read: a closure kept as a
/// Mutex's bare value used to gain a reabstraction thunk on every read, so a timer's work grew a
/// level deeper each run until calling it overflowed the stack.
final class WorkTaskDepthTests: XCTestCase {
  func testReadingTheWorkForEveryRunDoesNotDeepenIt() {
    let runs = Locked(0)
    let task = WorkTask { runs.withLock { $0 += 1 } }
    for _ in 0..<300_000 { _ = task.workForRun }
    task.workForRun?()
    XCTAssertEqual(runs.value, 1, "called without a 600,000-deep chain of thunks")
  }
}
