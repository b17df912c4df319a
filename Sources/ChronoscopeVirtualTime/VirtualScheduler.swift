import ChronoscopeScheduling

/// A scheduler whose work runs only when its ``VirtualClock`` is advanced.
///
/// Made by ``VirtualSchedulerFactory``. `async` work is due now (it runs on the next advance or
/// run, even by zero), `after` work at now + delay, `every` work each interval; `sync` runs what
/// is already due and then the block, and returns its value.
public final class VirtualScheduler: Scheduler {
  public let label: String
  public let kind: SchedulerKind
  public var family: SchedulerFamily { .virtual }
  /// The clock this scheduler runs on.
  public let clock: VirtualClock

  /// What an exploration calls this scheduler's work (see ``Chain``).
  let chain: UInt64

  init(label: String, kind: SchedulerKind, clock: VirtualClock) {
    self.label = label
    self.kind = kind
    self.clock = clock
    chain = Chain.scheduler()
  }

  /// True while one of this scheduler's actions runs (on the thread driving the clock).
  public var isCurrent: Bool { ExecutionContext.isActive(self) }

  public func scheduleAsync(from callSite: CallSite, _ work: @escaping @Sendable () -> Void)
    -> SchedulerTask
  {
    clock.schedule(work, on: self, delay: 0, interval: nil, callSite: callSite)
  }

  public func scheduleAfter(
    _ delay: Duration, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    clock.schedule(
      work, on: self, delay: delay.clampedNanoseconds, interval: nil, callSite: callSite)
  }

  public func scheduleRepeating(
    every interval: Duration, firstAfter firstDelay: Duration, from callSite: CallSite,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    clock.schedule(
      work, on: self, delay: firstDelay.clampedNanoseconds, interval: interval.clampedNanoseconds,
      callSite: callSite)
  }

  /// The clock's time.
  public var now: SchedulerInstant { SchedulerInstant(nanoseconds: clock.now.clampedNanoseconds) }

  public func scheduleAt(
    _ deadline: SchedulerInstant, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    clock.schedule(work, on: self, at: deadline.nanoseconds, callSite: callSite)
  }

  public func scheduleSync<T, E: Error>(from callSite: CallSite, _ work: () throws(E) -> T)
    throws(E) -> T
  {
    if isCurrent { return try ExecutionContext.run(on: self, work) }
    return try clock.runSync(on: self, callSite: callSite, work)
  }
}

extension SchedulerFamily {
  /// Schedulers on a simulated clock.
  public static let virtual = SchedulerFamily(rawValue: "virtual")
}
