import Dispatch
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A recorder that keeps only the recent past in memory and writes it to a file when asked — on
/// a call, on a signal you choose, and when the process crashes. For long-running servers, where
/// a full trace would grow without bound but the moments before a problem are what you need.
///
/// ```swift
/// let flight = try FlightRecorder(
///   keeping: FlightRecorderWindow(keeping: .seconds(30), maxBytes: 32 << 20),
///   crashDumpPath: "/var/tmp/server-crash.trace")
/// let factory = RecordingSchedulerFactory(wrapping: .dispatch, recorder: flight.recorder)
/// flight.dump(on: SIGUSR1, to: "/var/tmp/server-%p.trace")  // kill -USR1 <pid>
/// // … when something looks wrong:
/// try flight.dump(to: "/var/tmp/slow-request.trace")
/// ```
///
/// A dump is a normal trace — `chronoscope validate` accepts it and `chronoscope view` replays
/// it — that starts with the definitions and the live work it refers to: each action pending or
/// running at the window's start has its `schedule` (and its `begin`), a repeating action its
/// last run before the window, so run numbers, rhythm and lateness come out right. Its header
/// marks it as a window (`slice_of`, `slice_from_ns`, `slice_to_ns`, as `chronoscope slice`
/// does), so readers know that the app went on after it: work pending at its end is not lost,
/// and no timer there is leaked.
///
/// Recording costs what it costs for a file (see ``TraceRecorder``): threads buffer events and a
/// background thread encodes them every 100 ms — into memory here, in segments a few per window,
/// of which the oldest are let go. In the file, action ids are the recorder's own rather than
/// renumbered from 1, since the table that renumbers would grow with every action ever recorded.
public final class FlightRecorder: Sendable {
  /// The recorder to hand to ``RecordingSchedulerFactory`` or ``RecordingScheduler``.
  public let recorder: TraceRecorder
  private let sources = Mutex<[SignalSource]>([])
  private let logger: Logger

  /// Starts keeping `window` of recording in memory.
  ///
  /// - Parameters:
  ///   - window: How much of the recent past to keep.
  ///   - crashDumpPath: Where the window goes if the process crashes (SIGSEGV, SIGBUS, SIGILL —
  ///     Swift's traps —, SIGABRT, SIGTRAP), followed by what the threads had buffered and a
  ///     `crash` line; nil for no crash dump.
  ///   - clock: Host time, or a virtual clock for traces of tests.
  ///   - metadata: Key/values for the dumps' headers.
  ///   - bufferCapacity: The most events one thread buffers between the writer's passes.
  ///   - logger: Where a dump that fails on a signal or at exit is said (an error each time);
  ///     the app's logging, `Logger(label: "chronoscope")`, by default.
  public init(
    keeping window: FlightRecorderWindow = FlightRecorderWindow(), crashDumpPath: String? = nil,
    clock: TraceClock = .host, metadata: [String: String] = [:], bufferCapacity: Int = 1 << 16,
    logger: Logger = Logger(label: "chronoscope")
  ) {
    self.logger = logger
    recorder = TraceRecorder(
      core: RecorderCore(
        window: window, crashDumpPath: crashDumpPath, clock: clock, metadata: metadata,
        bufferCapacity: bufferCapacity),
      backgroundWriter: true)
  }

  deinit { close() }

  /// Writes the window, up to this moment, to `path` (replacing the file, which a reader never
  /// sees half written).
  ///
  /// - Throws: ``TraceRecorderError`` when the file cannot be written, or the recorder is closed.
  public func dump(to path: String) throws(TraceRecorderError) {
    try recorder.core.dump(to: path)
  }

  /// Dumps the window to `path` each time the process receives `signal` (`SIGUSR1`, say), until
  /// the recorder closes. `%p` in the path becomes the process id; each dump replaces the last.
  /// The signal's default action (for `SIGUSR1`, ending the process) is turned off. A dump that
  /// fails is said through the recorder's logger.
  public func dump(on signalNumber: Int32, to path: String) {
    let path = withProcessID(path)
    let source = DispatchSource.makeSignalSource(
      signal: signalNumber, queue: DispatchQueue(label: "chronoscope.flight-recorder.signal"))
    source.setEventHandler { [core = recorder.core, logger] in
      do {
        try core.dump(to: path)
      } catch {
        logger.error("flight recorder: \(error)")
      }
    }
    signal(signalNumber, SIG_IGN)
    sources.withLock { $0.append(SignalSource(source: source)) }
    source.resume()
  }

  /// Dumps the window to `path` when the process exits normally (returning from `main` or
  /// `exit()`), for a process whose last moments are wanted whatever happens. `%p` in the path
  /// becomes the process id. A dump that fails is said through the recorder's logger.
  public func dumpAtExit(to path: String) {
    RecorderRegistry.shared.dumpAtExit(recorder.core, to: withProcessID(path), logger: logger)
  }

  /// Stops recording and lets go of the window; later dumps throw. Calling it again does nothing.
  public func close() {
    for source in sources.withLock({ sources in
      defer { sources.removeAll() }
      return sources
    }) {
      source.source.cancel()
    }
    recorder.close()
  }
}

/// A signal source, which Dispatch makes safe to cancel from any thread.
// @unchecked Sendable: DispatchSource's methods are thread-safe; it is only resumed and cancelled.
private struct SignalSource: @unchecked Sendable {
  let source: any DispatchSourceSignal
}
