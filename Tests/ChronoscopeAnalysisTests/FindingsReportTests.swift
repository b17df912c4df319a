@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The `check --json` document as a library type: the bytes the command wrote before, read back
/// by `JSONDecoder`, streamed a chunk at a time, with the text beside it.
final class FindingsReportTests: XCTestCase {
  private func traces() throws -> [(file: String, replay: ReplayEngine, findings: [Finding])] {
    let replay = try ReportFixtures.replay()
    return [("a/\(ReportFixtures.hostile).trace", replay, FindingsAnalysis.findings(in: replay))]
  }

  private func streamed(_ traces: [(file: String, replay: ReplayEngine, findings: [Finding])])
    -> [UInt8]
  {
    var bytes: [UInt8] = []
    FindingsReport.writeJSON(traces) { bytes.append(contentsOf: $0) }
    return bytes
  }

  func testTheStreamedDocumentIsTheBuiltReportsJSON() throws {
    let traces = try traces()
    let report = FindingsReport(
      files: traces.map {
        FindingsReport.File(file: $0.file, replay: $0.replay, findings: $0.findings)
      })
    XCTAssertTrue(report.files[0].findings.contains { $0.blame != nil && $0.work != nil })
    XCTAssertEqual(streamed(traces), report.json())
  }

  func testTheDocumentIsWhatJSONSerializationWroteByteForByte() throws {
    let bytes = streamed(try traces())
    XCTAssertEqual(
      String(decoding: bytes, as: UTF8.self),
      String(decoding: try ReportFixtures.serializationBytes(of: bytes), as: UTF8.self))
  }

  func testTheDocumentReadsBackAsTheSameReport() throws {
    let traces = try traces()
    let report = FindingsReport(
      files: traces.map {
        FindingsReport.File(file: $0.file, replay: $0.replay, findings: $0.findings)
      })
    XCTAssertEqual(try JSONDecoder().decode(FindingsReport.self, from: Data(report.json())), report)
    XCTAssertEqual(
      try JSONDecoder().decode(FindingsReport.self, from: JSONEncoder().encode(report)), report)
    XCTAssertEqual(report.schema, "chronoscope-findings")
    XCTAssertEqual(report.version, 1)
  }

  func testAnEntrysLineIsWhatCheckPrints() throws {
    let traces = try traces()
    let late = try XCTUnwrap(traces[0].findings.first { $0.kind == .late })
    let entry = FindingsReport.Entry(late, blame: nil, in: traces[0].replay)
    XCTAssertEqual(
      entry.line(file: "f"),
      "f: 0.400000s: warning: late: #2 \"\(ReportFixtures.hostile) 10=z <1=y B2=x a=w b10=\(ReportFixtures.hostile)\" \(ReportFixtures.hostile) (App/\(ReportFixtures.hostile).swift:40): \(late.message)"
    )
  }

  /// 1M findings must cost what their text costs: the document is handed over a chunk at a
  /// time as the findings are written, never held whole.
  func testManyFindingsAreHandedOverInChunksNeverAsOneDocument() throws {
    let traces = try traces()
    let many = Array(repeating: traces[0].findings[0], count: 20_000)
    var chunks = 0
    var largest = 0
    var total = 0
    FindingsReport.writeJSON([(traces[0].file, traces[0].replay, many)]) {
      chunks += 1
      largest = max(largest, $0.count)
      total += $0.count
    }
    XCTAssertGreaterThan(total, 4_000_000)
    XCTAssertGreaterThan(chunks, 30)
    XCTAssertLessThanOrEqual(largest, 200_000)
  }
}
