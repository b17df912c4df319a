import Scheduling
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
