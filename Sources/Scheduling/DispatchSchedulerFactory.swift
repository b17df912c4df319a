import Dispatch

/// Makes schedulers backed by Dispatch queues: the default for apps.
///
/// ```swift
/// let app = AppRoot(factory: DispatchSchedulerFactory())
/// ```
public struct DispatchSchedulerFactory: SchedulerFactory {
  /// Makes a factory.
  public init() {}

  /// A serial `DispatchQueue`.
  public func makeSerial(label: String) -> any Scheduler {
    LiveScheduler(
      label: label, kind: .serial, family: .dispatch,
      executor: DispatchExecutor(queue: DispatchQueue(label: label)))
  }

  /// A concurrent `DispatchQueue`.
  public func makeConcurrent(label: String) -> any Scheduler {
    LiveScheduler(
      label: label, kind: .concurrent, family: .dispatch,
      executor: DispatchExecutor(queue: DispatchQueue(label: label, attributes: .concurrent)))
  }

  /// `DispatchQueue.main`.
  public var main: any Scheduler { Self.mainScheduler }

  private static let mainScheduler = LiveScheduler(
    label: "main", kind: .main, family: .dispatch, executor: DispatchExecutor(queue: .main))
}
