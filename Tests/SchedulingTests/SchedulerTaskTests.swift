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
