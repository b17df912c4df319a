import Foundation
import Recording
import Scheduling
import SchedulingTesting
import TestSupport
import TraceFormat
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
