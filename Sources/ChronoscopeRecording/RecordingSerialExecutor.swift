import ChronoscopeScheduling
import ChronoscopeTraceFormat
import Dispatch

/// A serial executor for an actor that opts in, which records each of the actor's jobs as an
/// action on a lane of its own, then runs it on a serial Dispatch queue.
///
/// ```swift
/// actor Backend {
///   private let executor: RecordingSerialExecutor
///   nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
///   init(recorder: TraceRecorder) { executor = RecordingSerialExecutor(label: "Backend", recorder: recorder) }
/// }
/// ```
///
/// In the trace, the actor is a serial lane (family `actor`), and each job the runtime hands it
/// — a call into the actor, or the resumption of a method that awaited — is an action:
/// `schedule` on the thread that enqueued it, with the recorded action running there (another
/// such actor's job, or a scheduler's action) as its parent; then `hop`, `begin` and `end` on the
/// queue's thread. So a call from one recorded actor to another shows as an arrow between their
/// lanes, and the thread hops of async code show as hops. A `task` line after each schedule names
/// the Swift task the job runs, so the inspector can show tasks as lanes.
///
/// What it does not see: jobs of actors that did not opt in, and of tasks off any actor (the
/// global executor's), and the gaps between an actor's jobs while a method is suspended. See
/// docs/AsyncVirtualTime.md.
public final class RecordingSerialExecutor: SerialExecutor, @unchecked Sendable {
  // @unchecked Sendable: every stored property is immutable and itself thread-safe.
  /// The recorder writing the trace.
  public let recorder: TraceRecorder
  /// This executor's lane id in the trace.
  public let traceID: UInt32
  private let queue: DispatchQueue

  /// An executor whose jobs run on a new serial queue labelled `label`, recorded on a lane of
  /// that name.
  public init(label: String, recorder: TraceRecorder) {
    self.recorder = recorder
    queue = DispatchQueue(label: label)
    traceID = recorder.core.registerScheduler(label: label, kind: .serial, family: .actor)
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let core = recorder.core
    let action = core.recordSchedule(
      on: traceID, .async, delay: 0, callSite: nil, work: nil, task: TaskIdentity.task(of: job))
    queue.async { [self] in
      action.withBuffer { buffer in
        // Forced, as a `sync` run is: the job must run whatever the record says, or the actor
        // would stop.
        let (run, start) = action.beginRun(on: buffer, force: true) ?? (1, 0)
        job.runSynchronously(on: asUnownedSerialExecutor())
        action.endRun(run, startedAt: start, on: buffer)
      }
    }
  }

  /// Returns once every job enqueued so far has run, and its `end` has been recorded: call it
  /// before closing the recorder, since a job still finishing when the caller of the actor
  /// resumes would otherwise end after the close.
  public func waitForEnqueuedJobs() {
    queue.sync {}
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }
}

extension SchedulerFamily {
  /// An actor's jobs, recorded by ``RecordingSerialExecutor``.
  public static let actor = SchedulerFamily(rawValue: "actor")
}
