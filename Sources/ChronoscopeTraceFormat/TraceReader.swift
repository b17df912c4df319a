import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads trace files strictly and fast: a hand-written streaming parser for the schema.
///
/// Trace files come from bug reports, so nothing in one is trusted:
/// - every line that cannot be used is an error with file, line, byte column and reason —
///   unterminated strings, invalid UTF-8, wrong types, numbers too large or outside the ranges of
///   ``TraceLimits``, lines over ``maximumLineLength``, binary garbage — and reading goes on with
///   the next line;
/// - a final line cut off without its newline (a recording interrupted mid-write) is a warning;
/// - a file without a header, or with events before it, is an error; an unknown major version
///   stops the read with an error;
/// - a file another process truncates while it is read is one error, "the file changed while it
///   was read", never a crash (see `MappedFileFaults`);
/// - a FIFO, a socket or a device is refused at once, never waited on: traces are read from
///   regular files;
/// - unknown fields and unknown event types are ignored, so newer writers stay readable;
/// - semantic oddities are warnings: an action that begins without being scheduled or after
///   being cancelled, an end without its begin, a run that begins with run numbers missing
///   before it, a duplicate action id, a reference to an unknown scheduler, a line dated
///   before the line above it, and a trace without its end marker (the recording did not
///   close, so its last moments may be missing).
///
/// ```swift
/// let reading = TraceReader.read(path: "Recordings/timeout.trace")
/// reading.diagnostics.forEach { print($0) }   // file:line:column: error: message
/// ```
public enum TraceReader {
  /// The longest line read; longer ones are errors (a trace line is normally under 200 bytes).
  public static let maximumLineLength = 1 << 20
  /// After this many diagnostics a file stops being reported line by line.
  public static let maximumDiagnostics = 200

  /// Reads the file at `path`.
  ///
  /// - Parameters:
  ///   - path: The trace file.
  ///   - progress: Called now and then with the fraction of the file read, for a progress bar.
  public static func read(path: String, progress: ((Double) -> Void)? = nil) -> TraceReading {
    read(path: path, pageChunk: PageRelease.defaultChunk, progress: progress)
  }

  /// Reads the file at `path`, handing back the mapped file's pages every `pageChunk` bytes
  /// passed, on `workers` threads (by default as ``parse(_:file:progress:)`` chooses).
  ///
  /// - Parameter afterMapping: Runs once the file is mapped, before a byte of it is read: a
  ///   test truncates the file there.
  package static func read(
    path: String, workers: Int? = nil, pageChunk: Int, streamingTo stream: TraceEventStream? = nil,
    progress: ((Double) -> Void)? = nil, afterMapping: (() -> Void)? = nil
  ) -> TraceReading {
    if let kind = streamKind(of: path) {
      return TraceReading(
        trace: nil,
        diagnostics: [
          TraceDiagnostic(
            severity: .error, file: path, line: 0, column: 0, message: "\(kind), \(streamRefusal)")
        ])
    }
    // Mapped, not copied: a 700 MB trace costs no 700 MB buffer and no time filling it, and
    // the pages read are handed back as the reader passes them (see `MappedTraceFile`).
    if let file = MappedTraceFile(path: path) {
      afterMapping?()
      let reading = file.withBytes { bytes in
        parse(
          bytes, file: path, workers: workers ?? defaultWorkers(for: bytes.count),
          pageChunk: pageChunk, streamingTo: stream, progress: progress)
      }
      guard !file.changed else { return changedWhileRead(path) }
      return reading
    }
    // A regular file that cannot be mapped (an empty one, or mmap failing) is read whole.
    guard let data = FileManager.default.contents(atPath: path) else {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
      let reason =
        !exists
        ? "no such file"
        : isDirectory.boolValue ? "a directory, not a trace file" : "cannot read the file"
      return TraceReading(
        trace: nil,
        diagnostics: [
          TraceDiagnostic(severity: .error, file: path, line: 0, column: 0, message: reason)
        ])
    }
    return data.withUnsafeBytes { raw in
      parse(raw.bindMemory(to: UInt8.self), file: path, progress: progress)
    }
  }

