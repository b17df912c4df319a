import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTraceFormat
import Foundation

/// Loads a trace for the inspector, or explains on stderr why it cannot.
enum TraceLoading {
  /// The recording `swift run chronoscope` opens when given no file.
  static let bundledRecording = "Recordings/busy-app.trace"

  /// Finds the bundled recording as an installed tool finds its data: in the working directory
  /// (`swift run chronoscope` runs in the checkout), then in `share/chronoscope/` beside the
  /// `bin/` folder the executable is in (an install under a prefix). Nil when neither holds it.
  static func bundledPath() -> String? {
    if FileManager.default.fileExists(atPath: bundledRecording) { return bundledRecording }
    // The executable's own path (not argv[0], which is only a name when run through PATH).
    guard let executable = Bundle.main.executableURL else { return nil }
    let installed = executable.resolvingSymlinksInPath()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("share/chronoscope/busy-app.trace").path
    return FileManager.default.fileExists(atPath: installed) ? installed : nil
  }

  /// What `chronoscope` with no file prints when there is no bundled recording to open: how to
  /// open a trace, then the usage.
  static let howToOpen = """
    chronoscope: no trace to open. Name one:

      chronoscope view app.trace          the inspector (or just: chronoscope app.trace)
      chronoscope show app.trace --at 1s  one instant as text
      chronoscope check app.trace         the problems it finds

    Record a trace from an app with CHRONOSCOPE_TRACE=/tmp/app.trace ./MyApp (see the README);
    in a Chronoscope checkout, `swift run chronoscope` opens \(bundledRecording).

    """

  /// The most diagnostics printed for one file before the rest are only counted.
  static let diagnosticsShown = 20

  /// Why `path` cannot be read as a file at all — missing, a directory, a stream, unreadable —
  /// as the line to print (no position: the whole file is concerned), or nil when it can be
  /// read. Found without opening it: a FIFO nobody writes would hold `open()` for ever.
  static func fileProblem(_ path: String) -> String? {
    let name = TextWidth.sanitized(path)
    // What `-` means to other tools; read as a stream, it would wait for its end (see
    // `TraceReader.streamKind(of:)`). A file of that name is `./-`.
    if path == "-" {
      return "chronoscope: - (standard input) is not read: \(TraceReader.streamRefusal)"
    }
    if let kind = TraceReader.streamKind(of: path) {
      return "chronoscope: \(name) is \(kind), \(TraceReader.streamRefusal)"
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      return "chronoscope: no such file: \(name)"
    }
    if isDirectory.boolValue { return "chronoscope: \(name) is a directory, not a trace file" }
    if !FileManager.default.isReadableFile(atPath: path) {
      return "chronoscope: cannot read \(name): permission denied"
    }
    return nil
  }

  /// The lines that report `reading`'s problems with `path`: one line for a file that is not a
  /// trace at all; else its diagnostics of `severities`, at most ``diagnosticsShown``, then how
  /// many more there were. How the recording ended (`TraceReading.fate`: not closed, cut off,
  /// crashed or stopped, a failed write, dropped events) comes first, whatever the number of
  /// the others: it says whether they, and the trace, can be trusted.
  static func report(
    _ reading: TraceReading, of path: String,
    severities: Set<TraceDiagnostic.Severity> = [.error, .warning]
  ) -> [String] {
    let name = TextWidth.sanitized(path)
    if let reason = reading.notATrace {
      return ["\(name): not a chronoscope trace: \(TextWidth.sanitized(reason))"]
    }
    let fate = reading.fate.filter { severities.contains($0.severity) }.prefix(diagnosticsShown)
    // The reader's own "more problems not shown" line has column 0; the counts say it better.
    // One about the whole file (line 0: it changed while it was read) is shown without a place.
    let others = reading.diagnostics.filter {
      severities.contains($0.severity) && ($0.column > 0 || $0.line == 0) && !fate.contains($0)
    }
    let shown = fate + others.prefix(diagnosticsShown - fate.count)
    var lines = shown.map { line($0, of: path) }
    var more: [String] = []
    let errors = severities.contains(.error) ? reading.errorCount : 0
    let warnings = severities.contains(.warning) ? reading.warningCount : 0
    let moreErrors = errors - shown.count { $0.severity == .error }
    let moreWarnings = warnings - shown.count { $0.severity == .warning }
    if moreErrors > 0 { more.append("\(moreErrors) more error\(moreErrors == 1 ? "" : "s")") }
    if moreWarnings > 0 {
      more.append("\(moreWarnings) more warning\(moreWarnings == 1 ? "" : "s")")
    }
    if !more.isEmpty { lines.append("\(name): … and \(more.joined(separator: " and "))") }
    return lines
  }

  /// `diagnostic` as a report prints it: `file:line:column: severity: message`, or without a
  /// place for one about the whole file.
  static func line(_ diagnostic: TraceDiagnostic, of path: String) -> String {
    TextWidth.sanitized(
      diagnostic.line == 0
        ? "\(path): \(diagnostic.severity.rawValue): \(diagnostic.message)"
        : diagnostic.description)
  }

