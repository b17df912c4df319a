import ChronoscopeTestSupport
import Foundation
import XCTest

/// Every command in the README's shell blocks, run as a reader would run it — in the README's
/// order, in one shell, from a folder that has the checkout's `Recordings/` — and held to what its
/// comment says: the exit status it names (0 when it names none), and the claims of the
/// bug-report flow. A command the test cannot run (interactive, building, installing, writing a
/// bundled recording, a placeholder file) is listed with the reason, so a new one is either run or
/// said not to be.
final class ReadmeCommandTests: XCTestCase {
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The README's commands that are not run here, and why.
  private static let notRun: [String: String] = [
    "swift run chronoscope": "interactive (the tmux tests open the bundled recording bare)",
    "swift test": "the suite itself",
    "swift run chronoscope validate my.trace": "the reader's own trace",
    "swift run chronoscope-examples record busy-app -o Recordings/busy-app.trace":
      "rewrites a bundled recording (CheckCommandTests re-records to a temporary file)",
    "scripts/install.sh": "installs into the home folder",
    "export PATH=\"$HOME/.local/bin:$PATH\"": "changes the reader's shell",
    "swift build": "builds the package",
    "swift run chronoscope record -- .build/debug/feed-refresher":
      "runs a program under the recorder (RecordCommandTests do)",
    "swift run chronoscope check feed-refresher-*.trace": "reads what `record` wrote",
    "CHRONOSCOPE_TRACE=/tmp/app-%p.trace ./MyApp && chronoscope check /tmp/app-*.trace":
      "the reader's own app",
  ].merging(
    [
      "VirtualTimeBenchmark", "RecordingBenchmark", "FrameBenchmark", "ReplayBenchmark",
      "TestTraceBenchmark",
    ].map { ("swift run -c release --package-path Benchmarks \($0)", "a benchmark: minutes") }
      + [("scripts/benchmarks.sh", "the benchmarks: minutes")]
  ) { $1 }

  /// A command of a shell block: its text without the comment, the comment, and its line.
  private struct Command {
    let text: String
    let comment: String
    let line: Int

    /// The exit status its comment names (`exit 1 here`, `exit 0: …`), else 0.
    var expectedStatus: Int32 {
      guard let range = comment.range(of: #"exit (\d)"#, options: .regularExpression) else {
        return 0
      }
      return Int32(comment[range].dropFirst(5)) ?? 0
    }
  }

