import ChronoscopeTestSupport
import Foundation
import XCTest

/// `chronoscope validate` and friends as a user runs them: output and exit status.
final class CommandLineTests: XCTestCase {
  private static let recordings = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  private static let packageRoot = recordings.deletingLastPathComponent()

  private func run(_ arguments: [String], in directory: URL? = nil) throws -> (
    status: Int32, output: String
  ) {
    try CommandRun.chronoscope(arguments, in: directory)
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
  private let close = #"{"t":100,"e":"close","events":1,"dropped":0}"#
  private let notClosed =
    "warning: the recording did not close: the process may have crashed or not called close(); the last moments may be missing"

  func testValidateExitsZeroForEveryBundledRecording() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.recordings.path)
      .filter { $0.hasSuffix(".trace") }.map { Self.recordings.appendingPathComponent($0).path }
    let (status, output) = try run(["validate"] + files)
    XCTAssertEqual(status, 0, output)
    XCTAssertEqual(
      output.split(separator: "\n").filter { $0.contains(": ok, ") }.count, files.count)
  }

  func testValidateExitsOneForWarningsOnly() throws {
    let path = try temporaryTrace([header, #"{"t":1,"e":"begin","a":4,"th":1}"#, close])
    let (status, output) = try run(["validate", path])
    XCTAssertEqual(status, 1, output)
    XCTAssertEqual(output, "\(path):2:1: warning: action #4 begins but was never scheduled\n")
  }

  func testValidateExitsTwoForErrorsAndUnreadableFiles() throws {
    let path = try temporaryTrace([header, #"{"t":1,"e":"begin","a":4,"th":1"#, "\u{1B}[2J"])
    let (status, output) = try run(["validate", path, "/nonexistent.trace"])
    XCTAssertEqual(status, 2, output)
    XCTAssertTrue(output.contains("\(path):2:32: error: unterminated object"), output)
    XCTAssertTrue(
      output.contains("\(path):3:1: error: expected '{' at the start of the line, found byte 0x1B"),
      output)
    XCTAssertTrue(output.contains("chronoscope: no such file: /nonexistent.trace\n"), output)
    XCTAssertFalse(output.contains("\u{1B}"), "nothing from a trace reaches the terminal raw")
  }

  func testRecordExampleWritesATraceThatValidates() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("example-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (status, output) = try CommandRun.examples(["record", "virtual-timeout", "--output", path])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("45 events written, 0 dropped"), output)
    XCTAssertEqual(try run(["validate", "--quiet", path]).status, 0)
  }

  func testValidateSaysOnceThatAFileThatIsNotATraceIsNotOne() throws {
    let source = Self.packageRoot.appendingPathComponent("Package.swift").path
    let json = try temporaryTrace([#"{"name":"config"}"#, #"{"t":1}"#, "[]", "plain text"])
    let (status, output) = try run(["validate", source, json])
    XCTAssertEqual(status, 2, output)
    XCTAssertEqual(
      output,
      """
      \(source): not a chronoscope trace: the first line is not a JSON object (expected '{' at \
      the start of the line, found '/')
      \(json): not a chronoscope trace: the first line has no "format":"chronoscope-trace"

      """)
  }

  func testValidatePrintsAtMostTwentyProblemsAFileThenCountsTheRest() throws {
    let path = try temporaryTrace([header] + Array(repeating: "garbage", count: 50) + [close])
    let (status, output) = try run(["validate", path])
    XCTAssertEqual(status, 2, output)
    let lines = output.split(separator: "\n")
    XCTAssertEqual(lines.count, 21, output)
    XCTAssertEqual(
      lines.first, "\(path):2:1: error: expected '{' at the start of the line, found 'g'")
    XCTAssertEqual(lines.last, "\(path): … and 30 more errors")
  }

  func testValidateWarnsThatARecordingWithoutAnEndMarkerDidNotClose() throws {
    let path = try temporaryTrace([
      header, #"{"t":1,"e":"scheduler","q":1,"label":"q","kind":"serial","family":"dispatch"}"#,
      #"{"t":2,"e":"schedule","a":1,"q":1,"mode":"async","due":2,"th":1}"#,
    ])
    let (status, output) = try run(["validate", path])
    XCTAssertEqual(status, 1, "warnings only: \(output)")
    XCTAssertEqual(output, "\(path):3:1: \(notClosed)\n")
  }

  /// `lines` as a file whose last line has no newline: a recording cut off mid-write.
  private func cutOffTrace(_ lines: [String]) throws -> String {
    let path = try temporaryTrace([])
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Begin lines of actions never scheduled, at times and ids `range`: a warning each.
  private func neverScheduled(_ range: ClosedRange<Int>) -> [String] {
    range.map { #"{"t":\#($0),"e":"begin","a":\#($0),"th":1}"# }
  }

  func testValidateSaysFirstHowARecordingEndedWhateverTheOtherWarnings() throws {
    // The fate at the end, and a drop in the middle, behind 30 warnings of the 20 shown.
    let path = try cutOffTrace(
      [header] + neverScheduled(1...30) + [#"{"t":31,"e":"dropped","count":5}"#]
        + neverScheduled(32...61) + [
          #"{"t":90,"e":"crash","signal":"SIGTERM","th":1}"#, #"{"t":91,"e":"begin","a":"#,
        ])
    let (status, output) = try run(["validate", path])
    XCTAssertEqual(status, 1, "warnings only: \(output)")
    let lines = output.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 21, output)
    XCTAssertEqual(
      lines.prefix(3).map { $0.replacingOccurrences(of: path, with: "T") },
      [
        "T:64:1: warning: the process was stopped by SIGTERM (on thread 1); the trace holds what the recorder had buffered",
        "T:64:25: warning: truncated final line (the recording was cut off mid-write) ignored: expected a value, found the end of the line",
        "T:32:1: warning: the recorder dropped 5 event(s) here: the trace is incomplete",
      ], output)
    XCTAssertEqual(lines[3], "\(path):2:1: warning: action #1 begins but was never scheduled")
    XCTAssertEqual(lines.last, "\(path): … and 43 more warnings")
  }

  func testValidateSaysARecordingDidNotCloseEvenPastTheReadersOwnLimit() throws {
    // 300 warnings: more than the reader keeps (200), with a cut-off end after them.
    let path = try cutOffTrace(
      [header] + neverScheduled(1...300) + [#"{"t":301,"e":"begin","a":"#])
    let (status, output) = try run(["validate", path])
    XCTAssertEqual(status, 1, "warnings only: \(output)")
    let lines = output.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 21, output)
    XCTAssertEqual(lines.first, "\(path):302:1: \(notClosed)")
    XCTAssertTrue(
      lines.dropFirst().first?.hasPrefix("\(path):302:") ?? false
        && lines[1].contains("warning: truncated final line"), output)
    XCTAssertEqual(lines.last, "\(path): … and 282 more warnings")
  }

  func testMissingFilesAndDirectoriesAreNamedWithoutAPosition() throws {
    let directory = Self.recordings.path
    for command in ["validate", "show", "view"] {
      let missing = try run([command, "/nonexistent/x.trace"])
      XCTAssertEqual(missing.status, 2, command)
      XCTAssertEqual(missing.output, "chronoscope: no such file: /nonexistent/x.trace\n", command)
      let folder = try run([command, directory])
      XCTAssertEqual(folder.status, 2, command)
      XCTAssertEqual(
        folder.output, "chronoscope: \(directory) is a directory, not a trace file\n", command)
    }
  }

  func testRecordingAnExampleWritesOnlyWhereItIsTold() throws {
    // No default into the working directory's Recordings/: the file is named, or nothing runs.
    let directory = try temporaryFolder("outside")
    let (status, output) = try CommandRun.examples(["record", "virtual-timeout"], in: directory)
    XCTAssertNotEqual(status, 0, output)
    XCTAssertTrue(output.contains("--output"), output)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])

    let written = directory.appendingPathComponent("mine.trace").path
    let (outputStatus, report) = try CommandRun.examples(
      ["record", "virtual-timeout", "-o", written], in: directory)
    XCTAssertEqual(outputStatus, 0, report)
    XCTAssertEqual(try run(["validate", "--quiet", written]).status, 0)
    let missing = directory.appendingPathComponent("no/such/folder.trace").path
    let failed = try CommandRun.examples(["record", "virtual-timeout", "-o", missing])
    XCTAssertEqual(failed.status, 2, failed.output)
    XCTAssertTrue(failed.output.contains("cannot write the trace to \(missing)"), failed.output)
  }

  func testTheProductListsOnlyUserCommands() throws {
    let help = try run(["--help"]).output
    for fixture in ["record-example", "run-example", "record-stress", "record-crash", "flight"] {
      XCTAssertFalse(help.contains(fixture), "\(fixture) in: \(help)")
      XCTAssertEqual(try run([fixture, "x"]).status, 2, fixture)
    }
    for command in [
      "view", "show", "validate", "check", "stats", "diff", "export", "redact", "slice",
    ] {
      XCTAssertTrue(help.contains("  \(command) "), "\(command) in: \(help)")
    }
  }

  func testReRecordingTheVirtualBusyAppReproducesTheBundledTraceByteForByte() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("busy-app-virtual-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (status, output) = try CommandRun.examples(["record", "busy-app-virtual", "-o", path])
    XCTAssertEqual(status, 0, output)
    let recorded = try String(contentsOfFile: path, encoding: .utf8)
    let bundled = try String(
      contentsOf: Self.recordings.appendingPathComponent("busy-app-virtual.trace"), encoding: .utf8)
    let (new, old) = (recorded.split(separator: "\n"), bundled.split(separator: "\n"))
    let differences = zip(old, new).enumerated().filter { $0.element.0 != $0.element.1 }.prefix(5)
      .map { "line \($0.offset + 1):\n- \($0.element.0)\n+ \($0.element.1)" }
    XCTAssertEqual(
      new.count, old.count, "re-record with: swift run chronoscope-examples record busy-app-virtual"
    )
    XCTAssertTrue(
      differences.isEmpty,
      "re-record with: swift run chronoscope-examples record busy-app-virtual\n"
        + differences.joined(separator: "\n"))
  }
}
