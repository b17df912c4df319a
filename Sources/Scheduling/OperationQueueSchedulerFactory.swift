import Foundation

/// Makes schedulers backed by `OperationQueue`s.
///
/// Serial schedulers are queues with `maxConcurrentOperationCount == 1`; `main` is
/// `OperationQueue.main`.
public struct OperationQueueSchedulerFactory: SchedulerFactory {
  /// Makes a factory.
  public init() {}

  /// An `OperationQueue` running one operation at a time.
  public func makeSerial(label: String) -> any Scheduler {
    let queue = OperationQueue()
    queue.name = label
    queue.maxConcurrentOperationCount = 1
    return LiveScheduler(
      label: label, kind: .serial, family: .operationQueue,
      executor: OperationQueueExecutor(queue: queue))
  }

  /// An `OperationQueue` with the system's default concurrency.
  public func makeConcurrent(label: String) -> any Scheduler {
    let queue = OperationQueue()
    queue.name = label
    return LiveScheduler(
      label: label, kind: .concurrent, family: .operationQueue,
      executor: OperationQueueExecutor(queue: queue))
  }

  /// `OperationQueue.main`.
  public var main: any Scheduler { Self.mainScheduler }

  private static let mainScheduler = LiveScheduler(
    label: "main", kind: .main, family: .operationQueue,
    executor: OperationQueueExecutor(queue: .main))
}
