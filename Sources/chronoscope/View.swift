import ArgumentParser
import CMalloc
import Dispatch
import Foundation
import Inspector
import Replay
import Screen
import Terminal
import TraceFormat

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

  @Flag(help: "Draw without colours (also when NO_COLOR is set).")
  var noColor = false

  @Flag(
    help:
      "Follow a trace another process is still writing: new events appear; at the end the cursor moves with them (G goes back to the end)."
  )
  var follow = false

  func run() throws {
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
    // The file's state is taken before it is read, so that what is written meanwhile is read
    // at the first poll.
    var followed = follow ? FollowedFile(path: paths[0]) : nil
    var app: InspectorApp
    do {
      app = try TraceLoading.load(paths, timeStep: timeStep, opening: true)
    } catch {
      throw ExitCode(2)
    }
    // The inspector lives on after preparing, whose freed tables glibc would partly keep
    // (measured: 3 bytes an event on ten million): handed back now, as the library never does.
    _ = chronoscope_release_free_memory()
    if follow { app.startFollowing() }

    let terminal: TerminalSession
    do {
      terminal = try TerminalSession(colors: !noColor)
    } catch {
      standardError("chronoscope: cannot start the terminal UI: \(error)")
      throw ExitCode(2)
    }
    defer { terminal.stop() }
    // The inspector learns the size it draws at (a click's place, a too-small screen) from resizes.
    _ = app.handle(.resize(width: terminal.width, height: terminal.height))
    var last = DispatchTime.now().uptimeNanoseconds
    var changed = true
    while true {
      // A frame only when something changed: paused, the inspector waits for a key (or a
      // resize, or a signal) without waking, and draws nothing; playing, it draws 30 times a
      // second; following, it looks at the file every 250 ms and draws when the file grew;
      // while the keyframes and findings are still being made, it looks for them every 50 ms.
      if changed {
        terminal.draw(
          app.render(width: terminal.width, height: terminal.height, colors: terminal.hasColors))
      }
      let wasPlaying = app.state.playing
      let timeout =
        wasPlaying
        ? 33 : app.isPreparing ? 50 : followed == nil ? -1 : FollowedFile.interval
      let key = terminal.readKey(timeoutMilliseconds: timeout)
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
      changed = key != nil || wasPlaying
      if app.takePreparedWork() { changed = true }
      if let replay = followed?.poll() {
        app.follow(replay)
        changed = true
      }
    }
  }
}

/// A trace file another process is still writing, read again whenever it has changed.
///
/// Each change reads the whole file again (about 0.1 s per 10 MB here), at most every 250 ms; a
/// read with errors (a file being replaced, say) is skipped and the last good one stays. A final
/// line still being written is left for the next read, as the reader ignores a cut-off last line.
struct FollowedFile {
  let path: String
  private var seen: (size: Int64, modified: Date?)?
  private var lastPoll: UInt64 = 0
  /// How often the file is looked at, in milliseconds.
  static let interval = 250

  /// Starts following `path` as it is now.
  init(path: String) {
    self.path = path
    seen = Self.state(of: path)
  }

  private static func state(of path: String) -> (size: Int64, modified: Date?)? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let size = (attributes[.size] as? NSNumber)?.int64Value
    else { return nil }
    return (size, attributes[.modificationDate] as? Date)
  }

  /// The replay of the file's current contents if it changed since it was last read, else nil.
  mutating func poll() -> ReplayEngine? {
    let now = DispatchTime.now().uptimeNanoseconds
    guard now &- lastPoll >= UInt64(Self.interval) * 1_000_000 else { return nil }
    lastPoll = now
    guard let current = Self.state(of: path),
      current.size != seen?.size || current.modified != seen?.modified
    else { return nil }
    // Copied, not mapped: a followed file is one another process writes, and may truncate (a
    // recorder starting again at the same path), which would fault a mapping under the parser.
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let reading = data.withUnsafeBytes { raw in
      TraceReader.parse(raw.bindMemory(to: UInt8.self), file: path)
    }
    guard let trace = reading.trace, !reading.hasErrors else { return nil }
    seen = current
    return ReplayEngine(trace: trace)
  }
}
