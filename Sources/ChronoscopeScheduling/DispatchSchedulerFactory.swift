import Dispatch

/// Makes schedulers backed by Dispatch queues: the default for apps.
///
/// ```swift
/// let app = AppRoot(factory: .dispatch)
/// let background = AppRoot(factory: .dispatch(qos: .utility))
/// let delegate = DispatchSchedulerFactory.scheduler(wrapping: existingQueue)
/// ```
public struct DispatchSchedulerFactory: SchedulerFactory {
  /// The quality of service of the queues it makes.
  public let qos: DispatchQoS
  /// The queue its queues target, if any (their work runs there, in their order).
  public let target: DispatchQueue?

  /// Makes a factory whose queues have `qos` and target `target`.
  public init(qos: DispatchQoS = .unspecified, target: DispatchQueue? = nil) {
    self.qos = qos
    self.target = target
  }

  /// A serial `DispatchQueue`.
  public func makeSerial(label: String) -> any Scheduler {
    LiveScheduler(
      label: label, kind: .serial, family: .dispatch,
      executor: DispatchExecutor(queue: DispatchQueue(label: label, qos: qos, target: target)))
  }

  /// A concurrent `DispatchQueue`.
  public func makeConcurrent(label: String) -> any Scheduler {
    LiveScheduler(
      label: label, kind: .concurrent, family: .dispatch,
      executor: DispatchExecutor(
        queue: DispatchQueue(label: label, qos: qos, attributes: .concurrent, target: target)))
  }

  /// A scheduler over a queue the app already has (a URLSession delegate queue, a library's
  /// queue): its work runs there. Its label is the queue's. `isCurrent` is true inside work this
  /// scheduler runs, not inside blocks others put on the queue directly — a `sync` from those
  /// would wait on the queue it holds.
  public static func scheduler(wrapping queue: DispatchQueue, kind: SchedulerKind = .serial)
    -> any Scheduler
  {
    // `DispatchQueue.main` is a new wrapper on each access on Linux: the label tells it.
    if queue.label == DispatchQueue.main.label { return mainScheduler }
    return LiveScheduler(
      label: queue.label, kind: kind, family: .dispatch, executor: DispatchExecutor(queue: queue))
  }

  /// `DispatchQueue.main`.
  public var main: any Scheduler { Self.mainScheduler }

  private static let mainScheduler = LiveScheduler(
    label: "main", kind: .main, family: .dispatch, executor: DispatchExecutor(queue: .main))
}

extension SchedulerFactory where Self == DispatchSchedulerFactory {
  /// Dispatch queues: `AppRoot(factory: .dispatch)`.
  public static var dispatch: DispatchSchedulerFactory { DispatchSchedulerFactory() }

  /// Dispatch queues with `qos`, targeting `target` if given.
  public static func dispatch(qos: DispatchQoS, target: DispatchQueue? = nil)
    -> DispatchSchedulerFactory
  {
    DispatchSchedulerFactory(qos: qos, target: target)
  }
}
