import ChronoscopeScheduling
import ChronoscopeTraceFormat

/// A clock that records every sleep, then sleeps on the clock it wraps — `ContinuousClock`,
/// `SuspendingClock` or a `VirtualAsyncClock` — unchanged.
///
/// ```swift
/// let recorder = try TraceRecorder(path: "/tmp/app.trace")
/// let clock = RecordingClock(wrapping: ContinuousClock(), recorder: recorder, label: "search")
/// let results = try await withTimeout(.seconds(5), clock: clock) { try await api.search(query) }
/// ```
///
/// In the trace, the clock is a lane (its label, kind `concurrent`, family `clock`), and each
/// sleep is an action on it:
/// - `schedule` (mode `after`, `delay` the time left until the deadline), with the recorded
///   action running on the sleeping thread, if any, as parent, and the caller's call site when
///   the call is ``sleep(for:tolerance:fileID:line:function:)`` on a `RecordingClock` itself.
///   Code generic over `some Clock` calls `Clock`'s own `sleep`, which has no way to pass the
///   caller's site (and an async function has no return address to find it by), so those sleeps
///   have none: name their work (`WorkContext`) to tell them apart;
/// - when the sleep returns, `begin` and `end` at once on the thread the task resumed on — with a
///   `hop` when that is another thread than the one it slept on, as a task's resumption often is;
/// - when the sleep throws (the task was cancelled), `cancel`, not started;
/// - a `task` line after the schedule, naming the sleeping task by the runtime's id.
///
/// So the inspector shows each sleep as pending work on the clock's lane until it is due, and
/// `check` finds sleeps that woke late. What it does not see: time spent between sleeps, and the
/// task's other suspensions (awaiting an actor or a continuation); see docs/AsyncVirtualTime.md.
public struct RecordingClock<Wrapped: Clock>: Clock where Wrapped.Duration == Duration {
  /// The wrapped clock's instant: a recording clock tells the same time.
  public typealias Instant = Wrapped.Instant
  /// Durations are `Swift.Duration`, as the clocks this wraps use.
  public typealias Duration = Swift.Duration

  /// The clock doing the sleeping.
  public let wrapped: Wrapped
  /// The recorder writing the trace.
  public let recorder: TraceRecorder
  /// This clock's lane id in the trace.
  public let traceID: UInt32

  /// Wraps `clock`, announcing it in the trace as a lane named `label`.
  public init(wrapping clock: Wrapped, recorder: TraceRecorder, label: String = "sleep") {
    wrapped = clock
    self.recorder = recorder
    traceID = recorder.core.registerScheduler(label: label, kind: .concurrent, family: .clock)
  }

  public var now: Instant { wrapped.now }

  public var minimumResolution: Duration { wrapped.minimumResolution }

  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try await sleep(until: deadline, tolerance: tolerance, from: nil)
  }

  /// Sleeps for `duration`, recording the caller's call site with the sleep: what the
  /// inspector shows in Pending, where a sleep through `Clock`'s own `sleep(for:)` shows none.
  ///
  /// ```swift
  /// try await clock.sleep(for: .milliseconds(300))   // Search.swift:42 in the trace
  /// ```
  public func sleep(
    for duration: Duration, tolerance: Duration? = nil, fileID: StaticString = #fileID,
    line: UInt = #line, function: StaticString = #function
  ) async throws {
    try await sleep(
      until: now.advanced(by: duration), tolerance: tolerance,
      from: CallSite(fileID: fileID, line: line, function: function))
  }

  private func sleep(until deadline: Instant, tolerance: Duration?, from callSite: CallSite?)
    async throws
  {
    let core = recorder.core
    let action = core.recordSchedule(
      on: traceID, .after, delay: now.duration(to: deadline).clampedNanoseconds,
      callSite: callSite, work: nil, task: TaskIdentity.current)
    do {
      try await wrapped.sleep(until: deadline, tolerance: tolerance)
    } catch {
      action.schedulerTaskCancelled()
      throw error
    }
    action.withBuffer { buffer in
      if let (run, start) = action.beginRun(on: buffer) {
        action.endRun(run, startedAt: start, on: buffer)
      }
    }
  }
}

extension SchedulerFamily {
  /// A `Clock`'s sleeps, recorded by ``RecordingClock``.
  public static let clock = SchedulerFamily(rawValue: "clock")
}
