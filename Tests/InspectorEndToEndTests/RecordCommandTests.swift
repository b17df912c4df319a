import Foundation
import TestSupport
import XCTest

/// `chronoscope record -- PROGRAM`: the program runs as it would, its status passes through, and
/// recording is switched on for it (issue 30). What it records: RecordUnmodifiedProgramTests.
final class RecordCommandTests: XCTestCase {
  func testTheProgramsExitStatusAndSignalPassThrough() throws {
    let folder = try temporaryFolder("record")
    let template = folder.appendingPathComponent("t-%p.trace").path
    XCTAssertEqual(
      try CommandRun.chronoscope(["record", "-o", template, "--", "sh", "-c", "exit 3"]).status, 3)
    XCTAssertEqual(
      try CommandRun.chronoscope(["record", "-o", template, "--", "sh", "-c", "kill -TERM $$"])
        .status, 143)
    let missing = try CommandRun.chronoscope([
      "record", "-o", template, "--", "no-such-program-for-chronoscope",
    ])
    XCTAssertEqual(missing.status, 127, missing.output)
  }

  func testRecordingIsSwitchedOnThroughThePreloadLibrary() throws {
    let folder = try temporaryFolder("record")
    let template = folder.appendingPathComponent("t-%p.trace").path
    let run = try CommandRun.chronoscope([
      "record", "-o", template, "--flight", "30s", "--", "sh", "-c",
      "echo \"trace=$CHRONOSCOPE_TRACE flight=$CHRONOSCOPE_TRACE_FLIGHT preload=$LD_PRELOAD\"",
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("trace=\(template) flight=30 "), run.output)
    XCTAssertTrue(run.output.contains("libChronoscopePreload.so"), run.output)
  }

  func testBadSettingsAreUsageErrors() throws {
    for (arguments, message) in [
      (["--max-bytes", "lots"], "--max-bytes must be a size"),
      (["--max-bytes", "0"], "--max-bytes must be a size"),
      (["--keep=-1"], "--keep must be 0 or more"),
      (["--flight", "soon"], "--flight must be a duration"),
    ] {
      let run = try CommandRun.chronoscope(["record"] + arguments + ["--", "true"])
      XCTAssertEqual(run.status, 2, run.output)
      XCTAssertTrue(run.output.contains(message), run.output)
    }
  }

  func testWithoutAProgramItSaysHowToNameOne() throws {
    let run = try CommandRun.chronoscope(["record"])
    XCTAssertEqual(run.status, 2, run.output)
    XCTAssertTrue(run.output.contains("chronoscope record -- ./MyApp"), run.output)
  }

  func testTheLibraryCanBeNamedInTheEnvironment() throws {
    // An installation that keeps the library elsewhere names it in CHRONOSCOPE_PRELOAD.
    let folder = try temporaryFolder("record-preload")
    let copy = folder.appendingPathComponent("libChronoscopePreload.so")
    try FileManager.default.copyItem(
      at: try ProductsDirectory.executable("chronoscope").deletingLastPathComponent()
        .appendingPathComponent("libChronoscopePreload.so"),
      to: copy)
    let run = try CommandRun.chronoscope(
      [
        "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--", "sh", "-c",
        "echo \"preload=$LD_PRELOAD\"",
      ],
      environment: ["CHRONOSCOPE_PRELOAD": copy.path])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("preload=\(copy.path)"), run.output)
  }

  func testAProcessThatIsNotSwiftCrashesAsItWouldHave() throws {
    // The library loads the Swift runtime, whose crash handler would take a shell's SIGSEGV
    // (a Swift crash report, and the shell going on): its defaults are put back.
    let folder = try temporaryFolder("record-shell-crash")
    let run = try CommandRun.chronoscope([
      "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--", "sh", "-c",
      "kill -SEGV $$; echo survived",
    ])
    XCTAssertEqual(run.status, 128 + SIGSEGV, run.output)
    XCTAssertFalse(run.output.contains("survived"), run.output)
    XCTAssertFalse(run.output.contains("Backtracing"), run.output)
  }

  func testATracePathThatIsAFIFOIsRefusedWithoutHanging() throws {
    // The recorder refuses a FIFO nobody reads; `record` must not wait on it either.
    let folder = try temporaryFolder("record-fifo")
    let fifo = folder.appendingPathComponent("t.trace").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let run = try CommandRun.chronoscope([
      "record", "-o", fifo, "--", try ProductsDirectory.executable("feed-refresher").path,
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("it is a FIFO nobody reads"), run.output)
    XCTAssertTrue(run.output.contains("no trace was written"), run.output)
  }

  func testWithoutItsLibraryRecordSaysWhereItLookedAndHowToGetIt() throws {
    // A copy of the command alone, as `swift run chronoscope` leaves it in a fresh checkout.
    let folder = try temporaryFolder("record-no-library")
    let copy = folder.appendingPathComponent("chronoscope")
    try FileManager.default.copyItem(at: try ProductsDirectory.executable("chronoscope"), to: copy)
    let run = try CommandRun.program(copy, ["record", "--", "true"])
    XCTAssertEqual(run.status, 2, run.output)
    XCTAssertTrue(
      run.output.contains(folder.appendingPathComponent("libChronoscopePreload.so").path))
    XCTAssertTrue(run.output.contains("swift build builds it"), run.output)
  }
}
