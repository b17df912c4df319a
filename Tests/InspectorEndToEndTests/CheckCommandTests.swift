import ChronoscopeTestSupport
import Foundation
import XCTest

/// `chronoscope check`: one line per finding, JSON on request, and exit status 0/1/2.
final class CheckCommandTests: XCTestCase {
  private func recording(_ name: String) -> String { Recordings.path(name) }

  func testReRecordingTheVirtualFindingsDemoReproducesTheBundledTrace() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let (status, output) = try CommandRun.examples([
      "record", "findings-demo-virtual", "--output", path,
    ])
    XCTAssertEqual(status, 0, output)
    XCTAssertEqual(
      try String(contentsOfFile: path, encoding: .utf8),
      try String(contentsOfFile: recording("findings-demo-virtual"), encoding: .utf8),
      "re-record with: swift run chronoscope-examples record findings-demo-virtual")
  }

  func testACleanTraceHasNoFindingsAndExitsZero() throws {
    let (status, output) = try CommandRun.chronoscope(["check", recording("timeout-success")])
    XCTAssertEqual(status, 0, output)
    XCTAssertEqual(output, "")
  }

  func testFindingsArePrintedOneALineWithTheirSeverityAndExitOne() throws {
    let path = recording("busy-app-virtual")
    let (status, output) = try CommandRun.chronoscope(["check", "--fail-on", "info", path])
    XCTAssertEqual(status, 1, output)
    let lines = output.split(separator: "\n")
    XCTAssertFalse(lines.isEmpty)
    // FILE: TIME: SEVERITY: KIND: #ID SCHEDULER (SITE): MESSAGE
    let pattern = try NSRegularExpression(
      pattern:
        #"^\#(NSRegularExpression.escapedPattern(for: path)): \d+\.\d{6}s: (error|warning|info): [a-z-]+: #\d+ .+: .+$"#
    )
    for line in lines {
      let text = String(line)
      XCTAssertEqual(
        pattern.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text)), 1, text)
    }
    XCTAssertTrue(output.contains(": info: lost-work: "), "the work scheduled an hour ahead")
    XCTAssertTrue(output.contains(": warning: late: "))
  }

  func testInfoFindingsNeitherFailNorFillTheOutput() throws {
    // The live busy app cancels timers that already fired, as every timeout does: info only.
    let (status, output) = try CommandRun.chronoscope(["check", recording("busy-app")])
    XCTAssertEqual(status, 0, output)
    // The count changes with each re-recording of the live app; the sentence does not.
    let prefix = "chronoscope: "
    let suffix = " info findings not listed (--fail-on info lists them, --json has them all)\n"
    XCTAssertTrue(output.hasPrefix(prefix) && output.hasSuffix(suffix), output)
    let count = try XCTUnwrap(Int(output.dropFirst(prefix.count).dropLast(suffix.count)), output)
    XCTAssertGreaterThan(count, 10, "every timeout of the busy app")
    let strict = try CommandRun.chronoscope(["check", "--fail-on", "info", recording("busy-app")])
    XCTAssertEqual(strict.status, 1, strict.output)
    XCTAssertEqual(strict.output.components(separatedBy: ": info: ").count - 1, count)
    XCTAssertGreaterThan(
      strict.output.components(separatedBy: ": info: no-op-cancel: ").count - 1, 10, strict.output)
  }

  func testARuleAskedForByNameListsItsInfoFindingsWithoutFailing() throws {
    let run = try CommandRun.chronoscope(["check", "--only", "no-op-cancel", recording("busy-app")])
    XCTAssertEqual(run.status, 0, "info does not fail: \(run.output)")
    let lines = run.output.split(separator: "\n")
    XCTAssertGreaterThan(lines.count, 10, "every timeout of the busy app: \(run.output)")
    XCTAssertTrue(lines.allSatisfy { $0.contains(": info: no-op-cancel: ") }, run.output)
    XCTAssertFalse(run.output.contains("not listed"), run.output)
  }

  func testFailOnOnlyAndIgnoreChooseWhatFails() throws {
    let demo = recording("findings-demo")
    let errors = try CommandRun.chronoscope(["check", "--fail-on", "error", demo])
    XCTAssertEqual(errors.status, 1, "the hang is an error: \(errors.output)")
    XCTAssertTrue(errors.output.contains(": warning: late: "), "warnings are still listed")
    let noHang = try CommandRun.chronoscope([
      "check", "--fail-on", "error", "--ignore", "main-thread-hang", demo,
    ])
    XCTAssertEqual(noHang.status, 0, noHang.output)
    let only = try CommandRun.chronoscope([
      "check", "--only", "late,lost-work", "--only", "leaked-timer", "--ignore", "late", demo,
    ])
    XCTAssertEqual(only.status, 1, only.output)
    let kinds = Set(
      only.output.split(separator: "\n").map { $0.components(separatedBy: ": ").dropFirst(3).first }
    )
    XCTAssertEqual(kinds, ["lost-work", "leaked-timer"], only.output)
    for bad in [["--only", "lat"], ["--ignore", "late,nope"], ["--fail-on", "fatal"]] {
      let run = try CommandRun.chronoscope(["check"] + bad + [demo])
      XCTAssertEqual(run.status, 2, "\(bad): \(run.output)")
    }
    let unknown = try CommandRun.chronoscope(["check", "--only", "lat", demo])
    XCTAssertTrue(unknown.output.contains(#"--only: no rule "lat"; the rules are lost-work"#))
  }

  func testASlicesOwnEndAddsNothingThatFails() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("slice-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let cut = try CommandRun.chronoscope([
      "slice", recording("busy-app"), "--from", "100ms", "--to", "200ms", "-o", path,
    ])
    XCTAssertEqual(cut.status, 0, cut.output)
    let (status, output) = try CommandRun.chronoscope(["check", path])
    XCTAssertEqual(status, 0, "work pending where the window ends is not lost: \(output)")
    let (_, json) = try CommandRun.chronoscope(["check", "--json", path])
    XCTAssertTrue(json.contains("still pending where the window ends"), "a hint remains: \(json)")
  }

  func testLateFindingsCarryTheirBlameInJSON() throws {
    let (_, output) = try CommandRun.chronoscope([
      "check", "--json", "--only", "late", recording("findings-demo-virtual"),
    ])
    let root = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    let findings = try XCTUnwrap(
      (root["files"] as? [[String: Any]])?.first?["findings"] as? [[String: Any]])
    XCTAssertEqual(findings.count, 3)
    for finding in findings {
      let blame = try XCTUnwrap(finding["blame"] as? [String: Any], "\(finding)")
      let shares = try XCTUnwrap(blame["shares"] as? [[String: Any]])
      XCTAssertEqual(
        shares.compactMap { $0["duration_ns"] as? Int }.reduce(0, +),
        finding["duration_ns"] as? Int, "the stretches add up to the lateness")
      XCTAssertEqual(blame["lateness_ns"] as? Int, finding["duration_ns"] as? Int)
    }
    // #6 waited on main behind the 300 ms hang, #7.
    let six = try XCTUnwrap(
      findings.first { $0["action"] as? Int == 6 }?["blame"] as? [String: Any])
    XCTAssertEqual(six["waited_for"] as? String, "main-thread")
    XCTAssertEqual((six["shares"] as? [[String: Any]])?.first?["action"] as? Int, 7)
  }

  func testJSONIsOneDocumentWithTheFindings() throws {
    let (status, output) = try CommandRun.chronoscope([
      "check", "--json", recording("busy-app-virtual"), recording("timeout-success"),
    ])
    XCTAssertEqual(status, 1, output)
    let root = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    XCTAssertEqual(root["schema"] as? String, "chronoscope-findings")
    let files = try XCTUnwrap(root["files"] as? [[String: Any]])
    XCTAssertEqual(files.count, 2)
    let findings = try XCTUnwrap(files[0]["findings"] as? [[String: Any]])
    XCTAssertFalse(findings.isEmpty)
    for key in ["kind", "severity", "time_ns", "action", "related", "scheduler_id", "message"] {
      XCTAssertNotNil(findings[0][key], key)
    }
    XCTAssertEqual((files[1]["findings"] as? [Any])?.count, 0)
  }

  /// `timeout-success`, whose findings are none, with its last line replaced by `ending`.
  private func clean(endingWith ending: String?) throws -> (path: String, lastLine: Int) {
    var lines = try String(contentsOfFile: recording("timeout-success"), encoding: .utf8)
      .split(separator: "\n").map(String.init)
    lines.removeLast()  // its `close`
    if let ending { lines.append(ending) }
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("ended-\(UUID().uuidString).trace").path
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return (path, lines.count)
  }

  func testATraceThatWasCutSaysSoOnceAndFails() throws {
    let (cut, last) = try clean(endingWith: nil)
    let (status, output) = try CommandRun.chronoscope(["check", cut])
    XCTAssertEqual(status, 1, "CI can tell a cut trace from a whole one: \(output)")
    XCTAssertEqual(
      output.split(separator: "\n").map(String.init),
      [
        "\(cut):\(last):1: warning: the recording did not close: the process may have crashed or not called close(); the last moments may be missing"
      ])
    let relaxed = try CommandRun.chronoscope(["check", "--fail-on", "error", cut])
    XCTAssertEqual(relaxed.status, 0, relaxed.output)
    XCTAssertTrue(relaxed.output.contains("did not close"), "still said: \(relaxed.output)")
  }

  func testTheRecordingRuleIsChosenAndLeftOutAsAKindIs() throws {
    let cut = try clean(endingWith: nil).path
    let narrowed = try CommandRun.chronoscope(["check", "--only", "late,lost-work", cut])
    XCTAssertEqual(narrowed.status, 0, "--only leaves the rule out: \(narrowed.output)")
    XCTAssertTrue(narrowed.output.contains("did not close"), "still said: \(narrowed.output)")
    let ignored = try CommandRun.chronoscope(["check", "--ignore", "recording", cut])
    XCTAssertEqual(ignored.status, 0, ignored.output)
    XCTAssertEqual(ignored.output, "")
    let ignoredJSON = try CommandRun.chronoscope(["check", "--json", "--ignore", "recording", cut])
    XCTAssertEqual(ignoredJSON.status, 0, ignoredJSON.output)
    XCTAssertFalse(ignoredJSON.output.contains("\"recording\""), ignoredJSON.output)
    let chosen = try CommandRun.chronoscope(["check", "--only", "recording", cut])
    XCTAssertEqual(chosen.status, 1, chosen.output)
    let unknown = try CommandRun.chronoscope(["check", "--only", "recordings", cut])
    XCTAssertEqual(unknown.status, 2, unknown.output)
    XCTAssertTrue(unknown.output.contains("thread-explosion, recording"), unknown.output)
  }

  func testACrashAStopAndDroppedEventsAreSaidBeforeTheFindings() throws {
    let (crashed, last) = try clean(
      endingWith: #"{"t":55847903,"e":"crash","signal":"SIGSEGV","th":3}"#)
    let crash = try CommandRun.chronoscope(["check", crashed])
    XCTAssertEqual(crash.status, 1, crash.output)
    XCTAssertTrue(
      crash.output.hasPrefix(
        "\(crashed):\(last):1: warning: the process crashed (SIGSEGV on thread 3)"),
      crash.output)
    let dropped = try clean(endingWith: #"{"t":55847903,"e":"dropped","count":7}"#).path
    let drop = try CommandRun.chronoscope(["check", dropped])
    XCTAssertEqual(drop.status, 1, drop.output)
    XCTAssertTrue(drop.output.contains("7"), drop.output)
    XCTAssertEqual(drop.output.split(separator: "\n").count, 2, "the drop, then the missing close")
  }

  func testJSONCarriesTheRecordingsEndingPerFile() throws {
    let (cut, last) = try clean(endingWith: nil)
    let (status, output) = try CommandRun.chronoscope([
      "check", "--json", recording("timeout-success"), cut,
    ])
    XCTAssertEqual(status, 1, output)
    let root = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    let files = try XCTUnwrap(root["files"] as? [[String: Any]])
    XCTAssertNil(files[0]["recording"], "a whole trace has no note")
    let notes = try XCTUnwrap(files[1]["recording"] as? [[String: Any]])
    XCTAssertEqual(notes.count, 1)
    XCTAssertEqual(notes[0]["line"] as? Int, last)
    XCTAssertEqual(notes[0]["file"] as? String, cut)
    XCTAssertEqual(notes[0]["severity"] as? String, "warning")
    XCTAssertTrue((notes[0]["message"] as? String)?.contains("did not close") == true)
  }

  func testMergedFilesSayWhichOneWasCut() throws {
    let cut = try clean(endingWith: nil).path
    let (status, output) = try CommandRun.chronoscope([
      "check", "--merge", recording("timeout-success"), cut,
    ])
    XCTAssertEqual(status, 1, output)
    XCTAssertTrue(output.contains("\(cut):"), "the note names the file that was cut: \(output)")
    XCTAssertEqual(output.split(separator: "\n").count { $0.contains("did not close") }, 1, output)
  }

  func testNothingFromTheTraceReachesTheTerminalRawInTextOrJSON() throws {
    let lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"x","pid":1,"metadata":{}}"#,
      #"{"t":0,"e":"scheduler","q":1,"label":"evil\u009b31m\u202e\u007f\u001b[2J","kind":"serial","family":"d"}"#,
      #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"async","due":1,"th":1}"#,
      #"{"t":2,"e":"begin","a":1,"th":1,"run":1}"#,
      #"{"t":3,"e":"end","a":1,"th":1,"run":1,"dur":1}"#,
      #"{"t":4,"e":"cancel","a":1,"th":1,"started":true}"#,
      #"{"t":5,"e":"close","events":4,"dropped":0}"#,
    ]
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("evil-\(UUID().uuidString).trace").path
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    for arguments in [
      ["check"], ["check", "--fail-on", "info"], ["check", "--json"], ["stats"],
      ["stats", "--json"],
    ] {
      let (_, output) = try CommandRun.chronoscope(arguments + [path])
      XCTAssertFalse(
        output.unicodeScalars.contains {
          $0.value < 0x0A || (0x0B..<0x20).contains($0.value) || (0x7F...0x9F).contains($0.value)
            || $0.value == 0x202E
        }, "\(arguments): \(output)")
    }
    let (_, json) = try CommandRun.chronoscope(["check", "--json", path])
    let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let finding = try XCTUnwrap(
      ((root["files"] as? [[String: Any]])?.first?["findings"] as? [[String: Any]])?.first)
    XCTAssertEqual(
      finding["scheduler"] as? String, "evil\u{9b}31m\u{202e}\u{7f}\u{1b}[2J", "escaped, not lost")
  }

  func testThresholdsComeFromFlagsAndBadOnesExitTwo() throws {
    let strict = try CommandRun.chronoscope([
      "check", "--late", "1ns", recording("virtual-timeout"),
    ])
    XCTAssertEqual(strict.status, 0, "virtual work begins exactly on time: \(strict.output)")
    let loose = try CommandRun.chronoscope([
      "check", "--late", "1000s", recording("busy-app-virtual"),
    ])
    XCTAssertFalse(loose.output.contains(": late: "), loose.output)
    let bad = try CommandRun.chronoscope(["check", "--late", "soon", recording("retry")])
    XCTAssertEqual(bad.status, 2, bad.output)
    XCTAssertTrue(bad.output.contains("--late must be a duration"), bad.output)
    for negative in [["--late", "-5ms"], ["--late=-5ms"], ["--hang", "-1s"]] {
      let run = try CommandRun.chronoscope(["check"] + negative + [recording("retry")])
      XCTAssertEqual(run.status, 2, run.output)
      XCTAssertTrue(
        run.output.contains(
          "chronoscope: \(negative[0].prefix { $0 != "=" }): a duration must not be negative: -"),
        "\(negative): \(run.output)")
    }
    let missing = try CommandRun.chronoscope(["check", "/nonexistent.trace"])
    XCTAssertEqual(missing.status, 2, missing.output)
    XCTAssertTrue(missing.output.contains("no such file"), missing.output)
  }
}
