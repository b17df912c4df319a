import ChronoscopeTestSupport
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every command that reads traces refuses a FIFO and `-` (standard input) at once, with the
/// reason and status 2: a FIFO nobody writes held each of them in `open()` for ever (issue 37,
/// item 11).
final class StreamInputCommandTests: XCTestCase {
  /// Each reading command, with `input` where it takes a trace and `good` where it needs a
  /// second one.
  private func commands(reading input: String, good: String, output: String) -> [[String]] {
    [
      ["validate", input], ["check", input], ["stats", input], ["view", input],
      ["view", "--follow", input], ["show", input], ["export", input, "-o", output],
      ["redact", input, "-o", output], ["slice", input, "-o", output], ["diff", input, good],
      ["diff", good, input], ["check", "--merge", good, input],
    ]
  }

  func testAFIFOWithNoWriterIsRefusedAtOnceByEveryReadingCommand() throws {
    let folder = try temporaryFolder("stream-input")
    let fifo = folder.appendingPathComponent("t.trace").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let output = folder.appendingPathComponent("out").path
    for arguments in commands(
      reading: fifo, good: Recordings.path("busy-app"), output: output)
    {
      let run = try CommandRun.chronoscope(arguments, deadline: 10)
      XCTAssertFalse(run.timedOut, "\(arguments) waited on the FIFO: \(run.output)")
      XCTAssertEqual(run.status, 2, "\(arguments): \(run.output)")
      XCTAssertTrue(
        run.output.contains("\(fifo) is a FIFO, not a trace file"), "\(arguments): \(run.output)")
      XCTAssertFalse(FileManager.default.fileExists(atPath: output), "\(arguments) wrote")
    }
  }

  func testStandardInputIsRefusedAtOnceByEveryReadingCommand() throws {
    let folder = try temporaryFolder("stream-input")
    let output = folder.appendingPathComponent("out").path
    for arguments in commands(reading: "-", good: Recordings.path("busy-app"), output: output) {
      // Run where no file is named `-`: the name means standard input, which stays open.
      let run = try CommandRun.chronoscope(arguments, deadline: 10, in: folder)
      XCTAssertFalse(run.timedOut, "\(arguments) waited on standard input: \(run.output)")
      XCTAssertEqual(run.status, 2, "\(arguments): \(run.output)")
      XCTAssertTrue(
        run.output.contains("- (standard input) is not read"), "\(arguments): \(run.output)")
    }
  }
}
