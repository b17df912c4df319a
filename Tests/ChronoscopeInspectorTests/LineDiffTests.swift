import XCTest

final class LineDiffTests: XCTestCase {
  func testAnAddedLineShowsAsItselfWithoutShiftingTheRest() {
    XCTAssertEqual(lineDiff(expected: "a\nb\nc", actual: "a\nx\nb\nc"), "+ 2: x")
  }

  func testARemovedLineShowsAsItself() {
    XCTAssertEqual(lineDiff(expected: "a\nb\nc", actual: "a\nc"), "- 2: b")
  }

  func testAChangedLineShowsBothVersionsAndTrailingLinesAreNotDropped() {
    XCTAssertEqual(
      lineDiff(expected: "a\nb", actual: "a\nB\nc\nd"), "- 2: b\n+ 2: B\n+ 3: c\n+ 4: d")
  }
}
