import Foundation
import TestSupport
import XCTest

/// `chronoscope check`: one line per finding, JSON on request, and exit status 0/1/2.
final class CheckCommandTests: XCTestCase {
  private func recording(_ name: String) -> String { Recordings.path(name) }

  func testACleanTraceHasNoFindingsAndExitsZero() throws {
    let (status, output) = try CommandRun.chronoscope(["check", recording("timeout-success")])
    XCTAssertEqual(status, 0, output)
    XCTAssertEqual(output, "")
  }

  func testFindingsArePrintedOneALineAndExitOne() throws {
    let path = recording("busy-app-virtual")
    let (status, output) = try CommandRun.chronoscope(["check", path])
    XCTAssertEqual(status, 1, output)
    let lines = output.split(separator: "\n")
    XCTAssertFalse(lines.isEmpty)
    // FILE: TIME: KIND: #ID QUEUE (SITE): MESSAGE
    let pattern = try NSRegularExpression(
      pattern:
        #"^\#(NSRegularExpression.escapedPattern(for: path)): \d+\.\d{6}s: [a-z-]+: #\d+ .+: .+$"#)
    for line in lines {
      let text = String(line)
      XCTAssertEqual(
        pattern.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text)), 1, text)
    }
    XCTAssertTrue(output.contains(": lost-work: "), "the work scheduled an hour ahead")
    XCTAssertTrue(output.contains(": late: "))
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
    for key in ["kind", "severity", "time_ns", "action", "related", "queue_id", "message"] {
      XCTAssertNotNil(findings[0][key], key)
    }
    XCTAssertEqual((files[1]["findings"] as? [Any])?.count, 0)
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
    let missing = try CommandRun.chronoscope(["check", "/nonexistent.trace"])
    XCTAssertEqual(missing.status, 2, missing.output)
    XCTAssertTrue(missing.output.contains("no such file"), missing.output)
  }
}
