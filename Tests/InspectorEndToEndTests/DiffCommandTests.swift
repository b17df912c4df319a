import ChronoscopeTestSupport
import Foundation
import XCTest

/// `chronoscope diff A B`: exit 0 when the same, 1 when different, 2 for bad input.
final class DiffCommandTests: XCTestCase {
  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("diff-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try FileManager.default.removeItem(at: directory)
  }

  /// A copy of the bundled recording `name` in the test's folder, each line passed through
  /// `edit`.
  private func copy(_ name: String, as copy: String, edit: (String) -> String = { $0 }) throws
    -> String
  {
    let text = try String(contentsOfFile: Recordings.path(name), encoding: .utf8)
    let path = directory.appendingPathComponent(copy).path
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
      edit(String($0))
    }
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  func testAFourLineEditThatMovesCallSitesDiffersInNothing() throws {
    // Four lines inserted at line 100 of the program: its call sites below move down.
    let edited = try copy("busy-app-virtual", as: "edited.trace") { line in
      guard line.contains(#""e":"site""#),
        line.contains(#""file":"ChronoscopeExamples/BusyApp.swift""#)
      else { return line }
      return line.replacing(#/"line":(\d+)/#) { match in
        let number = Int(match.1) ?? 0
        return #""line":\#(number >= 100 ? number + 4 : number)"#
      }
    }
    XCTAssertNotEqual(
      try String(contentsOfFile: edited, encoding: .utf8),
      try String(contentsOfFile: Recordings.path("busy-app-virtual"), encoding: .utf8))
    let (status, output) = try CommandRun.chronoscope([
      "diff", Recordings.path("busy-app-virtual"), edited, "--tolerance", "0ms",
    ])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("no difference"), output)
  }

  func testARecorderStartedEarlierDiffersInNothingAndAMarkCanAlignTheTraces() throws {
    // The second run's recorder started 2.5 s before the same work: every time moves.
    let shift: Int64 = 2_500_000_000
    let later = try copy("busy-app-virtual", as: "later.trace") { line in
      line.replacing(#/"(t|due)":(\d+)/#) { match in
        #""\#(match.1)":\#((Int64(match.2) ?? 0) + shift)"#
      }
    }
    let original = Recordings.path("busy-app-virtual")
    let (status, output) = try CommandRun.chronoscope([
      "diff", original, later, "--tolerance", "0ms",
    ])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("no difference"), output)
    XCTAssertTrue(output.contains("(times from its first event, at 2.500000s)"), output)

    let marked = try CommandRun.chronoscope([
      "diff", original, later, "--tolerance", "0ms", "--align-mark", "burst",
    ])
    XCTAssertEqual(marked.status, 0, marked.output)
    XCTAssertTrue(marked.output.contains(#"(times from its first mark "burst", at "#), output)
    let missing = try CommandRun.chronoscope([
      "diff", original, later, "--align-mark", "no-such-mark",
    ])
    XCTAssertEqual(missing.status, 2, missing.output)
    XCTAssertTrue(
      missing.output.contains(#"--align-mark: \#(original) has no mark named "no-such-mark""#),
      missing.output)
  }

  /// The commands of the README's bug-report flow, as written.
  private func readmeFlow() throws -> String {
    let readme = try String(
      contentsOf: Recordings.folder.deletingLastPathComponent().appendingPathComponent("README.md"),
      encoding: .utf8)
    let section = try XCTUnwrap(readme.range(of: "## Attaching a trace to a bug report"))
    let rest = readme[section.upperBound...]
    let start = try XCTUnwrap(rest.range(of: "```sh\n"))
    let end = try XCTUnwrap(rest[start.upperBound...].range(of: "```"))
    return String(rest[start.upperBound..<end.lowerBound])
  }

  func testTheReadmeBugReportFlowRunsAsWrittenAndItsRedactedTracesDiffAsTheOriginals() throws {
    var flow = try readmeFlow()
    XCTAssertTrue(flow.contains("--salt \"$SECRET\""), flow)
    _ = try copy("timeout-success", as: "good.trace")
    _ = try copy("timeout-timeout", as: "app.trace")
    let binaries = try ProductsDirectory.executable("chronoscope").deletingLastPathComponent().path
    if !FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") {
      flow = flow.replacingOccurrences(of: "$(openssl rand -hex 16)", with: "not-openssl")
    }
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", flow]
    shell.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    shell.environment = environment
    let output = Pipe()
    shell.standardOutput = output
    shell.standardError = output
    try shell.run()
    let printed = String(
      decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    shell.waitUntilExit()
    XCTAssertEqual(shell.terminationStatus, 0, printed)
    XCTAssertFalse(printed.contains("Error") || printed.contains("not found"), printed)
    for file in ["shared.trace", "shared-good.trace", "window.trace", "frame.txt", "window.json"] {
      let size =
        try FileManager.default.attributesOfItem(
          atPath: directory.appendingPathComponent(file).path)[.size] as? Int
      XCTAssertGreaterThan(size ?? 0, 0, "\(file): \(printed)")
    }
    // Redacted with one salt, the traces differ exactly as the originals do.
    func diff(_ a: String, _ b: String) throws -> [String: Any] {
      let (status, json) = try CommandRun.chronoscope(
        ["diff", "--json", "--tolerance", "5ms", a, b], in: directory)
      XCTAssertEqual(status, 1, json)
      var root = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
      root["a"] = nil
      root["b"] = nil
      return root
    }
    let original = try diff("good.trace", "app.trace")
    let redacted = try diff("shared-good.trace", "shared.trace")
    XCTAssertEqual(
      try XCTUnwrap(original["timing"] as? [[String: Any]]).count,
      try XCTUnwrap(redacted["timing"] as? [[String: Any]]).count)
    let numbers = { (root: [String: Any]) -> String in
      // Everything but the names: times, ids, occurrences, positions, aspects.
      let data = try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])
      let text = String(decoding: data ?? Data(), as: UTF8.self)
      return text.replacing(#/"(scheduler|site)":"[^"]*"/#, with: "")
    }
    XCTAssertEqual(numbers(redacted), numbers(original))
  }

  func testAVirtualRecordingDoesNotDifferFromItsReRecording() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("diff-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try CommandRun.examples(["record", "busy-app-virtual", "--output", path])
    let (status, output) = try CommandRun.chronoscope([
      "diff", Recordings.path("busy-app-virtual"), path, "--tolerance", "0ms",
    ])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("no difference"), output)
  }

  func testATimeoutThatFiredDiffersFromOneThatDidNotAtItsSecondRun() throws {
    let (status, output) = try CommandRun.chronoscope([
      "diff", Recordings.path("timeout-success"), Recordings.path("timeout-timeout"),
    ])
    XCTAssertEqual(status, 1, output)
    let lines = output.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.dropFirst(2).first, "first divergence at run 2 in begin order:")
    XCTAssertTrue(
      lines[3].contains("runOnce(factory:work:timeout:)"), "A ran the work: \(lines[3])")
    XCTAssertTrue(lines[4].contains("TimeoutService.swift"), "B ran the timeout: \(lines[4])")
  }

