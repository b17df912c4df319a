import ChronoscopeTestSupport
import Foundation
import XCTest

/// Several trace files, one per process, on one timeline: `show`, `check --merge`, `stats --merge`.
final class SeveralProcessesTests: XCTestCase {
  func testShowPutsTwoProcessesOnOneTimelineWithTaggedLanes() throws {
    let (status, output) = try CommandRun.chronoscope([
      "show", Recordings.path("contact-loader"), Recordings.path("message-loader"), "--at", "2ms",
      "--size", "120x30",
    ])
    XCTAssertEqual(status, 0, output)
    let lines = output.split(separator: "\n").map(String.init)
    XCTAssertTrue(
      lines[0].contains("P1 contact-loader.trace + P2 message-loader.trace"), lines[0])
    XCTAssertTrue(lines.contains { $0.hasPrefix("▸P1 main") || $0.hasPrefix(" P1 main") })
    XCTAssertTrue(lines.contains { $0.contains(" P2 messages.fetch ") }, output)
    XCTAssertTrue(output.contains("P1 contacts.load"), output)
  }

  func testTracesOnDifferentClocksCannotShareATimeline() throws {
    let (status, output) = try CommandRun.chronoscope([
      "show", Recordings.path("contact-loader"), Recordings.path("busy-app-virtual"),
    ])
    XCTAssertEqual(status, 2, output)
    XCTAssertTrue(output.contains("cannot merge host-clock and virtual-clock traces"), output)
  }

  func testCheckAndStatsMergeOnRequest() throws {
    let files = [Recordings.path("findings-demo"), Recordings.path("timeout-success")]
    let separate = try CommandRun.chronoscope(["check", "--fail-on", "info"] + files)
    let merged = try CommandRun.chronoscope(["check", "--fail-on", "info", "--merge"] + files)
    XCTAssertEqual(separate.status, 1)
    XCTAssertEqual(merged.status, 1)
    let mergedLines = merged.output.split(separator: "\n")
    XCTAssertEqual(mergedLines.count, separate.output.split(separator: "\n").count)
    XCTAssertTrue(mergedLines.allSatisfy { $0.contains(" P1 demo.") || $0.contains(" P1 main") })
    let stats = try CommandRun.chronoscope(["stats", "--merge"] + files)
    XCTAssertEqual(stats.status, 0, stats.output)
    XCTAssertTrue(stats.output.contains("P2 timeout-service"), stats.output)
  }
}
