@_spi(Benchmarks) import ChronoscopeScreen
import XCTest

@testable import ChronoscopeInspector

/// The status bar drawn alone, from what it says: no replay, no inspector.
final class StatusBarTests: XCTestCase {
  private let style = Theme(colors: false).status

  private func line(_ bar: StatusBar, width: Int = 60) -> String {
    let cells = bar.cells(width: width, style: style)
    XCTAssertEqual(cells.count, width, "one cell a column")
    var text = cells.filter { !$0.isContinuation }.map(\.text).joined()
    while text.hasSuffix(" ") { text.removeLast() }
    return text
  }

  func testKeyHintsThatFitGoBeforeTheFixedOnesAndTheRestAreLeftOut() {
    let bar = StatusBar(keyHints: [
      "space play", "n/p step", "⏎ detail", "x/X finding", "! findings",
    ])
    XCTAssertEqual(
      line(bar, width: 60), " space play · n/p step · ⏎ detail · ? help · q quit")
  }

  func testAMessageIsCutToLeaveTheFixedHintsAtTheRightEdge() {
    let bar = StatusBar(message: String(repeating: "long message ", count: 10), keyHints: [])
    let text = line(bar, width: 60)
    XCTAssertTrue(text.hasSuffix("? help · q quit"), text)
    XCTAssertEqual(text.count, 59, "the fixed hints end one column from the edge")
    XCTAssertFalse(text.contains("long message long message long message long message long"))
  }

  func testASearchCountsItsMatchesAndSaysWhereTheCursorIsAmongThem() {
    let search = StatusBar.Search(text: "app", current: 1, count: 3, owners: "2 actions, 1 mark")
    XCTAssertEqual(
      line(StatusBar(search: search), width: 120),
      " search \"app\": 2/3 matching events (2 actions, 1 mark) · n next · N previous · Esc clear")
    let one = StatusBar.Search(text: "x", current: nil, count: 1, owners: "")
    XCTAssertEqual(
      line(StatusBar(search: one), width: 120),
      " search \"x\": 1 matching event · n next · N previous · Esc clear")
  }

  func testAMessageIsShownBeforeTheSearch() {
    let search = StatusBar.Search(text: "app", current: nil, count: 3, owners: "")
    XCTAssertEqual(line(StatusBar(message: "end of trace", search: search)), " end of trace")
  }

  func testAPromptTakesTheWholeBarWithoutHints() {
    let bar = StatusBar(prompt: .filter("req"), message: "ignored", keyHints: ["n/p step"])
    XCTAssertEqual(line(bar, width: 80), " filter lanes: req▏  (Enter keep, Esc close)")
  }
}
