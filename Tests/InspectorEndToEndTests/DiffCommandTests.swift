import Foundation
import TestSupport
import XCTest

/// `chronoscope diff A B`: exit 0 when the same, 1 when different, 2 for bad input.
final class DiffCommandTests: XCTestCase {
  func testAVirtualRecordingDoesNotDifferFromItsReRecording() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("diff-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try CommandRun.chronoscope(["record-example", "busy-app-virtual", "--output", path])
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
    XCTAssertTrue(lines[3].contains("work(taking:)"), "A ran the work: \(lines[3])")
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