  func testJSONSaysTheSameAsTheText() throws {
    let (status, output) = try CommandRun.chronoscope([
      "diff", "--json", Recordings.path("timeout-success"), Recordings.path("timeout-timeout"),
    ])
    XCTAssertEqual(status, 1, output)
    let root = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    XCTAssertEqual(root["schema"] as? String, "chronoscope-diff")
    XCTAssertEqual(root["same"] as? Bool, false)
    XCTAssertEqual(root["tolerance_ns"] as? Int, 1_000_000)
    let divergence = try XCTUnwrap(root["first_divergence"] as? [String: Any])
    XCTAssertEqual(divergence["position"] as? Int, 2)
    let timing = try XCTUnwrap(root["timing"] as? [[String: Any]])
    XCTAssertTrue(timing.contains { $0["aspect"] as? String == "runs" })
  }

  func testBadInputAndBadOptionsExitTwo() throws {
    let missing = try CommandRun.chronoscope([
      "diff", Recordings.path("retry"), "/nonexistent/x.trace",
    ])
    XCTAssertEqual(missing.status, 2, missing.output)
    XCTAssertTrue(missing.output.contains("no such file"), missing.output)
    let tolerance = try CommandRun.chronoscope([
      "diff", Recordings.path("retry"), Recordings.path("retry"), "--tolerance", "soon",
    ])
    XCTAssertEqual(tolerance.status, 2, tolerance.output)
    XCTAssertTrue(tolerance.output.contains("--tolerance"), tolerance.output)
    let help = try CommandRun.chronoscope(["diff", "--help"])
    XCTAssertEqual(help.status, 0)
    XCTAssertTrue(help.output.contains("--tolerance"))
  }
}
