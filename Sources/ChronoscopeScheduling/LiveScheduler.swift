import ChronoscopeCore
import Dispatch
import Foundation

/// A scheduler on a real queue: Dispatch or OperationQueue, made by
/// ``DispatchSchedulerFactory`` or ``OperationQueueSchedulerFactory``.
///
/// On top of its queue it guarantees the ``Scheduler`` contract:
/// - A delayed or repeating action never runs early: if a timer fires before the due time, the
///   action waits for the remainder.
/// - A repeating action keeps its rhythm (each run is due one interval after the previous due
///   time); if it falls behind it runs as soon as possible without bursting to catch up.
/// - `sync` from code already running on this scheduler (or, for `main`, on the main thread) runs
///   inline. A chain of `sync` calls carries the schedulers it holds along, even when a queue runs
///   the block on another thread, so `a.sync { b.sync { a.sync { … } } }` runs inline too.
///   Waiting on a scheduler held by a thread that is *not* blocked in such a chain (a
///   semaphore, say) is outside what a scheduler can see.
package final class LiveScheduler: Scheduler {
  package let label: String
  package let kind: SchedulerKind
  package let family: SchedulerFamily
  private let executor: any LiveExecutor

  package init(
    label: String, kind: SchedulerKind, family: SchedulerFamily, executor: any LiveExecutor
  ) {
    self.label = label
    self.kind = kind
    self.family = family
    self.executor = executor
  }

  package var isCurrent: Bool {
    kind == .main ? Thread.isMainThread : ExecutionContext.isActive(self)
  }

  package func scheduleAsync(from callSite: CallSite, _ work: @escaping @Sendable () -> Void)
    -> SchedulerTask
  {
    // The block holds the handle, not the work: a cancel lets go of the work at once.
    let task = WorkTask(work)
    executor.execute { [self] in
      guard let work = task.takeForLastRun() else { return }
      run(work)
    }
    return task
  }

  package func scheduleAfter(
    _ delay: Duration, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    let task = WorkTask(work)
    execute(notBefore: Self.deadline(after: delay, from: Self.now()), task) { [self] _ in
      guard let work = task.takeForLastRun() else { return }
      run(work)
    }
    return task
  }

  package var now: SchedulerInstant { Self.hostNow }

  /// The host's monotonic time, as `DispatchTime` counts it.
  package static var hostNow: SchedulerInstant {
    SchedulerInstant(nanoseconds: Int64(clamping: now()))
  }

  package func scheduleAt(
    _ deadline: SchedulerInstant, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    let task = WorkTask(work)
    execute(notBefore: UInt64(max(deadline.nanoseconds, 0)), task) { [self] _ in
      guard let work = task.takeForLastRun() else { return }
      run(work)
    }
    return task
  }

  package func scheduleRepeating(
    every interval: Duration, firstAfter firstDelay: Duration, from callSite: CallSite,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    let task = WorkTask(work)
    let step = max(interval.clampedNanoseconds, 1)
    @Sendable func tick(_ due: UInt64) {
      execute(notBefore: due, task) { [self] due in
        guard let work = task.workForRun else { return }
        run(work)
        if task.isCancelled { return }
        tick(max(due &+ UInt64(step), Self.now()))
      }
    }
    tick(Self.deadline(after: firstDelay, from: Self.now()))
    return task
  }

  package func scheduleSync<T, E: Error>(from callSite: CallSite, _ work: () throws(E) -> T)
    throws(E) -> T
  {
    if isCurrent {
      return try ExecutionContext.run(on: self, work)
    }
    let held = ExecutionContext.snapshot()
    var result: Result<T, E>?
    executor.executeAndWait {
      result = Result { () throws(E) -> T in
        try ExecutionContext.run(on: self, inheriting: held, work)
      }
    }
    guard let result else { preconditionFailure("\(label): sync block did not run") }
    return try result.get()
  }

  // MARK: - Running

  private func run(_ work: @Sendable () -> Void) {
    ExecutionContext.run(on: self, work)
  }

  /// Calls `body(due)` on the context at or after `due` (host uptime in ns), unless `task` is
  /// cancelled first.
  private func execute(
    notBefore due: UInt64, _ task: SchedulerTask, _ body: @escaping @Sendable (UInt64) -> Void
  ) {
    executor.execute(at: DispatchTime(uptimeNanoseconds: due)) { [self] in
      if task.isCancelled { return }
      if Self.now() < due {
        execute(notBefore: due, task, body)
      } else {
        body(due)
      }
    }
  }

  private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

  private static func deadline(after delay: Duration, from now: UInt64) -> UInt64 {
    let nanoseconds = max(delay.clampedNanoseconds, 0)
    return now.adding(saturating: UInt64(nanoseconds))
  }
}