  /// Reads and prepares `path`; on errors prints them (file:line:column: message) to stderr and
  /// throws, before any terminal is touched. Shows a progress bar on stderr for large files.
  static func load(_ path: String, timeStep: Int64? = nil) throws -> InspectorApp {
    try load([path], timeStep: timeStep)
  }

  /// Reads and prepares `paths`, one trace per process, as one timeline (see `TraceMerge`).
  ///
  /// - Parameter opening: Whether the inspector is for the terminal, which draws its first
  ///   frame before the keyframes and the findings are made (``InspectorApp/opening(replay:name:timeStep:)``);
  ///   otherwise everything is made before this returns.
  static func load(_ paths: [String], timeStep: Int64? = nil, opening: Bool = false) throws
    -> InspectorApp
  {
    let replay = try loadReplay(paths)
    let name =
      paths.count == 1
      ? URL(fileURLWithPath: paths[0]).lastPathComponent
      : mergedName(paths.map { URL(fileURLWithPath: $0).lastPathComponent })
    // A fraction of a second to a second or two on ten million events, with no fraction to
    // show, so a line says what is happening.
    let analysing = replay.eventCount > 1_000_000 && isatty(2) != 0 ? ProgressBar(title: "") : nil
    defer { analysing?.finish() }
    if opening {
      analysing?.say("indexing the lanes…")
      return InspectorApp.opening(replay: replay, name: name, timeStep: timeStep)
    }
    // The findings pass on one core, the keyframes and the lanes' indexes on the other.
    analysing?.say("finding problems, indexing the lanes and the seeks…")
    return InspectorApp(replay: replay, name: name, timeStep: timeStep)
  }

  /// How several files merged on one timeline are named: `P1 a.trace + P2 b.trace`.
  static func mergedName(_ files: [String]) -> String {
    files.indices.map { "\(TraceMerge.tag($0)) \(files[$0])" }.joined(separator: " + ")
  }

  /// The replay of each file, or of all of them merged on one timeline (named as
  /// ``mergedName(_:)`` names them); `unreadable` when one could not be read (its problems are
  /// on stderr already).
  ///
  /// Each replay comes with what its reader said of the recording (``TraceReading/fate``: it did
  /// not close, crashed, dropped events…), each file's for a merged one, for a command that says
  /// so before what it found.
  static func replays(of files: [String], merged: Bool) -> (
    replays: [(file: String, replay: ReplayEngine, recording: [TraceDiagnostic])],
    unreadable: Bool
  ) {
    var replays: [(file: String, replay: ReplayEngine, recording: [TraceDiagnostic])] = []
    var unreadable = false
    for file in merged ? [mergedName(files)] : files {
      guard let (replay, recording) = try? loadReplayAndFate(merged ? files : [file]) else {
        unreadable = true
        continue
      }
      replays.append((file, replay, recording))
    }
    return (replays, unreadable)
  }

  /// Reads `paths`, one trace per process, and prepares them as one replay: a single file as
  /// it is, several merged on one timeline with each scheduler and thread named after its process.
  static func loadReplay(_ paths: [String]) throws -> ReplayEngine {
    try loadReplayAndFate(paths).replay
  }

  /// ``loadReplay(_:)-([String])``, and what each file's reader said of its recording.
  private static func loadReplayAndFate(_ paths: [String]) throws -> (
    replay: ReplayEngine, recording: [TraceDiagnostic]
  ) {
    guard paths.count > 1 else {
      guard let path = paths.first ?? bundledPath() else {
        standardError("chronoscope: no trace file given")
        throw AlreadyReported.failure
      }
      let (replay, reading) = try loadReplayAndReading(path)
      return (replay, reading.fate)
    }
    var traces: [Trace] = []
    var recording: [TraceDiagnostic] = []
    for path in paths {
      let (trace, fate) = try loadTraceAndFate(path)
      traces.append(trace)
      recording += fate
    }
    let merged: Trace
    do {
      merged = try TraceMerge.merge(traces, sources: paths)
    } catch {
      standardError("chronoscope: \(TextWidth.sanitized(error.description))")
      throw AlreadyReported.failure
    }
    return (prepare(merged), recording)
  }

  /// Reads and prepares `path` as a replay, preparing as it reads (see
  /// `ReplayEngine.read(path:…)`), without keyframes (see ``prepare(_:)``); errors as for
  /// ``load(_:timeStep:)``.
  static func loadReplay(_ path: String) throws -> ReplayEngine {
    try loadReplayAndReading(path).replay
  }

  /// `loadReplay` of one file, and what reading found: its warnings, which a command that
  /// goes on with what it could read may repeat.
  static func loadReplayAndReading(_ path: String) throws -> (
    replay: ReplayEngine, reading: TraceReading
  ) {
    try checkFile(path)
    let bars = progressBars(for: path)
    let (reading, replay) = ReplayEngine.read(
      path: path, makingKeyframes: false, reading: { bars.reading?.update($0) },
      preparing: { bars.preparing?.update($0) })
    bars.preparing?.finish()
    guard let replay else { throw unreadable(reading, path) }
    return (replay, reading)
  }

