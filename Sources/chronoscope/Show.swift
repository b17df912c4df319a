import ArgumentParser
@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import Foundation

/// `chronoscope show FILE --at TIME`: the inspector's frame as plain text, for bug reports and CI.
struct Show: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the inspector's view of a trace at one instant, as plain text.",
    discussion: """
      Times are 1.25s, 300ms, 40us or 500ns; e120 is the 120th event (e0 the start); #12 is the \
      moment action 12 was scheduled. Bad values exit with status 2.
      """
  )

  @Argument(
    help: "The trace file; several files, one per process, share one timeline.",
    completion: .file())
  var files: [String]

  // Unconditional, so that `--at -1s` reaches the check that explains it.
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Where to look: a time (1.25s, 300ms), an event (e120) or an action (#12).",
      discussion:
        "By default the start (e0); with --action, the begin of the action's last run (for work that never ran, its finding's instant, else its cancel, else its schedule)."
    ))
  var at: String?

  @Option(
    help: ArgumentHelp(
      "The frame size, WIDTHxHEIGHT, from \(InspectorApp.minimumWidth)x\(InspectorApp.minimumHeight) to \(Self.maximumSize)x\(Self.maximumSize)."
    ))
  var size: String = "100x30"

  @Flag(help: "Lanes by thread instead of by scheduler.")
  var byThread = false

  @Flag(
    help:
      "Lanes by Swift task instead of by scheduler (a trace recorded with RecordingClock or RecordingSerialExecutor)."
  )
  var byTask = false

  @Option(help: "Keep only lanes whose names contain TEXT (Pending, Running and Events follow).")
  var filter: String?

  @Option(help: "Print the detail view of one action (12 or #12) instead of the main view.")
  var action: String?

  @Flag(help: "Append the trace's findings (as `chronoscope check` prints them) after the frame.")
  var findings = false

  static let maximumSize = 1000

  /// Reads `WIDTHxHEIGHT`, or says what is wrong with it.
  static func parseSize(_ text: String) -> Result<(width: Int, height: Int), ValidationError> {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
      return .failure(
        ValidationError("--size must be WIDTHxHEIGHT, such as 100x30; got \"\(text)\""))
    }
    let minimum = "\(InspectorApp.minimumWidth)x\(InspectorApp.minimumHeight)"
    guard width >= InspectorApp.minimumWidth, height >= InspectorApp.minimumHeight else {
      return .failure(ValidationError("--size \(text) is below the minimum, \(minimum)"))
    }
    guard width <= maximumSize, height <= maximumSize else {
      return .failure(
        ValidationError("--size \(text) is above the maximum, \(maximumSize)x\(maximumSize)"))
    }
    return .success((width, height))
  }

  func run() throws { try UsageFailure.reporting(show) }

  private func show() throws {
    let size: (width: Int, height: Int)
    do {
      size = try Self.parseSize(self.size).get()
    } catch {
      throw UsageFailure(error.message)
    }
    let target = try Self.target(at ?? "e0")
    var app: InspectorApp
    do { app = try TraceLoading.load(files) } catch { throw ExitCode(2) }
    try Self.check(target, in: app.replay, text: at ?? "e0")
    app.seek(to: target)
    if byThread, byTask { throw UsageFailure("--by-thread and --by-task: choose one") }
    if byThread { app.group(by: .byThread) }
    if byTask {
      guard !app.replay.tasks.isEmpty else {
        throw UsageFailure(
          "--by-task: the trace names no Swift task (its recording used no RecordingClock or RecordingSerialExecutor)"
        )
      }
      app.group(by: .byTask)
    }
    if let filter { app.filterLanes(filter) }
    var detail: ActionID?
    if let action {
      guard let id = ActionID(parsing: action) else {
        throw UsageFailure(
          "--action: \"\(TextWidth.sanitized(action))\" is not an action id (actions are written #12)"
        )
      }
      guard app.showDetail(of: id) else {
        throw UsageFailure("--action: the trace has no action \(id)")
      }
      if at == nil { app.seekToMostTellingInstant(of: id) }
      detail = id
    }
    print(
      app.render(width: size.width, height: size.height, colors: false, keyHints: false).plainText)
    // Why the action was late, when it was: what its detail view's `w` shows.
    if let detail, let why = app.whyLate(of: detail) {
      print("\n" + why.map(TextWidth.sanitized).joined(separator: "\n"))
    }
    if findings {
      print("\nFindings (\(app.findings.count))")
      for finding in app.findings {
        print(
          TextWidth.sanitized(
            FindingsReport.Entry(finding, blame: nil, in: app.replay)
              .line(file: files.joined(separator: " + "))))
      }
    }
  }

  /// What `--at TEXT` asks for, or a usage failure saying what is wrong with it (`view --at`
  /// reads it the same way).
  static func target(_ text: String) throws(UsageFailure) -> TimeText.Target {
    switch TimeText.target(text) {
    case .success(let target): return target
    case .failure(let problem): throw UsageFailure("--at: \(problem.description)")
    }
  }

  /// A target outside the trace is an error that names the trace's extent, not a silent clamp
  /// (the inspector's `@` prompt says the same).
  static func check(_ target: TimeText.Target, in replay: ReplayEngine, text: String) throws {
    if let problem = InspectorApp.problem(with: target, in: replay) {
      throw UsageFailure("--at \(text)\(problem)")
    }
  }
}

/// A bad option value: printed as `chronoscope: …` on stderr, exit status 2.
struct UsageFailure: Error, CustomStringConvertible {
  let description: String

  init(_ message: String) { description = message }

  /// Runs `body`; a usage failure it throws is printed as `chronoscope: …` and exits with
  /// status 2.
  static func reporting(_ body: () throws -> Void) throws {
    do {
      try body()
    } catch let failure as UsageFailure {
      standardError("chronoscope: \(TextWidth.sanitized(failure.description))")
      throw ExitCode(2)
    }
  }
}
