import ChronoscopeTestSupport
import Foundation
import XCTest

/// `CHRONOSCOPE_TRACE`: an app that builds its factory with `recordingIfRequested` records when
/// the variable names a path, and runs untouched when it does not.
final class RecordingFromEnvironmentTests: XCTestCase {
  func testAChildProcessRecordsWhenTheVariableNamesAPathAndTheTraceClosesAtExit() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("env-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let template = folder.appendingPathComponent("app-%p.trace").path
    let run = try CommandRun.examples(
      ["run", "message-loader"], environment: ["CHRONOSCOPE_TRACE": template])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("recorded"), run.output)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    XCTAssertEqual(files.count, 1, "\(files)")
    let name = try XCTUnwrap(files.first)
    XCTAssertTrue(name.hasPrefix("app-") && !name.contains("%p"), "the pid replaced %p: \(name)")
    let path = folder.appendingPathComponent(name).path

    let validate = try CommandRun.chronoscope(["validate", path])
    XCTAssertEqual(validate.status, 0, "closed at exit, no warning: \(validate.output)")
    let show = try CommandRun.chronoscope(["show", path, "--size", "100x24"])
    XCTAssertEqual(show.status, 0, show.output)
    XCTAssertTrue(show.output.contains("messages.fetch"), show.output)
  }

  /// A trace that grows past the process's file-size limit (`ulimit -f`) used to kill the app
  /// with SIGXFSZ (exit 153 from the shell): the recorder now ignores that signal when the app
  /// left it at its default, so its write fails instead, and the app runs to its end.
  func testAFileSizeLimitStopsTheTraceNotTheApp() throws {
    let folder = try temporaryFolder("fsize")
    let (status, reason, text) = try CommandRun.program(
      URL(fileURLWithPath: "/bin/sh"),
      [
        "-c", "ulimit -f 1 && exec \"$0\" run message-loader",
        try ProductsDirectory.executable("chronoscope-examples").path,
      ],
      environment: ["CHRONOSCOPE_TRACE": folder.appendingPathComponent("app.trace").path])
    XCTAssertEqual(reason, .exit, text)
    XCTAssertEqual(status, 0, text)
    XCTAssertTrue(text.contains("recorded"), "the app ran to its end: \(text)")
  }

  /// `CHRONOSCOPE_TRACE` naming a FIFO nobody reads used to hold the app in `open` for ever; it
  /// is said once, and the app runs unrecorded.
  func testAFIFONobodyReadsIsSaidAndTheAppRunsUnrecorded() throws {
    let folder = try temporaryFolder("fifo")
    let fifo = folder.appendingPathComponent("trace.fifo").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    // `timeout` ends a child that hangs, so a regression fails here instead of hanging the run.
    let (status, _, text) = try CommandRun.program(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "timeout", "60", try ProductsDirectory.executable("chronoscope-examples").path, "run",
        "retry",
      ],
      environment: ["CHRONOSCOPE_TRACE": fifo])
    XCTAssertEqual(status, 0, text)
    XCTAssertTrue(text.contains("not recording: cannot open \(fifo)"), text)
    XCTAssertTrue(text.contains("FIFO nobody reads"), text)
  }

  func testWithoutTheVariableNothingIsRecorded() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("noenv-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try CommandRun.examples(
      ["run", "contact-loader"], in: folder, environment: ["CHRONOSCOPE_TRACE": ""])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("not recorded"), run.output)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
  }

  func testAPathThatCannotBeOpenedIsSaidOnceAndTheAppRunsUnrecorded() throws {
    let run = try CommandRun.examples(
      ["run", "retry"],
      environment: ["CHRONOSCOPE_TRACE": "/nonexistent/folder/app.trace"])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("CHRONOSCOPE_TRACE: not recording"), run.output)
    XCTAssertTrue(run.output.contains("not recorded"), run.output)
  }

  func testFlightModeWritesTheLastSecondsAtExit() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("flight-env-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("server.trace").path
    let run = try CommandRun.examples(
      ["run", "message-loader"],
      environment: ["CHRONOSCOPE_TRACE": path, "CHRONOSCOPE_TRACE_FLIGHT": "10"])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("recorded"), run.output)
    let validate = try CommandRun.chronoscope(["validate", path])
    XCTAssertEqual(validate.status, 0, "a dump at exit, no warning: \(validate.output)")
    let header = try XCTUnwrap(
      String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").first)
    XCTAssertTrue(header.contains("\"slice_of\":\"flight recorder of"), String(header))
    let show = try CommandRun.chronoscope(["show", path, "--size", "100x24"])
    XCTAssertEqual(show.status, 0, show.output)
    XCTAssertTrue(show.output.contains("messages.fetch"), show.output)
  }

  func testASettingThatCannotBeReadIsSaidAndTheAppRunsUnrecorded() throws {
    for (name, value) in [
      ("CHRONOSCOPE_TRACE_MAX_BYTES", "lots"), ("CHRONOSCOPE_TRACE_MAX_BYTES", "99999999999G"),
      ("CHRONOSCOPE_TRACE_KEEP", "-1"), ("CHRONOSCOPE_TRACE_FLIGHT", "1e3"),
    ] {
      let run = try CommandRun.examples(
        ["run", "retry"],
        environment: ["CHRONOSCOPE_TRACE": "/tmp/never-\(UUID().uuidString).trace", name: value])
      XCTAssertEqual(run.status, 0, run.output)
      XCTAssertTrue(
        run.output.contains("CHRONOSCOPE_TRACE: not recording: \(name)=\"\(value)\""), run.output)
      XCTAssertTrue(run.output.contains("not recorded"), run.output)
    }
  }
}
