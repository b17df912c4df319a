import ChronoscopeScheduling
import ChronoscopeTraceFormat

/// A scheduler that records everything it is asked to do, then forwards it unchanged.
///
/// ```swift
/// let recorder = try TraceRecorder(path: "queue.trace")
/// let queue = RecordingScheduler(wrapping: DispatchSchedulerFactory().makeSerial(label: "db"),
///                                recorder: recorder)
/// ```
///
/// It writes a `scheduler` line when made and, for each action, `schedule`, then `hop` (when
/// the action runs on another thread than the one that scheduled it), `begin` and `end` around
/// every run, and `cancel`. The action running on the scheduling thread is recorded as the
/// new action's parent, which is what makes causality visible in a trace.
///
/// It changes no behaviour of the wrapped scheduler — the contract suite runs against it — with
/// the edge cases decided as follows:
/// - **Cancel before the run starts:** recorded with `started: false`, and the action is
///   guaranteed not to run even if the wrapped scheduler was about to start it on another thread
///   (the decorator checks again, atomically, before beginning).
/// - **Cancel during a run:** the run finishes (`end` is still written) and is recorded with
///   `started: true`; a repeating action then stops.
/// - **Cancel after the last run, or a second cancel:** `cancel()` is idempotent; only the first
///   call is recorded. Work that an inline (immediate) scheduler already ran before returning
///   its handle cannot be affected by a cancel, so such cancels are not recorded at all.
/// - **Sync:** recorded as a `sync` schedule followed by its run; a re-entrant `sync` (onto a
///   scheduler the thread already holds) runs inline in the wrapped scheduler and is recorded
///   the same way, with the outer action as its parent.
/// - **Nested recorders:** wrapping a recording scheduler in another recorder works; each
///   recorder writes its own trace with its own ids, and neither sees the other's.
/// - **One recorder, many schedulers:** the normal case; every scheduler gets its own id and lane
///   and actions share one id space, so parents can cross schedulers.
/// - **Immediate and virtual schedulers:** their actions run on the scheduling thread, so no
///   hops are written; with a virtual recorder clock, timestamps are virtual.
public final class RecordingScheduler: Scheduler {
  /// The scheduler doing the work.
  public let wrapped: any Scheduler
  /// The recorder writing the trace.
  public let recorder: TraceRecorder
  /// This scheduler's id in the trace.
  public let traceID: UInt32
  private let core: RecorderCore

  /// Wraps `scheduler`, announcing it in the trace.
  public init(wrapping scheduler: any Scheduler, recorder: TraceRecorder) {
    wrapped = scheduler
    self.recorder = recorder
    core = recorder.core
    traceID = core.registerScheduler(
      label: scheduler.label, kind: scheduler.kind, family: scheduler.family)
  }

  public var label: String { wrapped.label }
  public var kind: SchedulerKind { wrapped.kind }
  public var family: SchedulerFamily { wrapped.family }
  public var isCurrent: Bool { wrapped.isCurrent }

  public func scheduleAsync(from callSite: CallSite, _ work: @escaping @Sendable () -> Void)
    -> SchedulerTask
  {
    core.recordScheduled(on: traceID, .async, delay: 0, callSite: callSite, work: work) {
      wrapped.scheduleAsync(from: callSite, fire($0))
    }
  }

  public func scheduleAfter(
    _ delay: Duration, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    core.recordScheduled(
      on: traceID, .after, delay: delay.clampedNanoseconds, callSite: callSite, work: work
    ) { wrapped.scheduleAfter(delay, from: callSite, fire($0)) }
  }

  public func scheduleRepeating(
    every interval: Duration, firstAfter firstDelay: Duration, from callSite: CallSite,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    // The trace's `delay` is the interval and its `due` the first run's.
    core.recordScheduled(
      on: traceID, .repeating, delay: interval.clampedNanoseconds,
      firstDelay: firstDelay.clampedNanoseconds, callSite: callSite, work: work
    ) {
      wrapped.scheduleRepeating(every: interval, firstAfter: firstDelay, from: callSite, fire($0))
    }
  }

  public var now: SchedulerInstant { wrapped.now }

  public func scheduleAt(
    _ deadline: SchedulerInstant, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    // Recorded as `after` with the delay left until the deadline on the wrapped clock.
    let delay = max((deadline - wrapped.now).clampedNanoseconds, 0)
    return core.recordScheduled(
      on: traceID, .after, delay: delay, callSite: callSite, work: work
    ) { wrapped.scheduleAt(deadline, from: callSite, fire($0)) }
  }

  public func scheduleSync<T, E: Error>(from callSite: CallSite, _ work: () throws(E) -> T)
    throws(E) -> T
  {
    // A sync onto a scheduler this thread already holds runs inline instead of deadlocking; the
    // trace says so (`"inline":true`), because it is a call that would have hung.
    try core.recordSync(on: traceID, callSite: callSite, inline: wrapped.isCurrent) {
      (action) throws(E) -> T in
      try wrapped.scheduleSync(from: callSite) { () throws(E) -> T in
        try action.withBuffer { (buffer) throws(E) -> T in
          let (run, start) = action.beginRun(on: buffer, force: true) ?? (1, 0)
          defer { action.endRun(run, startedAt: start, on: buffer) }
          return try work()
        }
      }
    }
  }

  // MARK: - Recording

  /// The work as the wrapped scheduler runs it: begin, the work, end — unless cancelled first.
  ///
  /// The closure captures the action alone, so Swift passes the action as its context and
  /// allocates nothing for it.
  private func fire(_ action: RecordedAction) -> @Sendable () -> Void {
    { [action] in action.fire() }
  }
}
