import ChronoscopeTraceFormat
import XCTest

/// A site is written one way everywhere, and a line the trace does not know is never shown as 0.
final class CallSiteTextTests: XCTestCase {
  func testASiteWithALineIsFileColonLineAndItsFunction() {
    let site = CallSiteRecord(id: 1, file: "App/Feed.swift", line: 42, function: "run()")
    XCTAssertEqual(site.place, "App/Feed.swift:42")
    XCTAssertEqual(site.text, "App/Feed.swift:42 run()")
  }

  func testASiteWithoutALineIsNamedByItsFileAndFunction() {
    // Symbolized from a module built without debug information: file is the module's name.
    let site = CallSiteRecord(id: 1, file: "feed-refresher", line: 0, function: "main")
    XCTAssertEqual(site.place, "feed-refresher")
    XCTAssertEqual(site.text, "feed-refresher main")
    XCTAssertEqual(CallSiteRecord.text(file: "f", line: 3, function: ""), "f:3")
  }
}
