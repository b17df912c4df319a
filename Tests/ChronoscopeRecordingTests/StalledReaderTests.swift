import ChronoscopeTestSupport
import Foundation
import XCTest

/// A trace written into a FIFO whose reader stops reading: the recorder waits a bounded time for
/// it, then says so once and lets the app end, instead of holding its exit for ever.
final class StalledReaderTests: XCTestCase {
  /// A new FIFO, and its read end opened without waiting for a writer.
  private func fifoWithReader() throws -> (path: String, reader: Int32) {
    let fifo = try temporaryFolder("fifo").appendingPathComponent("trace.fifo").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let reader = open(fifo, O_RDONLY | O_NONBLOCK)
    XCTAssertGreaterThanOrEqual(reader, 0)
    return (fifo, reader)
  }

  func testAFIFOWhoseReaderStopsNeverHoldsTheAppsExit() throws {
    // A reader that opens the FIFO and never reads: the recorder's writes fill it.
    let (fifo, reader) = try fifoWithReader()
    defer { close(reader) }
    // `timeout` ends a child that hangs (status 124), so a regression fails instead of hanging.
    let (status, _, text) = try CommandRun.program(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "timeout", "60", try ProductsDirectory.executable("chronoscope-examples").path, "stress",
        "--output", fifo, "--seconds", "0.3",
      ])
    XCTAssertEqual(status, 0, text)
    XCTAssertEqual(
      text.components(separatedBy: "chronoscope: writing \(fifo) failed").count - 1, 1,
      "said once: \(text)")
    XCTAssertTrue(text.contains("the reader took nothing for"), text)
  }
}

extension StalledReaderTests {
  func testAFIFOWhoseReaderGoesAwayStopsTheRecordingNotTheApp() throws {
    let (fifo, reader) = try fifoWithReader()
    let child = Process()
    child.executableURL = try ProductsDirectory.executable("chronoscope-examples")
    child.arguments = ["stress", "--output", fifo, "--seconds", "0.5"]
    let output = Pipe()
    child.standardOutput = output
    child.standardError = output
    try child.run()
    // Take the header, then go away: the recorder's next write finds no reader. (A read before
    // the child opened its end would find nothing; the poll waits for the header, bounded so
    // that a child that fails to open fails the test instead of hanging it.)
    var ready = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
    XCTAssertEqual(poll(&ready, 1, 60_000), 1)
    var byte: UInt8 = 0
    XCTAssertEqual(read(reader, &byte, 1), 1)
    close(reader)
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    XCTAssertEqual(child.terminationReason, .exit, "no SIGPIPE: \(text)")
    XCTAssertEqual(child.terminationStatus, 0, text)
    XCTAssertEqual(
      text.components(separatedBy: "chronoscope: writing \(fifo) failed").count - 1, 1,
      "said once: \(text)")
  }
}
