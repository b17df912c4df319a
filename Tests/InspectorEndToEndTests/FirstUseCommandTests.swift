import ChronoscopeTestSupport
import Foundation
import XCTest

/// What a user meets in the first hour with the command line: a mistyped command, the installed
/// binary run bare, a file that cannot be written, the help, `--at 0`, and the trace's end.
final class FirstUseCommandTests: XCTestCase {
  private static let recordings = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  private func recording(_ name: String) -> String {
    Self.recordings.appendingPathComponent("\(name).trace").path
  }

  func testAMistypedCommandIsNamedWithTheNearestOne() throws {
    let (status, output) = try CommandRun.chronoscope(["sohw", "x"])
    XCTAssertEqual(status, 2, output)
    XCTAssertTrue(output.contains("unknown command 'sohw' (did you mean 'show'?)"), output)
    XCTAssertFalse(output.contains("no such file"), output)
    let far = try CommandRun.chronoscope(["frobnicate"])
    XCTAssertEqual(far.status, 2, far.output)
    XCTAssertTrue(far.output.contains("unknown command 'frobnicate'"), far.output)
    XCTAssertFalse(far.output.contains("did you mean"), "no suggestion that far: \(far.output)")
  }

  func testAFileNameIsStillAFileForTheDefaultCommand() throws {
    let (status, output) = try CommandRun.chronoscope(["missing.trace"])
    XCTAssertEqual(status, 2, output)
    XCTAssertTrue(output.contains("no such file: missing.trace"), output)
    XCTAssertFalse(output.contains("unknown command"), output)
  }

  func testTheInstalledBinaryRunBareOutsideTheCheckoutSaysHowToOpenATrace() throws {
    // A copy outside the checkout, as `experimental-install` puts it: nothing above it holds
    // Recordings/.
    let directory = try temporaryFolder("first-use")
    let binary = directory.appendingPathComponent("chronoscope")
    try FileManager.default.copyItem(
      at: try ProductsDirectory.executable("chronoscope"), to: binary)
    let (status, _, text) = try CommandRun.program(binary, [], in: directory)
    XCTAssertEqual(status, 0, text)
    XCTAssertTrue(text.contains("no trace to open"), text)
    XCTAssertTrue(text.contains("chronoscope view app.trace"), text)
    XCTAssertTrue(text.contains("USAGE: chronoscope <subcommand>"), text)
    XCTAssertFalse(text.contains("no such file"), text)
  }

  func testAnInstalledBinaryRunBareOpensTheRecordingInstalledBesideIt() throws {
    // An install under a prefix: PREFIX/bin/chronoscope and PREFIX/share/chronoscope/, run from
    // a folder that holds no Recordings/ (the binary does not look for the checkout).
    let prefix = try temporaryFolder("installed")
    let bin = prefix.appendingPathComponent("bin")
    let share = prefix.appendingPathComponent("share/chronoscope")
    for folder in [bin, share] {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    try FileManager.default.copyItem(
      at: try ProductsDirectory.executable("chronoscope"),
      to: bin.appendingPathComponent("chronoscope"))
    try FileManager.default.copyItem(
      at: Self.recordings.appendingPathComponent("busy-app.trace"),
      to: share.appendingPathComponent("busy-app.trace"))
    let elsewhere = try temporaryFolder("elsewhere")
    let session = try TmuxSession(
      executable: bin.appendingPathComponent("chronoscope"), width: 120, height: 30,
      directory: elsewhere)
    defer { session.kill() }
    let screen = try session.waitFor("app.database", timeout: .seconds(30))
    XCTAssertTrue(screen.contains("busy-app.trace"), screen)
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(timeout: .seconds(30)), 0)
  }

