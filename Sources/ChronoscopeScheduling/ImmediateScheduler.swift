/// A scheduler that runs everything inline, on the caller's thread, before returning.
///
/// Use it to make a test fully synchronous: arrange, act, assert, with no waiting.
///
/// Time is not simulated. Its rules, chosen so tests of code that only hops between queues just
/// work, and documented here because they differ from live schedulers:
/// - `async` runs the work before returning.
/// - `after(_:)` runs the work before returning, ignoring the delay.
/// - `every(_:)` runs the work once, before returning, and never again.
/// - `sync` runs inline; so nested calls never deadlock.
/// - `isCurrent` is true inside one of its actions.
///
/// Code whose behaviour depends on *when* things happen (timeouts, retries, debouncing) needs a
/// virtual-time scheduler instead, which moves a simulated clock under the test's control.
public final class ImmediateScheduler: Scheduler {
  public let label: String
  public let kind: SchedulerKind
  public var family: SchedulerFamily { .immediate }

  /// Makes an immediate scheduler.
  public init(label: String, kind: SchedulerKind = .serial) {
    self.label = label
    self.kind = kind
  }

  public var isCurrent: Bool { ExecutionContext.isActive(self) }

  public func scheduleAsync(from callSite: CallSite, _ work: @escaping @Sendable () -> Void)
    -> SchedulerTask
  {
    ExecutionContext.run(on: self, work)
    return .finished()
  }

  public func scheduleAfter(
    _ delay: Duration, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    ExecutionContext.run(on: self, work)
    return .finished()
  }

  public func scheduleRepeating(
    every interval: Duration, firstAfter firstDelay: Duration, from callSite: CallSite,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    ExecutionContext.run(on: self, work)
    return .finished()
  }

  /// The host's monotonic time: the immediate family keeps no clock of its own.
  public var now: SchedulerInstant { LiveScheduler.hostNow }

  public func scheduleAt(
    _ deadline: SchedulerInstant, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    ExecutionContext.run(on: self, work)
    return .finished()
  }

  public func scheduleSync<T, E: Error>(from callSite: CallSite, _ work: () throws(E) -> T)
    throws(E) -> T
  {
    try ExecutionContext.run(on: self, work)
  }
}
