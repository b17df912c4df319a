import ChronoscopeTestSupport
import Foundation
import XCTest

/// A tool that reads a trace (ChronoscopeTraceFormat) keeps nothing of the reader in its process
/// after the read: the crash handlers that guard a mapped file against truncation are put back as
/// they were, and no worker thread is started for them. Run in a child, whose process state no
/// other test has touched.
final class ReaderProcessStateTests: XCTestCase {
  func testReadingATraceLeavesTheCrashSignalsAsItFoundThem() throws {
    let run = try CommandRun.examples(["read-trace", Recordings.path("async-search")])
    XCTAssertEqual(run.status, 0, run.output)
    let lines = run.output.split(separator: "\n").map(String.init)
    let before = try XCTUnwrap(lines.first { $0.hasPrefix("before: ") }, run.output)
    let after = try XCTUnwrap(lines.first { $0.hasPrefix("after: ") }, run.output)
    XCTAssert(lines.contains { $0.hasPrefix("events: ") && $0 != "events: -1" }, run.output)
    XCTAssertEqual(after.dropFirst("after: ".count), before.dropFirst("before: ".count))
    XCTAssert(after.hasSuffix("signal-worker=no"), after)
  }
}
