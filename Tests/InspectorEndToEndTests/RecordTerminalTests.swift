import Foundation
import TestSupport
import XCTest

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

  /// `chronoscope record` of feed-refresher with `mode`, outside a terminal, its trace in
  /// `folder`: it is started, `line` awaited on its output (condition-driven, with a generous
  /// deadline), `record` itself sent SIGINT, and its status and whole output returned.
  private func interruptRecord(of mode: String, after line: String, in folder: URL) throws
    -> (status: Int32, output: String)
  {
    let record = Process()
    record.executableURL = try chronoscope()
    record.arguments = try recordArguments(mode, in: folder)
    let output = Pipe()
    record.standardOutput = output
    record.standardError = output
    try record.run()
    // A watchdog, so that a signal lost on the way fails the test instead of hanging it: after
    // a generous minute, the program (record's child) and record are killed, which ends the
    // reads below.
    let stuck = record.processIdentifier
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(60)) {
      guard record.isRunning else { return }
      let children =
        (try? String(contentsOfFile: "/proc/\(stuck)/task/\(stuck)/children", encoding: .utf8))
        ?? ""
      for child in children.split(separator: " ").compactMap({ pid_t($0) }) { kill(child, SIGKILL) }
      kill(stuck, SIGKILL)
    }
    var text = ""
    while !text.contains(line) {
      let data = output.fileHandleForReading.availableData
      if data.isEmpty { break }
      text += String(decoding: data, as: UTF8.self)
    }
    XCTAssertTrue(text.contains(line), text)
    kill(record.processIdentifier, SIGINT)
    text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    record.waitUntilExit()
    return (record.terminationStatus, text)
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
