import ChronoscopeScheduling

/// Makes ``VirtualScheduler``s that share one ``VirtualClock``.
///
/// ```swift
/// let clock = VirtualClock()
/// let loader = MessageLoader(factory: VirtualSchedulerFactory(clock: clock)) { ["hi"] }
/// loader.load { messages in … }
/// clock.run()   // background, then main: all on the test's thread, in order
/// ```
public struct VirtualSchedulerFactory: SchedulerFactory {
  /// The clock every scheduler of this factory runs on.
  public let clock: VirtualClock
  private let mainScheduler: VirtualScheduler

  /// Makes a factory over `clock`.
  public init(clock: VirtualClock) {
    self.clock = clock
    mainScheduler = clock.mainScheduler()
  }

  public func makeSerial(label: String) -> any Scheduler {
    VirtualScheduler(label: label, kind: .serial, clock: clock)
  }

  public func makeConcurrent(label: String) -> any Scheduler {
    VirtualScheduler(label: label, kind: .concurrent, clock: clock)
  }

  /// The clock's virtual main context: the same scheduler for every factory over one clock.
  public var main: any Scheduler { mainScheduler }
}

extension SchedulerFactory where Self == VirtualSchedulerFactory {
  /// Schedulers on `clock`'s virtual time: `MessageLoader(factory: .virtual(clock))`.
  public static func virtual(_ clock: VirtualClock) -> VirtualSchedulerFactory {
    VirtualSchedulerFactory(clock: clock)
  }
}
