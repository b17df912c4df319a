@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The `check --json` document as a library type: the bytes the command wrote before, read back
/// by `JSONDecoder`, streamed a chunk at a time, with the text beside it.
final class FindingsReportTests: XCTestCase {
  private typealias Checked = (
    file: String, replay: ReplayEngine, recording: [TraceDiagnostic], findings: [Finding]
  )

  /// The fixture, and a second file whose recording was cut, as `check` gets them.
  private func traces() throws -> [Checked] {
    let replay = try ReportFixtures.replay()
    let findings = FindingsAnalysis.findings(in: replay)
    let cut = TraceDiagnostic(
      severity: .warning, file: "b.trace", line: 12, column: 1,
      message: "the recording did not close: \(ReportFixtures.hostile)")
    return [
      ("a/\(ReportFixtures.hostile).trace", replay, [], findings),
      ("b.trace", replay, [cut], findings),
    ]
  }

  private func streamed(_ traces: [Checked]) -> [UInt8] {
    var bytes: [UInt8] = []
    FindingsReport.writeJSON(traces) { bytes.append(contentsOf: $0) }
    return bytes
  }

  func testTheStreamedDocumentIsTheBuiltReportsJSON() throws {
    let traces = try traces()
    let report = FindingsReport(
      files: traces.map {
        FindingsReport.File(
          file: $0.file, replay: $0.replay, recording: $0.recording, findings: $0.findings)
      })
    XCTAssertTrue(report.files[0].findings.contains { $0.blame != nil && $0.work != nil })
    XCTAssertNil(report.files[0].recording, "a trace that closed says nothing of its recording")
    XCTAssertEqual(report.files[1].recording?.map(\.line), [12])
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
        FindingsReport.File(
          file: $0.file, replay: $0.replay, recording: $0.recording, findings: $0.findings)
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

  func testASiteWithoutALineIsPrintedWithoutALineZero() throws {
    let traces = try traces()
    let late = try XCTUnwrap(traces[0].findings.first { $0.kind == .late })
    var entry = FindingsReport.Entry(late, blame: nil, in: traces[0].replay)
    entry.site?.line = 0
    let line = entry.line(file: "f")
    XCTAssertTrue(line.contains(" (App/\(ReportFixtures.hostile).swift): "), line)
    XCTAssertFalse(line.contains(".swift:0"), line)
  }

  /// 1M findings must cost what their text costs: the document is handed over a chunk at a
  /// time as the findings are written, never held whole.
  func testManyFindingsAreHandedOverInChunksNeverAsOneDocument() throws {
    let traces = try traces()
    let many = Array(repeating: traces[0].findings[0], count: 20_000)
    var chunks = 0
    var largest = 0
    var total = 0
    FindingsReport.writeJSON([(traces[0].file, traces[0].replay, [], many)]) {
      chunks += 1
      largest = max(largest, $0.count)
      total += $0.count
    }
    XCTAssertGreaterThan(total, 4_000_000)
    XCTAssertGreaterThan(chunks, 30)
    XCTAssertLessThanOrEqual(largest, 200_000)
  }
}
