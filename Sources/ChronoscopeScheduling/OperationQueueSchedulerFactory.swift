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

  /// A scheduler over an `OperationQueue` the app already has (a URLSession delegate queue): its
  /// work runs there as operations. Serial when the queue runs one operation at a time.
  public static func scheduler(wrapping queue: OperationQueue) -> any Scheduler {
    if queue === OperationQueue.main { return mainScheduler }
    return LiveScheduler(
      label: queue.name ?? "operation queue",
      kind: queue.maxConcurrentOperationCount == 1 ? .serial : .concurrent,
      family: .operationQueue, executor: OperationQueueExecutor(queue: queue))
  }

  private static let mainScheduler = LiveScheduler(
    label: "main", kind: .main, family: .operationQueue,
    executor: OperationQueueExecutor(queue: .main))
}

extension SchedulerFactory where Self == OperationQueueSchedulerFactory {
  /// Operation queues: `AppRoot(factory: .operationQueue)`.
  public static var operationQueue: OperationQueueSchedulerFactory {
    OperationQueueSchedulerFactory()
  }
}
