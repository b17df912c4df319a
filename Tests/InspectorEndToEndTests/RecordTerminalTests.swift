import ChronoscopeTestSupport
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `chronoscope record` between a program and its terminal: the program reads the terminal as it
/// would from the shell, and signals arrive once (found recording real programs: the program ran
/// in a group of its own, so reading the terminal failed with EIO).
final class RecordTerminalTests: XCTestCase {
  private func chronoscope() throws -> URL { try ProductsDirectory.executable("chronoscope") }

  /// `record`'s arguments for feed-refresher run with `mode`, its trace in `folder`.
  private func recordArguments(_ mode: String, in folder: URL) throws -> [String] {
    [
      "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--",
      try ProductsDirectory.executable("feed-refresher").path, mode,
    ]
  }

  /// `record` of feed-refresher with `mode` in a terminal (tmux), once it has printed `line`.
  private func recordInTerminal(_ mode: String, after line: String) throws -> TmuxSession {
    let session = try TmuxSession(
      executable: try chronoscope(),
      arguments: try recordArguments(mode, in: try temporaryFolder("record-terminal")),
      width: 100, height: 20)
    _ = try session.waitFor(line)
    return session
  }

  /// `record` of feed-refresher with `mode`, outside a terminal, its trace in `folder`: it is
  /// started with every signal blocked (as a parent spawning it from one of Dispatch's threads
  /// leaves it), `line` awaited on its output, `record` itself sent SIGINT, and its status and
  /// whole output returned. A watchdog kills it and its program after a generous minute, so a
  /// signal lost on the way fails the test instead of hanging it.
  private func interruptRecord(of mode: String, after line: String, in folder: URL) throws
    -> (status: Int32, output: String)
  {
    var pipe: [Int32] = [0, 0]
    XCTAssertEqual(Glibc.pipe(&pipe), 0)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
    posix_spawn_file_actions_addclose(&actions, pipe[0])
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let arguments = [try chronoscope().path] + (try recordArguments(mode, in: folder))
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var record: pid_t = 0
    XCTAssertEqual(posix_spawn(&record, arguments[0], &actions, &attributes, &argv, environ), 0)
    close(pipe[1])
    let output = FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true)
    let stuck = record
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(60)) {
      guard kill(stuck, 0) == 0 else { return }
      let children =
        (try? String(contentsOfFile: "/proc/\(stuck)/task/\(stuck)/children", encoding: .utf8))
        ?? ""
      for child in children.split(separator: " ").compactMap({ pid_t($0) }) { kill(child, SIGKILL) }
      kill(stuck, SIGKILL)
    }
    var text = ""
    while !text.contains(line) {
      let data = output.availableData
      if data.isEmpty { break }
      text += String(decoding: data, as: UTF8.self)
    }
    XCTAssertTrue(text.contains(line), text)
    kill(record, SIGINT)
    text += String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
    var status: Int32 = 0
    while waitpid(record, &status, 0) < 0, errno == EINTR {}
    // The wait status: the signal in the low seven bits, else the exit status above them.
    return (status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), text)
  }

  func testAProgramReadsItsTerminalUnderRecord() throws {
    let session = try recordInTerminal("--echo-input", after: "type a line")
    session.type("hello terminal")
    session.sendKeys("Enter")
    let screen = try session.waitFor("EXIT=")
    XCTAssertTrue(screen.contains("read: hello terminal"), screen)
    XCTAssertTrue(screen.contains("EXIT=0"), screen)
  }

  func testCtrlCReachesTheProgramOnceAndItsStatusPassesThrough() throws {
    let session = try recordInTerminal("--count-interrupts", after: "press Ctrl-C")
    session.sendKeys("C-c")
    let screen = try session.waitFor("EXIT=")
    XCTAssertTrue(screen.contains("interrupts: 1"), screen)
    XCTAssertTrue(screen.contains("EXIT=0"), screen)
  }

  func testASignalSentToRecordIsPassedOnToTheProgram() throws {
    let run = try interruptRecord(
      of: "--count-interrupts", after: "press Ctrl-C", in: try temporaryFolder("record-kill"))
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("interrupts: 1"), run.output)
  }

  func testAHungProgramStoppedWithCtrlCShowsWhatItWaitedFor() throws {
    // A hang ends with Ctrl-C or `kill`: the trace once ended without what the recorder held,
    // and `check` saw nothing.
    let folder = try temporaryFolder("record-hang")
    let run = try interruptRecord(of: "--hang", after: "waiting", in: folder)
    XCTAssertEqual(run.status, 128 + SIGINT, run.output)
    let trace = try XCTUnwrap(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).first.map {
        folder.appendingPathComponent($0).path
      })
    let validation = try CommandRun.chronoscope(["validate", trace])
    XCTAssertTrue(validation.output.contains("was stopped by SIGINT"), validation.output)
    let check = try CommandRun.chronoscope(["check", trace])
    XCTAssertEqual(check.status, 1, check.output)
    XCTAssertTrue(check.output.contains("warning: lost-work"), check.output)
    XCTAssertTrue(check.output.contains("com.apple.main-thread"), check.output)
    XCTAssertTrue(check.output.contains("stopped by SIGINT"), check.output)
  }
}
