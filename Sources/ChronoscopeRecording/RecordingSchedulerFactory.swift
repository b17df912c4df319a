import ChronoscopeScheduling
import ChronoscopeTraceFormat
import Foundation
import Logging
import Synchronization

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
  /// With ``environmentVariable``: a size (`64M`; `K`, `M`, `G` are binary) past which the file
  /// rotates (see ``TraceRotation``); in flight mode, the most the window keeps.
  public static let maxBytesVariable = "CHRONOSCOPE_TRACE_MAX_BYTES"
  /// With ``maxBytesVariable``: how many older files rotation keeps (1 if unset).
  public static let keepVariable = "CHRONOSCOPE_TRACE_KEEP"
  /// With ``environmentVariable``: flight mode, keeping this many seconds in memory (see
  /// ``FlightRecorder``) and writing them to the trace path on SIGUSR1, on a crash and at exit.
  public static let flightVariable = "CHRONOSCOPE_TRACE_FLIGHT"
  /// Set by the preload library of `chronoscope record` to the name of the process image whose
  /// trace it writes (its process id, `4242-exec1` after an `exec`: see `TraceProcessNames`): a
  /// recorder of its own in that process would write the same file, so the app's is not opened
  /// (the preload records the app's Dispatch work, the decorator's included). Children inherit
  /// it, which tells them a trace of their own is theirs to make.
  package static let preloadedVariable = "CHRONOSCOPE_TRACE_PRELOADED"

  /// Set to `1` by `chronoscope record`, which converts what its processes wrote when the
  /// program ends: a plain file is then written as a spool (see `TraceSpool`), which costs the
  /// recorder's writer a tenth of the lines' encoding. Without it, or for a rotating file, a
  /// flight recorder or a device, FIFO or socket, the trace's lines are written directly.
  package static let spoolVariable = "CHRONOSCOPE_TRACE_SPOOL"

  /// `factory`, recording as the environment asks when `CHRONOSCOPE_TRACE` names a trace path,
  /// and `factory` itself — untouched, at no cost — when it does not. The way to record an app
  /// in the field or in CI without changing its code: build its factory with this once.
  ///
  /// ```swift
  /// let factory = RecordingSchedulerFactory.recordingIfRequested(wrapping: .dispatch)
  /// // CHRONOSCOPE_TRACE=/tmp/app-%p.trace ./App                   → /tmp/app-4242.trace
  /// // … CHRONOSCOPE_TRACE_MAX_BYTES=64M CHRONOSCOPE_TRACE_KEEP=3   → rotates at 64 MiB
  /// // … CHRONOSCOPE_TRACE_FLIGHT=30 ./Server                       → the last 30 s, on
  /// //   `kill -USR1 <pid>`, on a crash and at exit
  /// ```
  ///
  /// `%p` in the path becomes the process id, so that several processes write several files.
  /// A file recording closes when the process exits normally and flushes on a crash. A path
  /// that cannot be opened, or a setting that cannot be read, is said once through `logger` (an
  /// error), and the app runs unrecorded; so is a write that fails later (a full disk), after
  /// which the file ends with a line saying so.
  ///
  /// - Parameters:
  ///   - factory: The app's factory, returned as it is when no recording is asked for.
  ///   - environment: Where to look (the process's environment by default).
  ///   - metadata: Key/values for the trace's header.
  ///   - logger: Where a recording that cannot start or write is said; the app's logging,
  ///     `Logger(label: "chronoscope")`, by default.
  public static func recordingIfRequested(
    wrapping factory: any SchedulerFactory,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    metadata: [String: String] = [:], logger: Logger = Logger(label: "chronoscope")
  ) -> any SchedulerFactory {
    guard
      let recorder = recorderIfRequested(
        environment: environment, metadata: metadata, logger: logger)
    else {
      return factory
    }
    return RecordingSchedulerFactory(wrapping: factory, recorder: recorder)
  }

  /// The recorder the environment asks for (see
  /// ``recordingIfRequested(wrapping:environment:metadata:logger:)``), or nil when it asks for
  /// none or the recording cannot start, which is said once through `logger`.
  package static func recorderIfRequested(
    environment: [String: String] = ProcessInfo.processInfo.environment,
    metadata: [String: String] = [:], logger: Logger = Logger(label: "chronoscope")
  ) -> TraceRecorder? {
    guard let template = environment[environmentVariable], !template.isEmpty else { return nil }
    if let image = environment[preloadedVariable],
      TraceProcessNames.process(of: image) == getpid()
    {
      return nil
    }
    let path = withProcessID(template)
    do {
      let settings = try RequestedRecording(environment)
      if let seconds = settings.flightSeconds {
        let flight = FlightRecorder(
          keeping: FlightRecorderWindow(
            keeping: .seconds(seconds), maxBytes: settings.maxBytes ?? (16 << 20)),
          crashDumpPath: path, metadata: metadata, logger: logger)
        flight.dump(on: SIGUSR1, to: path)
        flight.dumpAtExit(to: path)
        RequestedRecording.keepAlive(flight)
        return flight.recorder
      }
      // A write that fails later (a full disk) is said once through the logger, as a path that
      // cannot be opened is.
      let recorder = try TraceRecorder(
        path: path, clock: .host, metadata: metadata, bufferCapacity: 1 << 16,
        onError: { message in logger.error("\(message)") }, backgroundWriter: true,
        rotation: settings.maxBytes.map { TraceRotation(maxBytes: $0, keep: settings.keep) },
        spool: environment[spoolVariable] == "1")
      recorder.closeAtExit()
      return recorder
    } catch {
      logger.error("\(environmentVariable): not recording: \(error)")
      return nil
    }
  }
}

