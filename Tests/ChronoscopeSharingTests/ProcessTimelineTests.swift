@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTraceFormat
import XCTest

final class ProcessTimelineTests: XCTestCase {
  private func header(start: String = "", nanoseconds: Int64? = nil) -> TraceHeader {
    var header = TraceHeader(clock: .host, start: start, process: "p", pid: 1)
    header.startNanoseconds = nanoseconds
    return header
  }

  func testTracesLineUpByTheirStartToTheNanosecond() {
    let timeline = ProcessTimeline(headers: [
      header(nanoseconds: 1_795_000_000_500_000_123),
      header(nanoseconds: 1_795_000_000_000_000_000),
    ])
    XCTAssertEqual(timeline.offsets, [500_000_123, 0])
    XCTAssertEqual(timeline.alignments, [.nanoseconds, .nanoseconds])
  }

  func testOlderTracesLineUpByTheirISOStartToTheSecond() {
    let timeline = ProcessTimeline(headers: [
      header(start: "2026-11-22T10:00:02Z"), header(start: "2026-11-22T10:00:00Z"),
      header(start: "not a date"), header(),
    ])
    XCTAssertEqual(timeline.offsets, [2_000_000_000, 0, 0, 0])
    XCTAssertEqual(timeline.alignments, [.seconds, .seconds, .unaligned, .unaligned])
  }

  func testHostileStartsNeitherTrapNorMisalign() {
    let timeline = ProcessTimeline(headers: [
      header(nanoseconds: 0), header(nanoseconds: Int64.max), header(start: "9999-12-31T23:59:59Z"),
      header(start: "1969-01-01T00:00:00Z"),
    ])
    XCTAssertEqual(timeline.offsets[0], 0)
    XCTAssertEqual(timeline.offsets[1], Int64.max)
    XCTAssertEqual(timeline.alignments[3], .unaligned, "before 1970")
  }
}
