import CChronoscopeNCursesW
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTerminal
import XCTest

/// The terminal adapter's decoding of ncurses key codes and mouse reports, below the adapter:
/// tmux cannot send a mouse event on its own (`send-keys -M` only passes on one it received).
final class InputKeyCursesTests: XCTestCase {
  func testHomeAndEndArriveUnderEveryNameTerminalsGiveThem() {
    for code in [KEY_HOME, KEY_FIND, KEY_A1] {
      XCTAssertEqual(CursesInput.key(code: code), .home, "code \(code)")
    }
    for code in [KEY_END, KEY_SELECT, KEY_C1] {
      XCTAssertEqual(CursesInput.key(code: code), .end, "code \(code)")
    }
  }

  func testAPressOfTheMainButtonIsAClickAtItsCell() {
    XCTAssertEqual(
      CursesInput.key(mouseState: cncursesw_button1_pressed(), column: 7, row: 3),
      .mouse(MouseEvent(.press, column: 7, row: 3)))
  }

  func testTheWheelAndItsModifiers() {
    XCTAssertEqual(
      CursesInput.key(mouseState: cncursesw_button4_pressed(), column: 1, row: 2),
      .mouse(MouseEvent(.wheelUp, column: 1, row: 2)))
    XCTAssertEqual(
      CursesInput.key(
        mouseState: cncursesw_button5_pressed() | cncursesw_button_ctrl(), column: 1, row: 2),
      .mouse(MouseEvent(.wheelDown, column: 1, row: 2, control: true)))
    XCTAssertEqual(
      CursesInput.key(
        mouseState: cncursesw_button4_pressed() | cncursesw_button_shift()
          | cncursesw_button_alt(), column: 0, row: 0),
      .mouse(MouseEvent(.wheelUp, column: 0, row: 0, shift: true, alt: true)))
  }

  func testOtherButtonsAndReleasesAreNotEvents() {
    XCTAssertNil(CursesInput.key(mouseState: 0, column: 0, row: 0))
    XCTAssertEqual(
      CursesInput.mouseMask & cncursesw_button1_pressed(), cncursesw_button1_pressed())
  }
}
