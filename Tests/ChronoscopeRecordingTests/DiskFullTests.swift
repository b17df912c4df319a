import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// When the disk fills up mid-recording, the recorder's counts must match the file: the lines
/// that reached it are written, everything else dropped.
final class DiskFullTests: XCTestCase {
  func testAfterAWriteFailureTheCountsMatchTheLinesInTheFile() throws {
    if ProcessInfo.processInfo.environment["CHRONOSCOPE_SANITIZER"] != nil {
      throw XCTSkip("a sanitizer's own file mappings fail under a file size limit (SIGBUS)")
    }
    let binary = try ProductsDirectory.executable("chronoscope-examples")
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("full-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    // A file size limit stands in for a full disk: past 64 KiB, write(2) fails with EFBIG (the
    // signal that would kill the child is ignored, as a full disk sends none).
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/sh")
    child.arguments = [
      "-c", "trap '' XFSZ; ulimit -f 128; exec \"$0\" stress --output \"$1\" --seconds 1",
      binary.path, path,
    ]
    let output = Pipe()
    let errors = Pipe()
    child.standardOutput = output
    child.standardError = errors
    try child.run()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let complaint = String(
      decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    XCTAssertEqual(child.terminationStatus, 0, complaint)
    XCTAssertTrue(complaint.contains("failed"), "the write failure is reported: \(complaint)")

    let counts = try XCTUnwrap(printed.split(separator: "\n").last { $0.hasPrefix("written ") })
    let numbers = counts.split(separator: " ").compactMap { Int64($0) }
    XCTAssertEqual(numbers.count, 2, String(counts))
    let reading = TraceReader.read(path: path)
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertNil(trace.closing, "the end marker did not fit")
    XCTAssertEqual(numbers[0], Int64(trace.events.count), "written counts the events in the file")
    XCTAssertGreaterThan(numbers[1], 0, "the rest were dropped")
    let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    XCTAssertLessThanOrEqual(size, 128 * 1024)
  }
}

extension DiskFullTests {
  /// The writer counts as written what a reader finds: when the disk fills as the last line's
  /// newline would go out, that line still reads as an event (the test above saw 1,020 events
  /// read and 1,019 counted when the limit fell there).
  func testALineThatLostOnlyItsNewlineCountsAsWrittenAsTheReaderReadsIt() throws {
    let lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"virtual","start":"","process":"t","pid":1}"#,
      #"{"t":1,"e":"begin","a":1,"th":1,"run":1}"#,
      #"{"t":2,"e":"end","a":1,"th":1,"run":1,"dur":1}"#,
    ].map { $0 + "\n" }
    let bytes = Array(lines.joined().utf8)
    let header = lines[0].utf8.count
    let ends = [header + lines[1].utf8.count, bytes.count].map { $0 - header }
    for reached in 0...(bytes.count - header) {
      let file = Array(bytes[..<(header + reached)])
      let read = try XCTUnwrap(TraceReader.parse(file, file: "t.trace").trace).events.count
      XCTAssertEqual(
        TraceWriter.linesRead(ending: ends, reached: reached), read, "\(reached) bytes reached")
    }
  }

  func testAHeaderThatCannotBeWrittenIsAnErrorOfInitNotACallback() throws {
    guard FileManager.default.fileExists(atPath: "/dev/full") else {
      throw XCTSkip("no /dev/full here")
    }
    let called = Locked(false)
    XCTAssertThrowsError(
      try TraceRecorder(path: "/dev/full", onError: { _ in called.withLock { $0 = true } })
    ) { error in
      XCTAssertTrue("\(error)".hasPrefix("cannot write /dev/full: "), "\(error)")
    }
    XCTAssertFalse(called.value, "onError is for the writer's failures, not init's")
  }
}

// MARK: - Said once, and said in the file (issue 29, item 10)

extension DiskFullTests {
  /// Runs `chronoscope-examples` with `arguments` under a file-size limit of `blocks` (a full
  /// disk's stand-in: write(2) fails with EFBIG) and returns its exit status and what it printed.
  private func runUnderFileSizeLimit(
    blocks: Int, _ arguments: [String], environment: [String: String] = [:]
  ) throws -> (status: Int32, output: String) {
    let run = try CommandRun.program(
      URL(fileURLWithPath: "/bin/sh"),
      [
        "-c", "trap '' XFSZ; ulimit -f \(blocks); exec \"$0\" \"$@\"",
        try ProductsDirectory.executable("chronoscope-examples").path,
      ] + arguments, environment: environment)
    return (run.status, run.output)
  }

  func testAFullDiskUnderRecordingIfRequestedIsSaidOnceAndTheTraceSaysTheWriteFailed() throws {
    if ProcessInfo.processInfo.environment["CHRONOSCOPE_SANITIZER"] != nil {
      throw XCTSkip("a sanitizer's own file mappings fail under a file size limit (SIGBUS)")
    }
    let path = temporaryTracePath("full-env")
    let run = try runUnderFileSizeLimit(
      blocks: 1, ["run", "message-loader"], environment: ["CHRONOSCOPE_TRACE": path])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertEqual(
      run.output.components(separatedBy: "chronoscope: writing \(path) failed").count - 1, 1,
      "said once: \(run.output)")
    let reading = TraceReader.read(path: path)
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics)")
    let messages = reading.diagnostics.map(\.message)
    XCTAssertTrue(
      messages.contains { $0.hasPrefix("writing the trace failed (File too large)") }, "\(messages)"
    )
    XCTAssertFalse(messages.contains { $0.contains("crashed") }, "\(messages)")
    XCTAssertEqual(try XCTUnwrap(reading.trace).writeFailure, "File too large")
  }

  func testARotatingRecordingStartsANewFileOnceThereIsRoomAgain() throws {
    if ProcessInfo.processInfo.environment["CHRONOSCOPE_SANITIZER"] != nil {
      throw XCTSkip("a sanitizer's own file mappings fail under a file size limit (SIGBUS)")
    }
    // Each file fails at the 64 KiB limit, far below the rotation's 1 MB: a new, empty file has
    // room again, as a disk has once space is freed.
    let folder = try temporaryFolder("full-rotating")
    let path = folder.appendingPathComponent("app.trace").path
    let run = try runUnderFileSizeLimit(
      blocks: 128, ["stress", "--output", path, "--seconds", "1", "--max-bytes", "1000000"])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertEqual(
      run.output.components(separatedBy: "failed").count - 1, 1, "said once: \(run.output)")
    let older = try XCTUnwrap(
      TraceReader.read(path: folder.appendingPathComponent("app.1.trace").path).trace)
    XCTAssertEqual(older.writeFailure, "File too large", "the failed file says why it ends")
    let newer = TraceReader.read(path: path)
    XCTAssertFalse(newer.hasErrors, "\(newer.diagnostics)")
    let trace = try XCTUnwrap(newer.trace)
    let window = try XCTUnwrap(trace.header.sliceWindow, "a rotated file is a window")
    XCTAssertGreaterThanOrEqual(
      window.lowerBound, try XCTUnwrap(older.events.last?.time), "it starts where the last ended")
    // How many depends on when the last failure fell in the run: the file that follows it
    // holds what came after, up to the close.
    XCTAssertGreaterThan(trace.events.count, 0, "recording went on")
  }
}
