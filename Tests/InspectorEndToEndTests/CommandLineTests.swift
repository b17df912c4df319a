import Foundation
import TestSupport
import XCTest

/// `chronoscope validate` and friends as a user runs them: output and exit status.
final class CommandLineTests: XCTestCase {
  private static let recordings = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = try ProductsDirectory.executable("chronoscope")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()  // before waiting: no full pipe
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  private func temporaryTrace(_ lines: [String]) throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("cli-\(UUID().uuidString).trace").path
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }

  private let header =
    #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"x","pid":1,"metadata":{}}"#

  func testValidateExitsZeroForEveryBundledRecording() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.recordings.path)
      .filter { $0.hasSuffix(".trace") }.map { Self.recordings.appendingPathComponent($0).path }
    let (status, output) = try run(["validate"] + files)
    XCTAssertEqual(status, 0, output)
    XCTAssertEqual(
      output.split(separator: "\n").filter { $0.hasSuffix("events") }.count, files.count)
  }

  func testValidateExitsOneForWarningsOnly() throws {
    let path = try temporaryTrace([header, #"{"t":1,"e":"begin","a":4,"th":1}"#])
    let (status, output) = try run(["validate", path])
    XCTAssertEqual(status, 1, output)
    XCTAssertEqual(output, "\(path):2:1: warning: action 4 begins but was never scheduled\n")
  }

  func testValidateExitsTwoForErrorsAndUnreadableFiles() throws {
    let path = try temporaryTrace([header, #"{"t":1,"e":"begin","a":4,"th":1"#, "\u{1B}[2J"])
    let (status, output) = try run(["validate", path, "/nonexistent.trace"])
    XCTAssertEqual(status, 2, output)
    XCTAssertTrue(output.contains("\(path):2:32: error: unterminated object"), output)
    XCTAssertTrue(
      output.contains("\(path):3:1: error: expected '{' at the start of the line, found byte 0x1B"),
      output)
    XCTAssertTrue(output.contains("/nonexistent.trace:0:0: error: no such file"), output)
    XCTAssertFalse(output.contains("\u{1B}"), "nothing from a trace reaches the terminal raw")
  }

  func testRecordExampleWritesATraceThatValidates() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("example-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (status, output) = try run(["record-example", "virtual-timeout", "--output", path])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("45 events written, 0 dropped"), output)
    XCTAssertEqual(try run(["validate", "--quiet", path]).status, 0)
  }
}
