import ArgumentParser
import CChronoscopeShims
@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTerminal

/// `chronoscope view [FILE]`: the interactive inspector. With no file it opens the bundled
/// recording, so `swift run chronoscope` shows something real at once.
struct View: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Replay a trace step by step in the terminal (the default command).",
    discussion: """
      With no file, opens \(TraceLoading.bundledRecording) in a Chronoscope checkout, and \
      elsewhere says how to open a trace. Press ? inside for the keys.
      """
  )

  @Argument(
    help:
      "The trace file (default: the bundled recording); several files, one per process, share one timeline.",
    completion: .file())
  var files: [String] = []

  @Option(help: "How far t / T step, e.g. 10ms (default: a fiftieth of the trace).")
  var step: String?

  // Unconditional, so that `--at -1s` reaches the check that explains it (as in `show`).
  @Option(
    parsing: .unconditional,
    help: "Where to open: a time (1.25s, 300ms), an event (e120) or an action (#12), as show --at.")
  var at: String?

  @Flag(help: "Draw without colours (also when NO_COLOR is set).")
  var noColor = false

  @Flag(
    help:
      "Follow a trace another process is still writing: new events appear; at the end the cursor moves with them (G goes back to the end)."
  )
  var follow = false

  func run() throws { try UsageFailure.reporting(view) }

  private func view() throws {
    guard let paths = files.isEmpty ? TraceLoading.bundledPath().map({ [$0] }) : files else {
      // An installed binary run bare, outside the checkout: a request for orientation, not an
      // error, so status 0, as for --help.
      print(TraceLoading.howToOpen + Chronoscope.helpMessage())
      return
    }
    var timeStep: Int64?
    if let step {
      guard case .time(let value) = TimeText.parse(step), value > 0 else {
        throw ValidationError("--step must be a duration such as 10ms")
      }
      timeStep = value
    }
    if follow, paths.count != 1 {
      throw ValidationError("--follow follows one file")
    }
    let target = try at.map(Show.target)
    // The file's state is taken before it is read, so that what is written meanwhile is read
    // at the first poll.
    let followed = follow ? FollowedFile(path: paths[0]) : nil
    var app: InspectorApp
    do {
      app = try TraceLoading.load(paths, timeStep: timeStep, opening: true)
    } catch {
      throw ExitCode(2)
    }
    if let target, let at {
      try Show.check(target, in: app.replay, text: at)
      app.seek(to: target)
    }
    // The inspector lives on after preparing, whose freed tables glibc would partly keep
    // (measured: 3 bytes an event on ten million): handed back now, as the library never does.
    _ = chronoscope_release_free_memory()

    let terminal: TerminalSession
    do {
      terminal = try TerminalSession(colors: !noColor)
    } catch {
      standardError("chronoscope: cannot start the terminal UI: \(error)")
      throw ExitCode(2)
    }
    defer { terminal.stop() }
    if case .interrupted(let signal) = app.run(on: terminal, following: followed) {
      // Ctrl-C or SIGTERM: give the terminal back, then exit 130 / 143 as shells report a
      // signal. A plain exit rather than re-raising keeps the calling shell running.
      terminal.stop()
      throw ExitCode(128 + signal)
    }
  }
}

/// The terminal is where the CLI's inspector runs (`InspectorApp.run(on:following:)`).
extension TerminalSession: InspectorDisplay {}
