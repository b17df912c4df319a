import ChronoscopeTestSupport
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
  /// `kill(2)`, which the session's own `kill()` hides inside the type.
  private let sendSignal = Glibc.kill
#elseif canImport(Darwin)
  import Darwin
  private let sendSignal = Darwin.kill
#endif

/// A program running in its own tmux server, for end-to-end tests of the terminal UI: type keys,
/// read the screen, resize, and see how it exited.
///
/// ```swift
/// let session = try TmuxSession(
///   executable: try ProductsDirectory.executable("chronoscope"), arguments: ["view", path])
/// defer { session.kill() }
/// try session.waitFor("event 0/")
/// session.sendKeys("n", "n")                 // two events on
/// try session.waitFor("event 2/")
/// session.sendKeys("q")
/// XCTAssertEqual(try session.waitForExit(), 0)
/// XCTAssertFalse(session.isInAlternateScreen())
/// ```
///
/// The server is private (`-L <unique socket>`) and reads no configuration (`-f /dev/null`), so
/// the user's tmux and its settings never matter. The command runs as
/// `<command>; echo EXIT=$?; sleep 30`: the pane stays open after the program ends, showing its
/// exit status (tmux 3.3a leaves `#{pane_dead_status}` empty for status 0).
///
/// Every wait polls the screen every 50 ms until its condition holds or its deadline passes; no
/// test sleeps for a fixed time.
///
/// - Warning: tmux 3.3a sets `TERM` in the pane from its `default-terminal` option
///   (`tmux-256color`), overriding the `TERM=xterm-256color` passed with `-e`.
final class TmuxSession {
  /// A wait that ran out of time (with the screen as it was last seen), or a server that did not
  /// start.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// The pane's size when it started.
  let width: Int
  let height: Int

  private let tmux: URL
  private let socket = "chronoscope-e2e-\(getpid())-\(UUID().uuidString.prefix(8))"
  private var socketPath: String?
  private var killed = false