  func testAFileThatCannotBeWrittenIsNamedWithTheReason() throws {
    // A directory that is not empty cannot be replaced by a file: rename(2) says EISDIR.
    let directory = try temporaryFolder("first-use")
    let output = directory.appendingPathComponent("taken")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    try Data().write(to: output.appendingPathComponent("inside"))
    let missing = directory.appendingPathComponent("missing/out").path
    for command in ["export", "slice", "redact"] {
      for (path, reason) in [
        (output.path, "Is a directory"), (missing, "No such file or directory"),
      ] {
        let (status, text) = try CommandRun.chronoscope(
          [command, recording("retry"), "-o", path])
        XCTAssertEqual(status, 2, "\(command) -o \(path): \(text)")
        XCTAssertTrue(
          text.contains("cannot write \(path): \(reason)"), "\(command) -o \(path): \(text)")
        XCTAssertFalse(text.contains("Error Domain"), "\(command) -o \(path): \(text)")
      }
    }
  }

  func testHelpStatesEachDefaultOnce() throws {
    let commands = try CommandRun.chronoscope(["--help"]).output
      .split(separator: "\n").drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
      .compactMap { $0.split(separator: " ").first.map(String.init) }
      .filter { $0.first?.isLetter == true }
    XCTAssertTrue(commands.contains("check"), "\(commands)")
    for command in commands {
      let help = try CommandRun.chronoscope([command, "--help"]).output
      // One entry per argument or option: a line that starts with two spaces and `-` or `<`,
      // with the lines after it that continue its text.
      var entries: [String] = []
      for line in help.split(separator: "\n") {
        if line.hasPrefix("  -") || line.hasPrefix("  <") {
          entries.append(String(line))
        } else if line.hasPrefix("    "), !entries.isEmpty {
          entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
        }
      }
      for entry in entries {
        XCTAssertLessThanOrEqual(
          entry.components(separatedBy: "default").count - 1, 1, "\(command): \(entry)")
      }
    }
  }

  func testAtZeroIsTheStart() throws {
    let zero = try CommandRun.chronoscope(["show", recording("retry"), "--at", "0"])
    let seconds = try CommandRun.chronoscope(["show", recording("retry"), "--at", "0s"])
    XCTAssertEqual(zero.status, 0, zero.output)
    XCTAssertEqual(zero.output, seconds.output)
  }

  /// A copy of async-search.trace whose recorder closed at 30.001051195 s, long after its last
  /// event (at 1.015 s): as a recorder left open by a program that goes on idle does.
  func testTheTraceEndsAtItsCloseLineInShowStatsAndSlice() throws {
    let folder = try temporaryFolder("first-use")
    let path = folder.appendingPathComponent("async-search.trace").path
    var lines = try String(contentsOfFile: recording("async-search"), encoding: .utf8)
      .split(separator: "\n").map(String.init)
    let close = try XCTUnwrap(lines.popLast())
    XCTAssertTrue(close.hasPrefix("{\"t\":") && close.contains("\"e\":\"close\""), close)
    let rest = try XCTUnwrap(close.firstIndex(of: ","))
    lines.append("{\"t\":30001051195" + close[rest...])
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    let shown = try CommandRun.chronoscope(["show", path, "--at", "20s"])
    XCTAssertEqual(shown.status, 0, shown.output)
    XCTAssertTrue(shown.output.contains("20.000000s / 30.001051s"), shown.output)
    let after = try CommandRun.chronoscope(["show", path, "--at", "31s"])
    XCTAssertEqual(after.status, 2, after.output)
    XCTAssertTrue(after.output.contains("it spans 0s to 30.001051s"), after.output)

    let stats = try CommandRun.chronoscope(["stats", path])
    XCTAssertEqual(stats.status, 0, stats.output)
    XCTAssertTrue(stats.output.contains(" · 30.001051s"), stats.output)
    let json = try CommandRun.chronoscope(["stats", "--json", path])
    XCTAssertTrue(json.output.contains("\"span_ns\":30001051195"), json.output)

    let slice = folder.appendingPathComponent("all.trace").path
    let sliced = try CommandRun.chronoscope(["slice", path, "-o", slice])
    XCTAssertEqual(sliced.status, 0, sliced.output)
    XCTAssertTrue(sliced.output.contains("from 0.000000s to 30.001051s"), sliced.output)
  }
}
