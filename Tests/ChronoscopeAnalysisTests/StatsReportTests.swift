@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The `stats --json` document as a library type: the bytes the command wrote before, read back
/// by `JSONDecoder`, streamed a scheduler at a time, with the text beside it.
final class StatsReportTests: XCTestCase {
  private func traces() throws -> [(file: String, statistics: TraceStatistics)] {
    [("s/\(ReportFixtures.hostile).trace", TraceStatistics(try ReportFixtures.replay()))]
  }

  private func streamed(_ traces: [(file: String, statistics: TraceStatistics)]) -> [UInt8] {
    var bytes: [UInt8] = []
    StatsReport.writeJSON(traces) { bytes.append(contentsOf: $0) }
    return bytes
  }

  func testTheStreamedDocumentIsTheBuiltReportsJSON() throws {
    let traces = try traces()
    let report = StatsReport(
      files: traces.map { StatsReport.File(file: $0.file, statistics: $0.statistics) })
    XCTAssertEqual(streamed(traces), report.json())
  }

  func testTheDocumentIsWhatJSONSerializationWroteByteForByte() throws {
    let bytes = streamed(try traces())
    XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains(#""utilisation":0.9"#))
    XCTAssertEqual(
      String(decoding: bytes, as: UTF8.self),
      String(decoding: try ReportFixtures.serializationBytes(of: bytes), as: UTF8.self))
  }

  func testTheDocumentReadsBackAsTheSameReport() throws {
    let traces = try traces()
    let report = StatsReport(
      files: traces.map { StatsReport.File(file: $0.file, statistics: $0.statistics) })
    XCTAssertEqual(try JSONDecoder().decode(StatsReport.self, from: Data(report.json())), report)
    XCTAssertEqual(
      try JSONDecoder().decode(StatsReport.self, from: JSONEncoder().encode(report)), report)
  }

  func testTheTextFitsEightyColumnsAndNamesEachScheduler() throws {
    let lines = try traces()[0].statistics.textLines(file: "s.trace")
    XCTAssertEqual(lines.first, "s.trace · 0.400000s")
    XCTAssertTrue(lines.contains("main (main)"), "\(lines)")
    XCTAssertTrue(lines.allSatisfy { $0.count <= 80 }, "\(lines)")
  }
}