  /// What `path` names when it is a FIFO, a socket or a device ("a FIFO"), else nil: a regular
  /// file, a directory or nothing, which reading reports its own way. Found with `stat`, which
  /// never waits.
  ///
  /// Traces are read from regular files only, and a stream is refused at once, with
  /// ``streamRefusal``: opening a FIFO nobody writes waits for a writer, and reading any stream
  /// waits for its end, so a reader (every command, `RecordedSchedule`) would hang on one.
  package static func streamKind(of path: String) -> String? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    switch status.st_mode & S_IFMT {
    case S_IFIFO: return "a FIFO"
    case S_IFSOCK: return "a socket"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    default: return nil
    }
  }

  /// Why a stream is not read, said after its kind (see ``streamKind(of:)``).
  package static let streamRefusal =
    "not a trace file: traces are read from regular files; save the stream to one first"

  /// The reading of a file another process truncated or rewrote while it was read: one error,
  /// since what was parsed mixes two files.
  static func changedWhileRead(_ path: String) -> TraceReading {
    TraceReading(
      trace: nil,
      diagnostics: [
        TraceDiagnostic(
          severity: .error, file: path, line: 0, column: 0,
          message:
            "the file changed while it was read (another process truncated or rewrote it); read it again once it is complete"
        )
      ])
  }

  /// Files this large or larger are read on every core (see ``parse(_:file:workers:progress:)``).
  static let parallelThreshold = 4 << 20

  /// Parses trace bytes; `file` names them in diagnostics. Large inputs are read on every core.
  public static func parse(
    _ bytes: UnsafeBufferPointer<UInt8>, file: String, progress: ((Double) -> Void)? = nil
  ) -> TraceReading {
    parse(bytes, file: file, workers: defaultWorkers(for: bytes.count), progress: progress)
  }

  /// Every core (up to 8) for `count` bytes from ``parallelThreshold`` on, else one.
  static func defaultWorkers(for count: Int) -> Int {
    count >= parallelThreshold ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
  }

  /// Parses trace bytes with the lines' reading spread over `workers` threads (1: the calling
  /// thread alone). The result is the same for any number of workers — the same trace and the
  /// same diagnostics in the same order; only the time differs.
  ///
  /// - Parameter stream: Takes the events as they are read, when the lines are read on several
  ///   threads (see ``TraceEventStream``).
  package static func parse(
    _ bytes: UnsafeBufferPointer<UInt8>, file: String, workers: Int, pageChunk: Int? = nil,
    streamingTo stream: TraceEventStream? = nil, progress: ((Double) -> Void)? = nil
  ) -> TraceReading {
    if TraceSpool.isSpool(UnsafeRawBufferPointer(bytes)) {
      return parseSpool(bytes, file: file, streamingTo: stream, progress: progress)
    }
    return withUnsafeTemporaryAllocation(of: FieldSlot.self, capacity: Key.allCases.count) {
      slots in
      guard let storage = slots.baseAddress else {
        return TraceReading(trace: nil, diagnostics: [])
      }
      storage.initialize(repeating: FieldSlot(value: .null, column: 0), count: slots.count)
      var parser = TraceParser(bytes: bytes, file: file, slots: storage)
      parser.pageChunk = pageChunk
      parser.stream = stream
      if workers > 1 {
        parser.runParallel(workers: workers, progress: progress)
      } else {
        parser.run(progress: progress)
      }
      return parser.result()
    }
  }

  /// Converts a recorder's spool (see ``TraceSpool``) to its trace's lines, with what converting
  /// found: set once by a program that links the recorder (the `chronoscope` command), which
  /// owns the writer the conversion runs. Where it is not set, a spool is refused with a message
  /// saying how to convert it.
  package typealias SpoolConverter =
    @Sendable (UnsafeRawBufferPointer, String) -> (lines: [UInt8], diagnostics: [TraceDiagnostic])

  private static let spoolConverter = Mutex<SpoolConverter?>(nil)

  /// Sets how spools are converted for reading (see ``SpoolConverter``).
  package static func convertSpools(with converter: @escaping SpoolConverter) {
    spoolConverter.withLock { $0 = converter }
  }

  /// Reads a spool: converted, then read as its trace; the diagnostics of the trace's lines name
  /// the file as converted, since their line numbers are the trace's, not the spool's.
  private static func parseSpool(
    _ bytes: UnsafeBufferPointer<UInt8>, file: String, streamingTo stream: TraceEventStream?,
    progress: ((Double) -> Void)?
  ) -> TraceReading {
    guard let convert = spoolConverter.withLock({ $0 }) else {
      let message =
        "the recorder's spool, not yet converted to its trace (its recording did not end under chronoscope record): chronoscope convert \(file) converts it"
      return TraceReading(
        trace: nil,
        diagnostics: [
          TraceDiagnostic(severity: .error, file: file, line: 0, column: 0, message: message)
        ], notATrace: message)
    }
    let converted = convert(UnsafeRawBufferPointer(bytes), file)
    var reading = converted.lines.withUnsafeBufferPointer { lines in
      parse(
        lines, file: "\(file) (converted from its spool)",
        workers: defaultWorkers(for: lines.count),
        streamingTo: stream, progress: progress)
    }
    reading.diagnostics = converted.diagnostics + reading.diagnostics
    if converted.lines.isEmpty { reading.notATrace = converted.diagnostics.first?.message }
    reading.errorCount += converted.diagnostics.count { $0.severity == .error }
    reading.warningCount += converted.diagnostics.count { $0.severity == .warning }
    reading.fate = converted.diagnostics.filter { $0.severity == .warning } + reading.fate
    return reading
  }

  /// Parses trace bytes; `file` names them in diagnostics.
  public static func parse(_ bytes: [UInt8], file: String) -> TraceReading {
    bytes.withUnsafeBufferPointer { parse($0, file: file) }
  }
}
