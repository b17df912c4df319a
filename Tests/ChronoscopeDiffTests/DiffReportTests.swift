import ChronoscopeDiff
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The `diff --json` document as a library type: the bytes the command wrote before, read back
/// by `JSONDecoder`, with the text beside it.
final class DiffReportTests: XCTestCase {
  private func replay(_ name: String) throws -> ReplayEngine {
    let reading = TraceReader.read(path: Recordings.path(name))
    return ReplayEngine(trace: try XCTUnwrap(reading.trace, "\(reading.diagnostics)"))
  }

  private func report(origin: TraceDiff.Origin = .firstEvent) throws -> DiffReport {
    let diff = try TraceDiff(
      replay("busy-app"), replay("busy-app-virtual"), tolerance: 1_000_000, origin: origin)
    return DiffReport(diff, a: "a/busy\u{202E}.trace", b: "b.trace")
  }

  func testTheDocumentIsWhatJSONSerializationWroteByteForByte() throws {
    for origin in [TraceDiff.Origin.firstEvent, .mark("burst")] {
      let report = try report(origin: origin)
      XCTAssertFalse(report.same)
      XCTAssertFalse(report.timing.isEmpty || report.onlyInA.isEmpty)
      XCTAssertNotNil(report.firstDivergence)
      let bytes = report.json()
      let object = try JSONSerialization.jsonObject(with: Data(bytes))
      let data = try JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
      XCTAssertEqual(
        String(decoding: bytes, as: UTF8.self),
        JSONEscaping.escapingControls(inJSON: String(decoding: data, as: UTF8.self)))
    }
  }

  func testTheDocumentReadsBackAsTheSameReport() throws {
    let report = try report(origin: .mark("burst"))
    XCTAssertEqual(report.originMark, "burst")
    XCTAssertEqual(try JSONDecoder().decode(DiffReport.self, from: Data(report.json())), report)
    XCTAssertEqual(
      try JSONDecoder().decode(DiffReport.self, from: JSONEncoder().encode(report)), report)
  }

  func testTheTextNamesTheOriginTheDivergenceAndShowsAtMostTheListsFirstEntries() throws {
    let lines = try report(origin: .mark("burst")).textLines(shown: 2)
    XCTAssertTrue(
      lines[0].hasPrefix("A: a/busy\u{202E}.trace (times from its first mark \"burst\", at "))
    XCTAssertTrue(lines.contains { $0.hasPrefix("first divergence at run ") }, "\(lines)")
    XCTAssertTrue(lines.contains { $0.hasPrefix("  … ") && $0.hasSuffix(" more") }, "\(lines)")
  }

  func testTracesThatDoNotDifferSaySo() throws {
    let replay = try replay("retry")
    let report = DiffReport(TraceDiff(replay, replay, tolerance: 0), a: "a", b: "b")
    XCTAssertTrue(report.same)
    XCTAssertEqual(report.textLines().count, 3)
    XCTAssertTrue(report.textLines()[2].hasPrefix("no difference"))
  }
}
