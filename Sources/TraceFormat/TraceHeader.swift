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