  private static func shellCommands() throws -> [Command] {
    let readme = try String(
      contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    var commands: [Command] = []
    var inShell = false
    for (index, line) in readme.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      if line.hasPrefix("```") {
        inShell = !inShell && line == "```sh"
        continue
      }
      guard inShell, !line.isEmpty else { continue }
      // A comment is a `# ` after a space; a `#` in an argument (`#3`) is none.
      let comment = line.range(of: #"\s+# "#, options: .regularExpression)
      commands.append(
        Command(
          text: line[..<(comment?.lowerBound ?? line.endIndex)]
            .trimmingCharacters(in: .whitespaces),
          comment: comment.map { String(line[$0.upperBound...]) } ?? "", line: index + 1))
    }
    return commands
  }

  func testEveryCommandOfTheReadmeDoesWhatItsCommentSays() throws {
    let commands = try Self.shellCommands()
    // `view` is interactive: the tmux tests drive it.
    let run = commands.filter {
      Self.notRun[$0.text] == nil && !$0.text.contains("chronoscope view ")
    }
    XCTAssertGreaterThanOrEqual(run.count, 15, "the README's commands: \(commands.map(\.text))")
    for command in run {
      XCTAssertTrue(
        command.text.hasPrefix("chronoscope ") || command.text.hasPrefix("swift run chronoscope ")
          || command.text.hasPrefix("cp ") || command.text.hasPrefix("SECRET="),
        "README.md:\(command.line): `\(command.text)` is neither run here nor listed in notRun")
    }

    // One shell runs them all in order; `swift run chronoscope` is the built binary on PATH.
    let folder = try temporaryFolder("readme")
    try FileManager.default.createSymbolicLink(
      at: folder.appendingPathComponent("Recordings"),
      withDestinationURL: Self.root.appendingPathComponent("Recordings"))
    // `app.trace` in the text before the bug-report flow stands for the reader's trace: the
    // flow's own copy.
    try FileManager.default.copyItem(
      at: Self.root.appendingPathComponent("Recordings/timeout-timeout.trace"),
      to: folder.appendingPathComponent("app.trace"))
    var script = "cd \"\(folder.path)\"\n"
    for (index, command) in run.enumerated() {
      let text =
        command.text.hasPrefix("swift run chronoscope ")
        ? String(command.text.dropFirst("swift run ".count)) : command.text
      script += "{ \(text) ; } > out.\(index) 2>&1 < /dev/null; echo \"\(index) $?\" >> statuses\n"
    }
    let binaries = try ProductsDirectory.executable("chronoscope").deletingLastPathComponent()
    let shell = try CommandRun.program(
      URL(fileURLWithPath: "/bin/bash"), ["-c", script],
      environment: [
        "PATH": binaries.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")
      ])
    XCTAssertEqual(shell.status, 0, shell.output)

    let statuses = try String(
      contentsOf: folder.appendingPathComponent("statuses"), encoding: .utf8
    )
    .split(separator: "\n").map { $0.split(separator: " ") }
    XCTAssertEqual(statuses.count, run.count)
    for entry in statuses {
      guard let index = Int(entry[0]), let status = Int32(entry[1]) else { continue }
      let command = run[index]
      let output =
        (try? String(
          contentsOf: folder.appendingPathComponent("out.\(index)"), encoding: .utf8)) ?? ""
      XCTAssertEqual(
        status, command.expectedStatus,
        "README.md:\(command.line): `\(command.text)`\n\(output)")
    }

    try checkTheBugReportFlow(
      in: folder,
      outputs: run.indices.map { index in
        (
          run[index].text,
          (try? String(
            contentsOf: folder.appendingPathComponent("out.\(index)"), encoding: .utf8)) ?? ""
        )
      })
  }

  /// The flow's claims beyond exit statuses: redaction keeps the differences, the window holds
  /// the timeout firing, the frame has it, the export is JSON.
  private func checkTheBugReportFlow(in folder: URL, outputs: [(String, String)]) throws {
    func output(of command: String) throws -> String {
      try XCTUnwrap(outputs.first { $0.0 == command }?.1, command)
    }
    let plain = try output(of: "chronoscope diff good.trace app.trace --tolerance 5ms")
    let redacted = try output(of: "chronoscope diff shared-good.trace shared.trace --tolerance 5ms")
    // Each line's first word and what follows its names (the last `)`): ids, positions, times.
    let shape = { (text: String) in
      text.split(separator: "\n").map { line in
        (line.split(separator: " ").first ?? "")
          + (line.lastIndex(of: ")").map { line[$0...] } ?? line)
      }
    }
    XCTAssertEqual(
      shape(redacted).dropFirst(2), shape(plain).dropFirst(2),
      "the same differences, redacted:\n\(plain)\n\(redacted)")
    XCTAssertTrue(plain.contains("first divergence"), plain)

    // "one action's detail as text": at an instant that tells about it, not before it existed.
    let detail = try output(of: "swift run chronoscope show Recordings/busy-app.trace --action 5")
    XCTAssertFalse(detail.contains("not scheduled yet"), detail)

    let frame = try String(contentsOf: folder.appendingPathComponent("frame.txt"), encoding: .utf8)
    XCTAssertTrue(frame.contains("cancel"), "the timeout fired in the window:\n\(frame)")
    XCTAssertTrue(frame.contains("Findings"), frame)
    let export = try Data(contentsOf: folder.appendingPathComponent("window.json"))
    XCTAssertNoThrow(try JSONSerialization.jsonObject(with: export))
  }
}
