@_spi(Benchmarks) import ChronoscopeReplay
import XCTest

/// An action id is written `#12` wherever a user reads or types one; `12` alone is taken only where
/// nothing else could be meant.
final class ActionIDParsingTests: XCTestCase {
  func testAnIdIsReadAsItIsWritten() {
    let id = ActionID(rawValue: 12)
    XCTAssertEqual(id.description, "#12")
    XCTAssertEqual(ActionID(parsing: id.description), id, "what is shown reads back")
    XCTAssertEqual(ActionID(parsing: " #12 "), id)
    XCTAssertEqual(ActionID(parsing: "12"), id)
    XCTAssertEqual(ActionID(parsing: "#4294967295"), ActionID(rawValue: .max))
  }

  func testOnlyDigitsAfterTheHashAreAnId() {
    for text in ["", "#", "# 12", "#+12", "+12", "-1", "#12x", "12.0", "#4294967296", "#１２", "e12"]
    {
      XCTAssertNil(ActionID(parsing: text), text)
    }
  }

  func testWhereTwelveCouldBeTextOnlyTheHashMakesAnId() {
    XCTAssertNil(ActionID(parsing: "12", requiringHash: true))
    XCTAssertEqual(ActionID(parsing: "#12", requiringHash: true), ActionID(rawValue: 12))
  }
}
