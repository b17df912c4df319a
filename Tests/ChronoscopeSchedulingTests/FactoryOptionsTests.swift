import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Dispatch
import Foundation
import XCTest

/// Families by name, Dispatch options, and schedulers over queues the app already has.
final class FactoryOptionsTests: XCTestCase {
  private func family(of factory: any SchedulerFactory) -> SchedulerFamily {
    factory.makeSerial(label: "named").family
  }

  func testEveryFamilyIsReachableByNameWhereAFactoryIsExpected() {
    let clock = VirtualClock()
    XCTAssertEqual(family(of: .immediate), .immediate)
    XCTAssertEqual(family(of: .dispatch), .dispatch)
    XCTAssertEqual(family(of: .dispatch(qos: .utility)), .dispatch)
    XCTAssertEqual(family(of: .operationQueue), .operationQueue)
    XCTAssertEqual(family(of: .virtual(clock)), .virtual)
  }

  func testQueuesOfADispatchFactoryRunOnItsTargetWithItsQoS() {
    let target = DispatchQueue(label: "target")
    let key = DispatchSpecificKey<String>()
    target.setSpecific(key: key, value: "target")
    let factory = DispatchSchedulerFactory(qos: .userInitiated, target: target)
    XCTAssertEqual(factory.qos, .userInitiated)
    for scheduler in [factory.makeSerial(label: "s"), factory.makeConcurrent(label: "c")] {
      let seen = Locked<String?>(nil)
      scheduler.async { seen.withLock { $0 = DispatchQueue.getSpecific(key: key) } }
      XCTAssertEqual(waitUntil(timeout: .seconds(20)) { seen.value != nil }, .satisfied)
      XCTAssertEqual(seen.value, "target", "\(scheduler.kind) work runs on the target queue")
    }
  }

  func testASchedulerOverAnExistingDispatchQueueRunsItsWorkThere() {
    let queue = DispatchQueue(label: "app.delegate")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 7)
    let scheduler = DispatchSchedulerFactory.scheduler(wrapping: queue)
    XCTAssertEqual(scheduler.label, "app.delegate")
    XCTAssertEqual(scheduler.kind, .serial)
    let seen = Locked<Int?>(nil)
    let cancelled = Locked(false)
    scheduler.after(.seconds(3_600)) { cancelled.withLock { $0 = true } }.cancel()
    scheduler.async { seen.withLock { $0 = DispatchQueue.getSpecific(key: key) } }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { seen.value != nil }, .satisfied)
    XCTAssertEqual(seen.value, 7)
    XCTAssertEqual(scheduler.sync { DispatchQueue.getSpecific(key: key) }, 7)
    XCTAssertFalse(cancelled.value)
    XCTAssertTrue(
      DispatchSchedulerFactory.scheduler(wrapping: .main) === DispatchSchedulerFactory().main)
  }

  func testASchedulerOverAnExistingOperationQueueRunsItsWorkThere() {
    let queue = OperationQueue()
    queue.name = "session.delegate"
    queue.maxConcurrentOperationCount = 1
    let scheduler = OperationQueueSchedulerFactory.scheduler(wrapping: queue)
    XCTAssertEqual(scheduler.label, "session.delegate")
    XCTAssertEqual(scheduler.kind, .serial)
    let onQueue = Locked<Bool?>(nil)
    scheduler.async { onQueue.withLock { $0 = OperationQueue.current === queue } }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { onQueue.value != nil }, .satisfied)
    XCTAssertEqual(onQueue.value, true)
    let concurrent = OperationQueue()
    XCTAssertEqual(OperationQueueSchedulerFactory.scheduler(wrapping: concurrent).kind, .concurrent)
  }
}
