import Scheduling

/// Wraps a factory so that every scheduler it makes is recorded: one line at the composition
/// root records a whole app.
///
/// ```swift
/// let recorder = try TraceRecorder(path: "app.trace")
/// let factory = RecordingSchedulerFactory(wrapping: DispatchSchedulerFactory(), recorder: recorder)
/// let app = AppRoot(factory: factory)
/// ```
///
/// `main` is wrapped once, so every caller gets the same recording main scheduler.
public struct RecordingSchedulerFactory: SchedulerFactory {
  /// The factory doing the work.
  public let wrapped: any SchedulerFactory
  /// The recorder writing the trace.
  public let recorder: TraceRecorder
  private let recordedMain: RecordingScheduler

  /// Wraps `factory`, recording to `recorder`.
  public init(wrapping factory: any SchedulerFactory, recorder: TraceRecorder) {
    wrapped = factory
    self.recorder = recorder
    recordedMain = RecordingScheduler(wrapping: factory.main, recorder: recorder)
  }

  public func makeSerial(label: String) -> any Scheduler {
    RecordingScheduler(wrapping: wrapped.makeSerial(label: label), recorder: recorder)
  }

  public func makeConcurrent(label: String) -> any Scheduler {
    RecordingScheduler(wrapping: wrapped.makeConcurrent(label: label), recorder: recorder)
  }

  public var main: any Scheduler { recordedMain }
}
