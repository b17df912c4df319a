import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// `chronoscope record` at the edges of the process it runs: outputs that are not plain files,
/// rotation without `%p`, several runs given one path. Each run has a deadline: a recorder that
/// waits for a FIFO's reader would otherwise hang the test for ever. FIFOs are made inside a
/// temporary folder.
final class RecordEdgesTests: XCTestCase {
  /// Runs `record ARGUMENTS -- chronoscope-examples PROGRAM…` with a deadline.
  private func record(
    _ arguments: [String], program: [String], deadline: Double = 60
  ) throws -> (status: Int32, output: String, timedOut: Bool) {
    try CommandRun.chronoscope(
      ["record"] + arguments + [
        "--", try ProductsDirectory.executable("chronoscope-examples").path,
      ]
        + program, deadline: deadline)
  }

  func testAFlightRecordingOntoAFIFONobodyReadsNeitherHoldsTheExitNorTheCrash() throws {
    let folder = try temporaryFolder("record-flight-fifo")
    let fifo = folder.appendingPathComponent("flight.fifo").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    // At exit: the dump waited in `open` for a reader that never came.
    let exit = try record(["--flight", "5s", "-o", fifo], program: ["dispatch-semantics"])
    XCTAssertFalse(exit.timedOut, "the program's exit waited for a reader: \(exit.output)")
    XCTAssertEqual(exit.status, 0, exit.output)
    XCTAssertTrue(exit.output.contains("FIFO nobody reads"), exit.output)
    // After a crash: the crash dump waited there too, and the crashed process never ended.
    let crash = try record(
      ["--flight", "5s", "-o", fifo], program: ["dispatch-semantics", "--trap"])
    XCTAssertFalse(crash.timedOut, "the crashed program never ended: \(crash.output)")
    XCTAssertEqual(crash.status, 128 + SIGILL, crash.output)
    var status = stat()
    XCTAssertEqual(lstat(fifo, &status), 0)
    XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "the FIFO is still a FIFO")
  }

  func testRotationOntoAFIFOIsRefusedBeforeTheProgramRuns() throws {
    let folder = try temporaryFolder("record-rotate-fifo")
    let fifo = folder.appendingPathComponent("out.fifo").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let run = try record(
      ["--max-bytes", "4K", "--keep", "0", "-o", fifo], program: ["dispatch-semantics"])
    XCTAssertEqual(run.status, 2, run.output)
    XCTAssertTrue(run.output.contains("is a FIFO"), run.output)
    XCTAssertFalse(run.output.contains("barriers saw"), "the program did not run: \(run.output)")
    var status = stat()
    XCTAssertEqual(lstat(fifo, &status), 0)
    XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO)
  }

  func testRotatedFilesOfAPathWithoutPercentPAreReportedAndSymbolized() throws {
    let folder = try temporaryFolder("record-rotate-fixed")
    let path = folder.appendingPathComponent("r.trace").path
    let run = try record(
      ["--max-bytes", "8K", "--keep", "5", "-o", path],
      program: ["dispatch-semantics"])
    XCTAssertEqual(run.status, 0, run.output)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    XCTAssertGreaterThan(names.count, 1, "the trace rotated: \(names)")
    XCTAssertFalse(run.output.contains("no trace was written"), run.output)
    for name in names {
      let file = folder.appendingPathComponent(name).path
      XCTAssertTrue(run.output.contains("trace written to \(file)"), "\(name): \(run.output)")
      let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
      // The cap, a line and the end, past the live work a file opens with (200 items queued at
      // once take about 19 KiB); a cap checked only between flushes made files of megabytes.
      XCTAssertLessThanOrEqual(size, 32 << 10, name)
      let trace = try XCTUnwrap(TraceReader.read(path: file).trace, name)
      XCTAssertFalse(
        trace.callSites.values.contains { $0.function.hasPrefix("0x") }, "\(name) symbolized")
    }
  }

  func testRunsGivenOneFixedPathAtOnceNeverShareTheFile() throws {
    // Twelve runs with one `-o` left one trace with nine JSON errors: each truncated and wrote
    // the same file. Now the first holds it, and each other says why it is not recorded.
    let folder = try temporaryFolder("record-one-path")
    let path = folder.appendingPathComponent("shared.trace").path
    let program = try ProductsDirectory.executable("chronoscope-examples").path
    let first = Process()
    first.executableURL = try ProductsDirectory.executable("chronoscope")
    first.arguments = ["record", "-o", path, "--", program, "busy-dispatch", "--seconds", "2"]
    let firstOutput = Pipe()
    first.standardOutput = firstOutput
    first.standardError = firstOutput
    try first.run()
    // Once the first run's file exists, its recorder holds it.
    let start = Date()
    while !FileManager.default.fileExists(atPath: path), Date().timeIntervalSince(start) < 30 {
      usleep(10_000)
    }
    let second = try record(
      ["-o", path], program: ["busy-dispatch", "--seconds", "1"])
    let firstText = String(
      decoding: firstOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    first.waitUntilExit()
    XCTAssertEqual(first.terminationStatus, 0, firstText)
    XCTAssertEqual(second.status, 0, second.output)
    XCTAssertTrue(second.output.contains("another process is recording into it"), second.output)
    XCTAssertTrue(firstText.contains("trace written to \(path)"), firstText)
    let reading = TraceReader.read(path: path)
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics.prefix(3))")
    XCTAssertNotNil(reading.trace?.closing)
  }
}
