import ChronoscopeScheduling
import ChronoscopeVirtualTime

/// A scheduler of a ``ReplayingSchedulerFactory``: what the code schedules on it goes to the
/// replay, which runs it on the wrapped virtual scheduler at its recorded time.
final class ReplayingScheduler: Scheduler {
  let wrapped: any Scheduler
  private let core: ReplayCore

  init(wrapping wrapped: any Scheduler, core: ReplayCore) {
    self.wrapped = wrapped
    self.core = core
  }

  var label: String { wrapped.label }
  var kind: SchedulerKind { wrapped.kind }
  var family: SchedulerFamily { wrapped.family }
  var isCurrent: Bool { wrapped.isCurrent }
  var now: SchedulerInstant { wrapped.now }

  func scheduleAsync(from callSite: CallSite, _ work: @escaping @Sendable () -> Void)
    -> SchedulerTask
  {
    core.schedule(work, on: wrapped, from: callSite, .async)
  }

  func scheduleAfter(
    _ delay: Duration, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    core.schedule(work, on: wrapped, from: callSite, .after(delay))
  }

  func scheduleRepeating(
    every interval: Duration, firstAfter firstDelay: Duration, from callSite: CallSite,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    core.schedule(
      work, on: wrapped, from: callSite, .repeating(every: interval, firstAfter: firstDelay))
  }

  func scheduleAt(
    _ deadline: SchedulerInstant, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    core.schedule(work, on: wrapped, from: callSite, .at(deadline))
  }

  /// Runs `work` now, as the virtual scheduler does: the caller waits for it, so it cannot
  /// wait for its recorded turn. It counts as the trace's action all the same.
  func scheduleSync<T, E: Error>(from callSite: CallSite, _ work: () throws(E) -> T) throws(E)
    -> T
  {
    core.noteSync(on: wrapped, from: callSite)
    return try wrapped.scheduleSync(from: callSite, work)
  }
}
