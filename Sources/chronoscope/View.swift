import ArgumentParser
import Dispatch
import Foundation
import Inspector
import Replay
import Screen
import Terminal

/// `chronoscope view [FILE]`: the interactive inspector. With no file it opens the bundled
/// recording, so `swift run chronoscope` shows something real at once.
struct View: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Replay a trace step by step in the terminal (the default command).",
    discussion: "With no file, opens \(TraceLoading.bundledRecording). Press ? inside for the keys."
  )

  @Argument(
    help:
      "The trace file (default: the bundled recording); several files, one per process, share one timeline.",
    completion: .file())
  var files: [String] = []

  @Option(help: "How far t / T step, e.g. 10ms (default: a fiftieth of the trace).")
  var step: String?

  @Flag(help: "Draw without colours (also when NO_COLOR is set).")
  var noColor = false

  func run() throws {
    let paths = files.isEmpty ? [TraceLoading.bundledPath()] : files
    var timeStep: Int64?
    if let step {
      guard case .time(let value) = TimeText.parse(step), value > 0 else {
        throw ValidationError("--step must be a duration such as 10ms")
      }
      timeStep = value
    }
    var app: InspectorApp
    do { app = try TraceLoading.load(paths, timeStep: timeStep) } catch { throw ExitCode(2) }

    let terminal: TerminalSession
    do {
      terminal = try TerminalSession(colors: !noColor)
    } catch {
      standardError("chronoscope: cannot start the terminal UI: \(error)")
      throw ExitCode(2)
    }
    defer { terminal.stop() }
    var last = DispatchTime.now().uptimeNanoseconds
    while true {
      terminal.draw(
        app.render(width: terminal.width, height: terminal.height, colors: terminal.hasColors))
      let key = terminal.readKey(timeoutMilliseconds: app.state.playing ? 33 : 250)
      if let signal = terminal.interruption {
        // Ctrl-C or SIGTERM: give the terminal back, then exit 130 / 143 as shells report a
        // signal. A plain exit rather than re-raising keeps the calling shell running.
        terminal.stop()
        throw ExitCode(128 + signal)
      }
      let now = DispatchTime.now().uptimeNanoseconds
      app.tick(elapsed: Int64(now - last))
      last = now
      if let key, !app.handle(key) { break }
    }
  }
}
