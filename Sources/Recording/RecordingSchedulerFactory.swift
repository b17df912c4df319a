import Foundation
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

// MARK: - Recording switched on from outside

extension RecordingSchedulerFactory {
  /// The environment variable that switches recording on: a trace path.
  public static let environmentVariable = "CHRONOSCOPE_TRACE"

  /// `factory`, recording to the file that `CHRONOSCOPE_TRACE` names when it is set, and
  /// `factory` itself — untouched, at no cost — when it is not. The way to record an app in the
  /// field or in CI without changing its code: build its factory with this once.
  ///
  /// ```swift
  /// let factory = RecordingSchedulerFactory.recordingIfRequested(wrapping: .dispatch)
  /// // CHRONOSCOPE_TRACE=/tmp/app-%p.trace ./App   → /tmp/app-4242.trace
  /// ```
  ///
  /// `%p` in the path becomes the process id, so that several processes write several files.
  /// The recorder closes when the process exits normally and flushes on a crash. A path that
  /// cannot be opened is reported once on standard error, and the app runs unrecorded.
  ///
  /// - Parameters:
  ///   - environment: Where to look (the process's environment by default).
  ///   - metadata: Key/values for the trace's header.
  public static func recordingIfRequested(
    wrapping factory: any SchedulerFactory,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    metadata: [String: String] = [:]
  ) -> any SchedulerFactory {
    guard let template = environment[environmentVariable], !template.isEmpty else {
      return factory
    }
    let path = template.replacingOccurrences(
      of: "%p", with: String(ProcessInfo.processInfo.processIdentifier))
    do {
      let recorder = try TraceRecorder(path: path, metadata: metadata)
      recorder.closeAtExit()
      return RecordingSchedulerFactory(wrapping: factory, recorder: recorder)
    } catch {
      FileHandle.standardError.write(
        Data("chronoscope: \(environmentVariable): not recording: \(error)\n".utf8))
      return factory
    }
  }
}