  /// Starts `executable` with `arguments` in a new `width` × `height` pane.
  ///
  /// - Parameters:
  ///   - environment: Extra variables for the program. It otherwise sees only `PATH`, `HOME`,
  ///     `USER`, `LOGNAME`, `TMPDIR` from the test's environment, `LANG=C.UTF-8`,
  ///     `SWIFT_BACKTRACE=interactive=no` (so a crash prints its backtrace instead of waiting for a
  ///     key), and what tmux sets (`TERM`, `TMUX`, `TMUX_PANE`). Pass `["NO_COLOR": "1"]` to test
  ///     the monochrome screen.
  ///   - directory: The working directory of the program; the test's own when nil.
  /// - Throws: `XCTSkip` when tmux is not installed; an error when the server does not start.
  init(
    executable: URL, arguments: [String] = [], width: Int = 100, height: Int = 30,
    environment: [String: String] = [:], directory: URL? = nil
  ) throws {
    guard let tmux = Self.findTmux() else {
      throw XCTSkip("tmux is not installed; the end-to-end tests need it (apt-get install tmux)")
    }
    self.tmux = tmux
    self.width = width
    self.height = height

    let command = ([executable.path] + arguments).map(Self.shellQuoted).joined(separator: " ")
    var variables = [
      "LANG=C.UTF-8", "TERM=xterm-256color", "SWIFT_BACKTRACE=interactive=no",
    ]
    variables += environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    let (status, errors) = try startServer(
      ["-f", "/dev/null", "new-session", "-d", "-s", "s", "-x", "\(width)", "-y", "\(height)"]
        + (directory.map { ["-c", $0.path] } ?? [])
        + variables.flatMap { ["-e", $0] }
        + ["\(command); echo EXIT=$?; sleep 30"])
    guard status == 0 else {
      throw Failure(description: "tmux new-session failed with status \(status): \(errors)")
    }
    socketPath = try? run(["display-message", "-p", "-t", "s", "#{socket_path}"]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  deinit { kill() }

  /// Presses keys, named as tmux names them: `"q"`, `"Space"`, `"Enter"`, `"Escape"`, `"C-c"`,
  /// `"Right"`, `"PPage"`, `"BTab"`.
  func sendKeys(_ keys: String...) {
    _ = try? run(["send-keys", "-t", "s"] + keys)
  }

  /// Sends `signal` to the program (the child of the pane's shell), as `kill` would.
  ///
  /// - Throws: ``Failure`` when the program cannot be found (it has already ended).
  func signalProgram(_ signal: Int32) throws {
    _ = sendSignal(try programID(), signal)
  }

  /// The process id of the program (the child of the pane's shell).
  ///
  /// - Throws: ``Failure`` when the program cannot be found (it has already ended).
  func programID() throws -> pid_t {
    let shell = try run(["display-message", "-p", "-t", "s", "#{pane_pid}"]).output
      .trimmingCharacters(in: .whitespacesAndNewlines)
    // The pane's shell has one child while the program runs. Linux lists it under /proc;
    // elsewhere (macOS) pgrep finds it.
    #if os(Linux)
      let children =
        (try? String(
          contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)) ?? ""
    #else
      let children =
        (try? CommandRun.program(URL(fileURLWithPath: "/usr/bin/pgrep"), ["-P", shell]).output)?
        .replacingOccurrences(of: "\n", with: " ") ?? ""
    #endif
    guard let child = children.split(separator: " ").first.flatMap({ pid_t($0) }) else {
      throw Failure(description: "no program runs in the pane (shell \(shell))")
    }
    return child
  }

  /// Clicks the main button at a cell (0-based), as a terminal reports it to a program that
  /// asked for the mouse: X10 sequences `ESC [ M b x y` (each plus 32, the cell 1-based; `b` 0
  /// a press, 3 the release), which tmux's `kmous` names. Raw bytes, because `send-keys -M`
  /// only passes on a mouse event tmux itself received.
  func click(column: Int, row: Int) {
    let bytes = [0, 3].flatMap { [0x1B, 0x5B, 0x4D, 32 + $0, 33 + column, 33 + row] }
    _ = try? run(["send-keys", "-t", "s", "-H"] + bytes.map { String($0, radix: 16) })
  }

  /// Types `text` literally, character by character (no key names).
  func type(_ text: String) {
    _ = try? run(["send-keys", "-t", "s", "-l", text])
  }

  /// The visible screen as plain text, one line per row; empty if the server is gone.
  func capture() -> String {
    (try? run(["capture-pane", "-p", "-t", "s"]).output) ?? ""
  }

  /// The visible screen with its colours and attributes as escape sequences (`capture-pane -e`).
  func captureWithEscapes() -> String {
    (try? run(["capture-pane", "-p", "-e", "-t", "s"]).output) ?? ""
  }

  /// Waits until `text` is on the screen, and returns the screen.
  ///
  /// - Throws: ``Failure`` with the last screen when `timeout` passes first.
  @discardableResult
  func waitFor(_ text: String, timeout: Duration = .seconds(10)) throws -> String {
    try waitUntil("\"\(text)\" on screen", timeout: timeout) { $0.contains(text) }
  }

  /// Waits until `condition` holds for the screen, and returns the screen.
  ///
  /// - Throws: ``Failure`` with the last screen when `timeout` passes first.
  @discardableResult
  func waitUntil(
    _ what: String, timeout: Duration = .seconds(10), _ condition: (String) -> Bool
  ) throws -> String {
    let deadline = ContinuousClock.now + timeout
    while true {
      let screen = capture()
      if condition(screen) { return screen }
      guard ContinuousClock.now < deadline else {
        throw Failure(
          description: "timed out after \(timeout) waiting for \(what); screen:\n\(screen)")
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
  }

  /// Resizes the pane (and the program's terminal) to `width` × `height`.
  func resize(width: Int, height: Int) {
    _ = try? run(["resize-window", "-t", "s", "-x", "\(width)", "-y", "\(height)"])
  }

  /// Whether the program is showing the alternate screen: true while a full-screen UI runs, false
  /// once it has given the terminal back.
  func isInAlternateScreen() -> Bool {
    let flag = try? run(["display-message", "-p", "-t", "s", "#{alternate_on}"]).output
    return flag?.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
  }

  /// The program's exit status once it has ended (from the `EXIT=` line), else nil. A signal
  /// shows as 128 + its number, as the shell reports it.
  var exitStatus: Int32? { Self.exitStatus(on: capture()) }

  /// Waits for the program to end and returns its exit status.
  ///
  /// - Throws: ``Failure`` with the last screen when `timeout` passes first.
  func waitForExit(timeout: Duration = .seconds(10)) throws -> Int32 {
    let screen = try waitUntil("the program to exit", timeout: timeout) {
      Self.exitStatus(on: $0) != nil
    }
    return Self.exitStatus(on: screen) ?? -1
  }

  private static func exitStatus(on screen: String) -> Int32? {
    screen.split(separator: "\n").reversed().lazy
      .compactMap { line in line.hasPrefix("EXIT=") ? Int32(line.dropFirst(5)) : nil }
      .first
  }

  /// Stops the server and everything in it, and removes its socket. Safe to call more than once.
  func kill() {
    guard !killed else { return }
    killed = true
    _ = try? run(["kill-server"])
    if let socketPath, !socketPath.isEmpty {
      try? FileManager.default.removeItem(atPath: socketPath)
    }
  }

  /// Runs the command that starts the server, returning its status and error output.
  ///
  /// Not through `Process`: on Linux it learns that a child exited when a socket the child
  /// inherits closes, and the tmux server forked from this client inherits it too, so
  /// `waitUntilExit()` would wait for the server to end. `posix_spawn` with only the three standard
  /// descriptors redirected, and `waitpid` on the client alone, avoid that; errors go to a file,
  /// which the server may keep open without blocking anyone.
  private func startServer(_ arguments: [String]) throws -> (status: Int32, errors: String) {
    let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(socket).stderr")
    defer { try? FileManager.default.removeItem(at: errorFile) }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(
      &actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

    let argv = ([tmux.path, "-L", socket] + arguments).map { strdup($0) } + [nil]
    // The server, and so the program, gets only these from the test's environment: a stray
    // `NO_COLOR`, `TMUX` or `SHELL` must not change what the tests see.
    let inherited = ["PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "TMUX_TMPDIR"]
    let current = ProcessInfo.processInfo.environment
    let environment =
      inherited.compactMap { name in current[name].map { strdup("\(name)=\($0)") } } + [nil]
    defer { (argv + environment).forEach { free($0) } }

    var pid = pid_t()
    let spawned = posix_spawn(&pid, tmux.path, &actions, nil, argv, environment)
    guard spawned == 0 else {
      throw Failure(description: "cannot run \(tmux.path): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
    // WIFEXITED/WEXITSTATUS are macros Swift does not import.
    return ((status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), errors)
  }

  /// Runs one tmux command against the running server.
  private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = tmux
    process.arguments = ["-L", socket] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read before waiting: a child blocked on a full pipe would never exit.
    let out = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self))
  }

  private static func findTmux() -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let directories =
      path.split(separator: ":").map(String.init) + [
        "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin",
      ]
    for directory in directories {
      let url = URL(fileURLWithPath: directory).appendingPathComponent("tmux")
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    return nil
  }

  private static func shellQuoted(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
