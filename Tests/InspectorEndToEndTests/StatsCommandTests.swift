import ChronoscopeTestSupport
import Foundation
import XCTest

/// `chronoscope stats` as a user runs it: 80 columns of text, or one JSON document.
final class StatsCommandTests: XCTestCase {
  private func recording(_ name: String) -> String { Recordings.path(name) }

  func testTheTextFitsEightyColumns() throws {
    let (status, output) = try CommandRun.chronoscope(["stats", recording("busy-app-virtual")])
    XCTAssertEqual(status, 0, output)
    for line in output.split(separator: "\n") {
      XCTAssertLessThanOrEqual(line.count, 80, String(line))
    }
    XCTAssertTrue(output.contains("app.network (concurrent)"), output)
    XCTAssertTrue(output.contains("lateness of timer work"), output)
    XCTAssertTrue(output.contains("  late p50 "), output)
  }

  func testJSONHasSchedulersThreadsAndTheHistogram() throws {
    let (status, output) = try CommandRun.chronoscope(["stats", "--json", recording("retry")])
    XCTAssertEqual(status, 0, output)
    let root = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    XCTAssertEqual(root["schema"] as? String, "chronoscope-stats")
    let file = try XCTUnwrap((root["files"] as? [[String: Any]])?.first)
    let schedulers = try XCTUnwrap(file["schedulers"] as? [[String: Any]])
    XCTAssertFalse(schedulers.isEmpty)
    for key in ["scheduled", "ran", "cancelled", "lost", "runs", "lateness_ns", "run_ns"] {
      XCTAssertNotNil(schedulers[0][key], key)
    }
    XCTAssertNotNil(file["lateness_histogram"] as? [String: Int])
    let missing = try CommandRun.chronoscope(["stats", "/nonexistent.trace"])
    XCTAssertEqual(missing.status, 2, missing.output)
  }
}
