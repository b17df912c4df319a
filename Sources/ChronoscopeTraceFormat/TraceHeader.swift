/// The first line of a trace: what recorded it, when, and on which clock.
public struct TraceHeader: Sendable, Equatable {
  /// The trace format version this library writes and reads.
  public static let currentVersion = 1

  /// Which clock the timestamps come from.
  public enum ClockKind: String, Sendable, CaseIterable {
    /// The host's monotonic clock: nanoseconds of real time since the recording started.
    case host
    /// A virtual-time clock: nanoseconds of simulated time since it started.
    case virtual
  }

  /// The format version the file was written with.
  public var version: Int
  /// The clock behind the timestamps.
  public var clock: ClockKind
  /// When the recording started, as an ISO 8601 wall-clock time.
  public var start: String
  /// The recording process's name.
  public var process: String
  /// The recording process's id.
  public var pid: Int64
  /// The processor cores of the recording machine, when the recorder wrote them (minor revision;
  /// older traces have none).
  public var cores: Int?
  /// The wall-clock instant of time 0 of the trace, in nanoseconds since 1970 (minor revision;
  /// older traces and reproducible recordings have none). It lines up the traces of several
  /// processes on one timeline.
  public var startNanoseconds: Int64?
  /// Free-form key/value pairs the app passed in, sorted by key.
  public var metadata: [String: String]

  /// Makes a header.
  public init(
    version: Int = TraceHeader.currentVersion, clock: ClockKind, start: String, process: String,
    pid: Int64, metadata: [String: String] = [:]
  ) {
    self.version = version
    self.clock = clock
    self.start = start
    self.process = process
    self.pid = pid
    self.metadata = metadata
  }
}

// MARK: - Slices

extension TraceHeader {
  /// The metadata key that names the file a slice was cut from (`chronoscope slice`).
  public static let sliceSourceKey = "slice_of"
  /// The metadata key of a slice's first instant, in trace nanoseconds.
  public static let sliceFromKey = "slice_from_ns"
  /// The metadata key of a slice's last instant, in trace nanoseconds.
  public static let sliceToKey = "slice_to_ns"

  /// The window a slice was cut to, when the trace is one (its metadata says so with two valid
  /// times, the first no later than the second). Its end is where the slice stops, not where the
  /// app stopped recording: work pending there may well have run later.
  public var sliceWindow: ClosedRange<Int64>? {
    guard let fromText = metadata[Self.sliceFromKey], let toText = metadata[Self.sliceToKey],
      let from = Int64(fromText), let to = Int64(toText),
      (0...TraceLimits.maximumTime).contains(from), (from...TraceLimits.maximumTime).contains(to)
    else { return nil }
    return from...to
  }
}

/// How `chronoscope record` tells its run's traces from other runs' in the same folder: the
/// variable it sets to a token of its run, which the preload library writes into each trace's
/// header metadata under ``metadataKey``.
package enum RecordSession {
  /// The variable `chronoscope record` sets for the program's processes.
  package static let variable = "CHRONOSCOPE_RECORD_SESSION"
  /// The header metadata key the token goes to.
  package static let metadataKey = "record-session"
}
