import ChronoscopeTestSupport
import Foundation
import XCTest

/// `chronoscope redact` and `chronoscope slice` as a user runs them: files that validate, a
/// summary on stderr, and status 2 for every bad option or input.
final class RedactSliceCommandTests: XCTestCase {
  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("share-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try FileManager.default.removeItem(at: directory)
  }

  private func output(_ name: String) -> String { directory.appendingPathComponent(name).path }

  private func recordings() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: Recordings.folder.path)
      .filter { $0.hasSuffix(".trace") }.sorted()
  }

  private func assertValidates(
    _ path: String, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let (status, report) = try CommandRun.chronoscope(["validate", path])
    XCTAssertEqual(status, 0, report, file: file, line: line)
    XCTAssertTrue(report.contains(": ok, "), report, file: file, line: line)
  }

  // MARK: - redact

  func testRedactingEveryRecordingWritesATraceThatValidatesAndSaysWhatItReplaced() throws {
    for name in try recordings() {
      let out = output("redacted-\(name)")
      let (status, summary) = try CommandRun.chronoscope([
        "redact", Recordings.folder.appendingPathComponent(name).path, "-o", out,
      ])
      XCTAssertEqual(status, 0, summary)
      XCTAssertTrue(summary.hasPrefix("chronoscope: redacted "), summary)
      XCTAssertTrue(summary.contains(" labels, "), summary)
      XCTAssertTrue(summary.contains(" process name"), summary)
      try assertValidates(out)
      let text = try String(contentsOfFile: out, encoding: .utf8)
      for line in text.split(separator: "\n") where line.contains(#""e":"thread""#) {
        XCTAssertTrue(
          line.hasSuffix(#""name":"main"}"#) || line.hasSuffix(#""name":""}"#)
            || line.contains(#""name":"r:"#), "\(name): \(line)")
      }
      XCTAssertFalse(text.contains("Examples/"), "\(name): call-site files are replaced")
      XCTAssertTrue(text.contains(#""label":"r:"#), name)
      let (checkStatus, findings) = try CommandRun.chronoscope(["check", out])
      XCTAssertNotEqual(checkStatus, 2, "the redacted trace replays: \(findings)")
    }
  }

  func testRedactingTwiceChangesNothingAndKeepAndSaltDoWhatTheySay() throws {
    let input = Recordings.path("busy-app")
    let (once, twice) = (output("once.trace"), output("twice.trace"))
    XCTAssertEqual(try CommandRun.chronoscope(["redact", input, "-o", once]).status, 0)
    let second = try CommandRun.chronoscope(["redact", once, "--output", twice])
    XCTAssertEqual(second.status, 0, second.output)
    XCTAssertTrue(second.output.contains("already redacted"), second.output)
    XCTAssertEqual(
      try String(contentsOfFile: twice, encoding: .utf8),
      try String(contentsOfFile: once, encoding: .utf8))

    let kept = output("kept.trace")
    let keep = try CommandRun.chronoscope(["redact", input, "-o", kept, "--keep", #"app\.cache"#])
    XCTAssertEqual(keep.status, 0, keep.output)
    XCTAssertTrue(keep.output.contains("(1 kept by --keep)"), keep.output)
    XCTAssertTrue(try String(contentsOfFile: kept, encoding: .utf8).contains(#""app.cache""#))

    let salted = output("salted.trace")
    XCTAssertEqual(
      try CommandRun.chronoscope(["redact", input, "-o", salted, "--salt", "secret"]).status, 0)
    let labels = { (path: String) in
      Set(
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
          .filter { $0.contains(#""e":"scheduler""#) })
    }
    XCTAssertTrue(try labels(salted).isDisjoint(with: labels(once)), "unlinkable")
  }

  func testBadRedactOptionsAndInputsExitTwoAndWriteNothing() throws {
    let input = Recordings.path("retry")
    let out = output("out.trace")
    let cases: [([String], String)] = [
      (["redact", input, "-o", out, "--keep", "(unclosed"], "--keep:"),
      (["redact", input, "-o", input], "is the input file"),
      (["redact", "/nonexistent.trace", "-o", out], "no such file"),
      (["redact", input], "Missing expected argument '--output <output>'"),
      (["redact", input, "-o", output("no/such/dir.trace")], "cannot write"),
    ]
    for (arguments, message) in cases {
      let (status, printed) = try CommandRun.chronoscope(arguments)
      XCTAssertEqual(status, 2, "\(arguments): \(printed)")
      XCTAssertTrue(printed.contains(message), "\(arguments): \(printed)")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
  }

  func testAHeaderNearTheLineLimitBecomesARedactedFileThatValidates() throws {
    // 75,000 short metadata entries: 1 MB, well within a line; as tokens, twice that.
    let entries = (0..<75_000).map { #""k\#($0)":"""# }.joined(separator: ",")
    let input = output("long.trace")
    try Data(
      (#"{"format":"chronoscope-trace","version":1,"clock":"host","start":"2026-11-21T23:46:35Z","process":"p","pid":7,"metadata":{\#(entries)}}"#
        + "\n" + #"{"t":0,"e":"close","events":0,"dropped":0}"# + "\n").utf8
    ).write(to: URL(fileURLWithPath: input))
    try assertValidates(input)
    let out = output("long-redacted.trace")
    let (status, summary) = try CommandRun.chronoscope(["redact", input, "-o", out])
    XCTAssertEqual(status, 0, summary)
    XCTAssertTrue(
      summary.contains(" bytes long, over the 1048576 a line may hold: left out "), summary)
    XCTAssertTrue(summary.contains(" of its 75000 metadata entries"), summary)
    try assertValidates(out)
  }

  func testDropLeavesOutWhatItNamesAndKeepKeepsThreadNames() throws {
    let out = output("dropped.trace")
    let (status, summary) = try CommandRun.chronoscope([
      "redact", Recordings.path("async-actors"), "-o", out, "--drop", "start,cores", "--drop",
      "lines", "--keep", "main|.*-qos.*",
    ])
    XCTAssertEqual(status, 0, summary)
    XCTAssertTrue(
      summary.contains("; dropped the start time, the core count, source lines"), summary)
    try assertValidates(out)
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    let header = try XCTUnwrap(lines.first)
    XCTAssertTrue(header.contains(#""start":"","#), String(header))
    XCTAssertFalse(header.contains("start_ns") || header.contains("cores"), String(header))
    XCTAssertTrue(header.contains(#""pid":0,"#), "no salt: no pid: \(header)")
    XCTAssertTrue(summary.contains("0 thread names (6 kept by --keep)"), summary)
    XCTAssertEqual(lines.filter { $0.contains(#""name":"-qos.overcommit""#) }.count, 4)
    XCTAssertTrue(
      lines.filter { $0.contains(#""e":"site""#) }.allSatisfy { $0.contains(#""line":0,"#) })
    let bad = try CommandRun.chronoscope([
      "redact", Recordings.path("retry"), "-o", output("bad.trace"), "--drop", "start,everything",
    ])
    XCTAssertEqual(bad.status, 2, bad.output)
    XCTAssertTrue(
      bad.output.contains(
        #"--drop: cannot drop "everything"; it drops start, cores, lines, task-ids"#),
      bad.output)
    XCTAssertFalse(FileManager.default.fileExists(atPath: output("bad.trace")))
  }

  func testWritingOverAPrivateFileKeepsItPrivate() throws {
    let input = Recordings.path("busy-app")
    for arguments in [
      ["redact", input], ["slice", input, "--to", "e10"], ["export", input, "--format", "chrome"],
    ] {
      let out = output("private-\(arguments[0])")
      try Data("old".utf8).write(to: URL(fileURLWithPath: out))
      XCTAssertEqual(chmod(out, 0o600), 0)
      let (status, summary) = try CommandRun.chronoscope(arguments + ["-o", out])
      XCTAssertEqual(status, 0, summary)
      let attributes = try FileManager.default.attributesOfItem(atPath: out)
      XCTAssertEqual(
        (attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "\(arguments[0])")
      XCTAssertNotEqual(attributes[.size] as? NSNumber, 3, "\(arguments[0]) wrote its output")
    }
  }

  // MARK: - slice

  func testSlicingEveryRecordingWritesATraceThatValidates() throws {
    for name in try recordings() {
      let out = output("slice-\(name)")
      let (status, summary) = try CommandRun.chronoscope([
        "slice", Recordings.folder.appendingPathComponent(name).path, "--from", "e3", "--to",
        "e10", "-o", out,
      ])
      XCTAssertEqual(status, 0, summary)
      XCTAssertTrue(summary.contains("chronoscope: sliced "), summary)
      try assertValidates(out)
      let header = try XCTUnwrap(
        try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").first)
      XCTAssertTrue(header.contains(#""slice_of":"\#(name)""#), String(header))
    }
  }

  func testASliceByTimeSaysItsWindowAndTheInspectorShowsItsStart() throws {
    let out = output("window.trace")
    let (status, summary) = try CommandRun.chronoscope([
      "slice", Recordings.path("busy-app-virtual"), "--from", "300ms", "--to", "0.6s", "-o", out,
    ])
    XCTAssertEqual(status, 0, summary)
    XCTAssertTrue(summary.contains("from 0.300000s to 0.600000s"), summary)
    XCTAssertTrue(summary.contains("before the window"), summary)
    let text = try String(contentsOfFile: out, encoding: .utf8)
    XCTAssertTrue(text.contains(#""slice_from_ns":"300000000""#))
    XCTAssertTrue(text.contains(#""slice_to_ns":"600000000""#))
    let lines = text.split(separator: "\n")
    let events = lines.filter { line in
      ["schedule", "begin", "end", "hop", "cancel", "mark", "task", "work"].contains {
        line.contains(#""e":"\#($0)""#)
      }
    }
    XCTAssertEqual(
      lines.last.map(String.init),
      #"{"t":600000000,"e":"close","events":\#(events.count),"dropped":0}"#)
    let original = try CommandRun.chronoscope([
      "show", Recordings.path("busy-app-virtual"), "--at", "300ms", "--size", "100x30",
    ])
    let sliced = try CommandRun.chronoscope(["show", out, "--at", "300ms", "--size", "100x30"])
    XCTAssertEqual(sliced.status, 0, sliced.output)
    let pendingLine = { (screen: String) in
      screen.split(separator: "\n").first { $0.contains("Pending") }.map(String.init)
    }
    XCTAssertNotNil(pendingLine(original.output), original.output)
    XCTAssertEqual(pendingLine(sliced.output), pendingLine(original.output), sliced.output)
  }

  func testBadWindowsAndOptionsExitTwoWithAClearMessage() throws {
    let input = Recordings.path("retry")
    let out = output("out.trace")
    let cases: [([String], String)] = [
      (["--from", "40ms", "--to", "10ms"], "after its end"),
      (["--from", "10s"], "after the end: the trace spans 0s to"),
      (["--to", "10s"], "after the end"),
      (["--from", "soon"], "--from: cannot read \"soon\""),
      (["--to", "-1s"], "--to: times start at 0s"),
      (["--from", "e999"], "past the last event"),
      (["--to", "#99"], "no action #99"),
      (["--from", "10"], "needs a unit"),
    ]
    for (window, message) in cases {
      let (status, printed) = try CommandRun.chronoscope(["slice", input] + window + ["-o", out])
      XCTAssertEqual(status, 2, "\(window): \(printed)")
      XCTAssertTrue(printed.contains(message), "\(window): \(printed)")
    }
    let overInput = try CommandRun.chronoscope(["slice", input, "-o", input])
    XCTAssertEqual(overInput.status, 2, overInput.output)
    XCTAssertTrue(overInput.output.contains("is the input file"), overInput.output)
    let missing = try CommandRun.chronoscope(["slice", "/nonexistent.trace", "-o", out])
    XCTAssertEqual(missing.status, 2, missing.output)
    XCTAssertFalse(FileManager.default.fileExists(atPath: out))
  }

  func testBothCommandsExplainThemselves() throws {
    for (command, words) in [
      ("redact", ["--keep", "--salt", "--drop", "task-ids", "--output", "docs/Sharing.md"]),
      ("slice", ["--from", "--to", "--output", "slice_of", "e120"]),
    ] {
      let (status, help) = try CommandRun.chronoscope([command, "--help"])
      XCTAssertEqual(status, 0, help)
      for word in words { XCTAssertTrue(help.contains(word), "\(command): \(word): \(help)") }
    }
    let (_, help) = try CommandRun.chronoscope(["--help"])
    XCTAssertTrue(help.contains("redact"), help)
    XCTAssertTrue(help.contains("slice"), help)
  }
}