  /// Reads `path`; errors as for ``load(_:timeStep:)``.
  static func loadTrace(_ path: String) throws -> Trace {
    try loadTraceAndFate(path).trace
  }

  /// ``loadTrace(_:)``, and what its reader said of the recording (``TraceReading/fate``).
  private static func loadTraceAndFate(_ path: String) throws -> (
    trace: Trace, fate: [TraceDiagnostic]
  ) {
    try checkFile(path)
    let bars = progressBars(for: path)
    var reading = TraceReader.read(path: path) { bars.reading?.update($0) }
    bars.reading?.finish()
    // Taken out, so the trace is the events' only owner (see `prepare`).
    guard !reading.hasErrors, let trace = reading.trace.take() else {
      throw unreadable(reading, path)
    }
    return (trace, reading.fate)
  }

  /// Prints why `path` cannot be read at all, and throws, if it cannot.
  private static func checkFile(_ path: String) throws {
    if let problem = fileProblem(path) {
      standardError(problem)
      throw AlreadyReported.failure
    }
  }

  /// Progress bars on stderr for reading and preparing `path`, when it is large and stderr is a
  /// terminal. The preparing bar shows only what is left after reading.
  private static func progressBars(for path: String) -> (
    reading: ProgressBar?, preparing: ProgressBar?
  ) {
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    guard size > 8 << 20, isatty(2) != 0 else { return (nil, nil) }
    return (ProgressBar(title: "reading"), ProgressBar(title: "preparing"))
  }

  /// Prints `reading`'s errors with `path`, and returns the error to throw.
  private static func unreadable(_ reading: TraceReading, _ path: String) -> AlreadyReported {
    for line in report(reading, of: path, severities: [.error]) { standardError(line) }
    if !reading.hasErrors && reading.notATrace == nil {
      standardError("\(TextWidth.sanitized(path)): not a readable trace")
    }
    return .failure
  }

  /// The replay of `trace`, with a progress bar on stderr for large ones, and without its
  /// keyframes: `check`, `stats`, `export` and `diff` never seek, and the inspector makes them
  /// beside the findings (`InspectorApp.init`). The replay takes the trace's events and hands
  /// their memory back as it goes, so the caller passes its last copy.
  static func prepare(_ trace: consuming Trace) -> ReplayEngine {
    let preparing =
      trace.events.count > 1_000_000 && isatty(2) != 0 ? ProgressBar(title: "preparing") : nil
    let replay = ReplayEngine(consuming: consume trace, makingKeyframes: false) {
      preparing?.update($0)
    }
    preparing?.finish()
    return replay
  }
}

/// A failure already printed on stderr: the command exits 2 (bad input) and prints nothing more.
/// (Not ArgumentParser's `CleanExit`, which means the opposite: a success, such as `--help`.)
enum AlreadyReported: Error {
  case failure
}

func standardError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Writes `bytes` to standard output, after what `print` has buffered (flushed first), so a
/// report streamed a chunk at a time and the lines printed around it stay in order. Stops at a
/// write error (a closed pipe, say): there is nobody left to read the rest.
func standardOutput(_ bytes: UnsafeBufferPointer<UInt8>) {
  guard var next = bytes.baseAddress else { return }
  fflush(nil)
  var left = bytes.count
  while left > 0 {
    let written = write(1, next, left)
    if written < 0 && errno == EINTR { continue }
    guard written > 0 else { return }
    next += written
    left -= written
  }
}

/// Why a file operation failed, as the C library says it (`No such file or directory`), for a
/// message that names the path: Foundation's errors print as `Error Domain=NSCocoaErrorDomain
/// Code=512 "(null)"` on Linux, which says neither.
func fileErrorReason(_ error: any Error) -> String {
  let bridged = error as NSError
  if bridged.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(bridged.code))) }
  if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError {
    return fileErrorReason(underlying)
  }
  if bridged.domain == NSCocoaErrorDomain {
    switch CocoaError.Code(rawValue: bridged.code) {
    case .fileNoSuchFile, .fileReadNoSuchFile: return String(cString: strerror(ENOENT))
    case .fileReadNoPermission, .fileWriteNoPermission: return String(cString: strerror(EACCES))
    case .fileWriteOutOfSpace: return String(cString: strerror(ENOSPC))
    case .fileWriteVolumeReadOnly: return String(cString: strerror(EROFS))
    default: return "an error writing or reading the file (Foundation code \(bridged.code))"
    }
  }
  return TextWidth.sanitized(String(describing: error))
}

/// The C library's text for the last failed call's `errno`.
func lastErrorReason() -> String { String(cString: strerror(errno)) }

/// A one-line progress bar on stderr.
final class ProgressBar {
  private let title: String
  private var shown = -1

  init(title: String) { self.title = title }

  func update(_ fraction: Double) {
    let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
    guard percent != shown else { return }
    shown = percent
    let filled = percent * 30 / 100
    let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
    FileHandle.standardError.write(Data("\r\(title) \(bar) \(percent)%".utf8))
  }

  /// Shows `text` in place of the bar, for a step whose progress cannot be measured.
  func say(_ text: String) {
    FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
  }

  func finish() {
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }
}
