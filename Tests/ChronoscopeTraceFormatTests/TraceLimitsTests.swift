import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The reader enforces the ranges docs/TraceFormat.md documents: a value outside them is an
/// error at its field's position that names the range, and the line is not used.
final class TraceLimitsTests: XCTestCase {
  private let header = #"{"format":"chronoscope-trace","version":1,"clock":"host"}"#
  private let scheduler =
    #"{"t":0,"e":"scheduler","q":1,"label":"db","kind":"serial","family":"dispatch"}"#

  private func read(_ lines: [String]) -> TraceReading {
    TraceReader.parse(Array((lines.joined(separator: "\n") + "\n").utf8), file: "bug.trace")
  }

  /// `line:column: message` of every error.
  private func errors(_ lines: [String]) -> [String] {
    read(lines).diagnostics.filter { $0.severity == .error }.map {
      "\($0.line):\($0.column): \($0.message)"
    }
  }

  func testTimesAtTheLimitAreReadAndOneNanosecondMoreIsAnError() {
    let limit = TraceLimits.maximumTime
    XCTAssertEqual(limit, 4_611_686_018_427_387_903)
    let reading = read([
      header, scheduler,
      #"{"t":\#(limit),"e":"schedule","a":1,"q":1,"mode":"after","delay":\#(limit),"due":\#(limit),"th":1}"#,
      #"{"t":\#(limit),"e":"close","events":1,"dropped":0}"#,
    ])
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics)")
    XCTAssertEqual(reading.trace?.events.first?.delay, limit)
    XCTAssertEqual(
      errors([header, scheduler, #"{"t":\#(limit + 1),"e":"begin","a":1,"th":1}"#]),
      [
        #"3:6: field "t" must be between 0 and 4611686018427387903 (2^62 - 1 ns), found 4611686018427387904"#
      ])
  }

  func testNegativeOrHugeDelaysDuesAndDurationsAreErrorsAtTheirField() {
    XCTAssertEqual(
      errors([
        header, scheduler,
        #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"after","delay":-1,"due":1,"th":1}"#,
        #"{"t":1,"e":"schedule","a":2,"q":1,"mode":"async","due":-9223372036854775808,"th":1}"#,
        #"{"t":1,"e":"end","a":1,"th":1,"dur":9223372036854775807}"#,
      ]),
      [
        #"3:58: field "delay" must be between 0 and 4611686018427387903 (2^62 - 1 ns), found -1"#,
        #"4:56: field "due" must be between 0 and 4611686018427387903 (2^62 - 1 ns), found -9223372036854775808"#,
        #"5:37: field "dur" must be between 0 and 4611686018427387903 (2^62 - 1 ns), found 9223372036854775807"#,
      ])
  }

  func testARunOfZeroOrBeyondThirtyTwoBitsIsAnError() {
    XCTAssertEqual(
      errors([
        header, scheduler,
        #"{"t":1,"e":"begin","a":1,"th":1,"run":0}"#,
        #"{"t":1,"e":"end","a":1,"th":1,"run":4294967296,"dur":0}"#,
        #"{"t":1,"e":"begin","a":1,"th":1,"run":-3}"#,
      ]),
      [
        #"3:39: field "run" must be between 1 and 4294967295, found 0"#,
        #"4:37: field "run" must be between 1 and 4294967295, found 4294967296"#,
        #"5:39: field "run" must be between 1 and 4294967295, found -3"#,
      ])
  }

  func testCountsOutsideTheirRangeAreErrors() {
    XCTAssertEqual(
      errors([
        header,
        #"{"t":1,"e":"dropped","count":-1}"#,
        #"{"t":1,"e":"close","events":9223372036854775807,"dropped":0}"#,
      ]),
      [
        #"2:30: field "count" must be between 0 and 4611686018427387903 (2^62 - 1), found -1"#,
        #"3:29: field "events" must be between 0 and 4611686018427387903 (2^62 - 1), found 9223372036854775807"#,
      ])
  }

  /// Fuzzing suspect from issue 9: `dropped` counts summed past `Int64.max` trapped.
  func testDroppedCountsSummingPastTheLimitStopAtItInsteadOfTrapping() {
    let most = TraceLimits.maximumCount
    let reading = read([
      header,
      #"{"t":1,"e":"dropped","count":\#(most)}"#,
      #"{"t":1,"e":"dropped","count":\#(most)}"#,
      #"{"t":1,"e":"dropped","count":\#(most)}"#,
    ])
    XCTAssertFalse(reading.hasErrors)
    XCTAssertEqual(reading.trace?.droppedEvents, most)
  }

  func testASourceLineOutsideThirtyTwoBitsIsAnError() {
    XCTAssertEqual(
      errors([header, #"{"t":1,"e":"site","site":1,"file":"a.swift","line":-1,"func":"f()"}"#]),
      [#"2:52: field "line" must be between 0 and 2147483647, found -1"#])
  }

  func testAStringLongerThanTheLimitIsAnErrorButOneAtTheLimitIsRead() {
    let limit = TraceLimits.maximumStringLength
    let atLimit = String(repeating: "x", count: limit)
    let reading = read([header, #"{"t":1,"e":"mark","th":1,"name":"\#(atLimit)"}"#])
    XCTAssertFalse(reading.hasErrors)
    XCTAssertEqual(reading.trace?.marks.first?.name.utf8.count, limit)
    XCTAssertEqual(
      errors([header, #"{"t":1,"e":"mark","th":1,"name":"\#(atLimit)y"}"#]),
      [#"2:33: field "name" is 65537 bytes long; strings longer than 65536 bytes are not read"#])
    XCTAssertEqual(
      errors([header, #"{"t":1,"e":"mark","th":1,"name":"m","fields":{"k":"\#(atLimit)y"}}"#]),
      [
        #"2:51: a value in "fields" is 65537 bytes long; strings longer than 65536 bytes are not read"#
      ])
  }

  func testCoresAreReadFromOneTo65536AsTheSpecsRangesTableSays() throws {
    let spec = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/TraceFormat.md"), encoding: .utf8)
    let ranges = try XCTUnwrap(spec.components(separatedBy: "### Ranges").last)
    XCTAssertTrue(
      ranges.contains("| `cores` (of the header) | 1 … 65,536 |"), "docs/TraceFormat.md")
    let withCores = { (cores: Int) in
      #"{"format":"chronoscope-trace","version":1,"clock":"host","cores":\#(cores)}"#
    }
    XCTAssertEqual(read([withCores(65_536)]).trace?.header.cores, 65_536)
    XCTAssertEqual(read([withCores(1)]).trace?.header.cores, 1)
    for cores in [0, 65_537] {
      XCTAssertEqual(
        errors([withCores(cores)]),
        [#"1:66: field "cores" must be between 1 and 65536, found \#(cores)"#], "\(cores)")
    }
  }

  func testACodeAddressSiteIsReadAndItsOffsetsMustNotBeNegative() throws {
    let site =
      #"{"t":0,"e":"site","site":1,"file":"app","line":0,"func":"0x1f","module":"/bin/app","offset":31,"build-id":"ab12","caller":7}"#
    let reading = read([header, site])
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics)")
    XCTAssertEqual(
      try XCTUnwrap(reading.trace?.callSites[1]?.code),
      CodeLocation(module: "/bin/app", offset: 31, buildID: "ab12", callerOffset: 7))
    // A module without an offset says nowhere; a negative offset is no place.
    XCTAssertEqual(
      errors([
        header, #"{"t":0,"e":"site","site":1,"file":"a","line":0,"func":"f","module":"/a"}"#,
      ]).count, 1)
    XCTAssertEqual(
      errors([
        header,
        #"{"t":0,"e":"site","site":1,"file":"a","line":0,"func":"f","module":"/a","offset":-1}"#,
        #"{"t":0,"e":"site","site":2,"file":"a","line":0,"func":"f","module":"/a","offset":1,"caller":-2}"#,
      ]).count, 2)
  }
}