/// What the environment asks of a recording switched on from outside.
private struct RequestedRecording {
  var maxBytes: Int?
  var keep = 1
  var flightSeconds: Int64?

  struct Invalid: Error, CustomStringConvertible {
    let description: String
  }

  init(_ environment: [String: String]) throws(Invalid) {
    typealias Factory = RecordingSchedulerFactory
    if let text = environment[Factory.maxBytesVariable], !text.isEmpty {
      guard let bytes = Self.size(text), bytes >= 4_096 else {
        throw Invalid(
          description:
            "\(Factory.maxBytesVariable)=\(text.debugDescription): expected a size of 4K or more, such as 64M"
        )
      }
      maxBytes = bytes
    }
    if let text = environment[Factory.keepVariable], !text.isEmpty {
      guard let keep = Int(text), (0...1_000).contains(keep) else {
        throw Invalid(
          description:
            "\(Factory.keepVariable)=\(text.debugDescription): expected a count of files from 0 to 1000"
        )
      }
      self.keep = keep
    }
    if let text = environment[Factory.flightVariable], !text.isEmpty {
      guard let seconds = Int64(text), (1...86_400).contains(seconds) else {
        throw Invalid(
          description:
            "\(Factory.flightVariable)=\(text.debugDescription): expected seconds to keep, from 1 to 86400"
        )
      }
      flightSeconds = seconds
    }
  }

  /// `64M` as 67108864: digits and an optional binary `K`, `M` or `G`.
  static func size(_ text: String) -> Int? {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
    var digits = Substring(text)
    var unit = 1
    if let last = text.last?.uppercased().first, let scale = units[last] {
      digits = digits.dropLast()
      unit = scale
    }
    guard let count = Int(digits), count >= 0 else { return nil }
    let (bytes, overflow) = count.multipliedReportingOverflow(by: unit)
    return overflow ? nil : bytes
  }

  /// Flight recorders made from the environment live as long as the process.
  private static let alive = Mutex<[FlightRecorder]>([])

  static func keepAlive(_ flight: FlightRecorder) {
    alive.withLock { $0.append(flight) }
  }
}

/// `path` with each `%p` replaced by this process's id: how every trace path the recorder is
/// given from outside (environment, signal dumps, exit dumps) names one file per process.
func withProcessID(_ path: String) -> String {
  path.replacingOccurrences(of: "%p", with: String(ProcessInfo.processInfo.processIdentifier))
}
