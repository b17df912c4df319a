import Foundation
import TestSupport
import XCTest

/// `chronoscope record` between a program and its terminal: the program reads the terminal as it
/// would from the shell, and signals arrive once (found recording real programs: the program ran
/// in a group of its own, so reading the terminal failed with EIO).
final class RecordTerminalTests: XCTestCase {
  private func chronoscope() throws -> URL { try ProductsDirectory.executable("chronoscope") }

  func testAProgramReadsItsTerminalUnderRecord() throws {
    let folder = try temporaryFolder("record-terminal")
    let session = try TmuxSession(
      executable: try chronoscope(),
      arguments: [
        "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--",
        try ProductsDirectory.executable("feed-refresher").path, "--echo-input",
      ], width: 100, height: 20)
    _ = try session.waitFor("type a line")
    session.type("hello terminal")
    session.sendKeys("Enter")
    let screen = try session.waitFor("EXIT=")
    XCTAssertTrue(screen.contains("read: hello terminal"), screen)
    XCTAssertTrue(screen.contains("EXIT=0"), screen)
  }

  func testCtrlCReachesTheProgramOnceAndItsStatusPassesThrough() throws {
    let folder = try temporaryFolder("record-ctrl-c")
    let session = try TmuxSession(
      executable: try chronoscope(),
      arguments: [
        "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--",
        try ProductsDirectory.executable("feed-refresher").path, "--count-interrupts",
      ], width: 100, height: 20)
    _ = try session.waitFor("press Ctrl-C")
    session.sendKeys("C-c")
    let screen = try session.waitFor("EXIT=")
    XCTAssertTrue(screen.contains("interrupts: 1"), screen)
    XCTAssertTrue(screen.contains("EXIT=0"), screen)
  }

  func testASignalSentToRecordIsPassedOnToTheProgram() throws {
    let folder = try temporaryFolder("record-kill")
    let record = Process()
    record.executableURL = try chronoscope()
    record.arguments = [
      "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--",
      try ProductsDirectory.executable("feed-refresher").path, "--count-interrupts",
    ]
    let output = Pipe()
    record.standardOutput = output
    record.standardError = output
    try record.run()
    // Condition-driven: wait for the program to say it listens, then interrupt `record` alone.
    var text = ""
    let deadline = Date().addingTimeInterval(20)
    while !text.contains("press Ctrl-C"), Date() < deadline {
      text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    }
    XCTAssertTrue(text.contains("press Ctrl-C"), text)
    kill(record.processIdentifier, SIGINT)
    text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    record.waitUntilExit()
    XCTAssertEqual(record.terminationStatus, 0, text)
    XCTAssertTrue(text.contains("interrupts: 1"), text)
  }

  func testAHungProgramStoppedWithCtrlCShowsWhatItWaitedFor() throws {
    // A hang ends with Ctrl-C or `kill`: the trace once ended without what the recorder held,
    // and `check` saw nothing.
    let folder = try temporaryFolder("record-hang")
    let record = Process()
    record.executableURL = try chronoscope()
    record.arguments = [
      "record", "-o", folder.appendingPathComponent("h-%p.trace").path, "--",
      try ProductsDirectory.executable("feed-refresher").path, "--hang",
    ]
    let output = Pipe()
    record.standardOutput = output
    record.standardError = output
    try record.run()
    var text = ""
    let deadline = Date().addingTimeInterval(20)
    while !text.contains("waiting"), Date() < deadline {
      text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
    }
    kill(record.processIdentifier, SIGINT)
    text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    record.waitUntilExit()
    XCTAssertEqual(record.terminationStatus, 128 + SIGINT, text)
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
