import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen
import XCTest

/// Text takes the columns a terminal that follows Unicode gives it: measured by grapheme
/// cluster, so an emoji sequence is one two-column picture whatever its parts are.
final class TextWidthTests: XCTestCase {
  func testEmojiSequencesTakeTwoColumns() {
    let sequences = [
      "👨‍👩‍👧‍👦", "🧑🏽‍🚀", "🏳️‍🌈", "⛹️‍♀️", "⛹‍♀", "🇯🇵", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "❤️", "1️⃣", "👋🏽", "☝🏽",
      "🫠", "🚀",
    ]
    for text in sequences {
      XCTAssertEqual(text.count, 1, "\(text) is one grapheme")
      XCTAssertEqual(TextWidth.columns(of: text), 2, text.debugDescription)
    }
  }

  func testTextPresentationAndNarrowSymbolsTakeOne() {
    for text in ["❤", "❤︎", "☺", "©", "🌡", "é", "e\u{301}", "a\u{20DD}", "ｱ", "→"] {
      XCTAssertEqual(TextWidth.columns(of: text), 1, text.debugDescription)
    }
  }

  func testEastAsianWideAndFullwidthTakeTwo() {
    // Han, Hangul (also as a jamo sequence), fullwidth, vertical forms, Tangut, kana supplement,
    // enclosed ideographic supplement.
    for text in ["漢", "한", "\u{1100}\u{1161}", "Ａ", "︐", "𗀀", "𛀀", "🈀", "⌚︎"] {
      XCTAssertEqual(TextWidth.columns(of: text), 2, text.debugDescription)
    }
  }

  func testAStringIsTheSumOfItsGraphemes() {
    XCTAssertEqual(TextWidth.columns(of: "search 👨‍👩‍👧 🇯🇵 ok"), 15)
    XCTAssertEqual(TextWidth.columns(of: "plain ASCII"), 11)
    XCTAssertEqual(TextWidth.columns(of: "plain ASCII"[...]), 11)
  }

  func testTheGridKeepsAFlagWithTagsWhole() {
    var grid = ScreenGrid(width: 10, height: 1)
    XCTAssertEqual(grid.write("a🏴󠁧󠁢󠁥󠁮󠁧󠁿b⛹‍♀c", row: 0, column: 0), 7)
    XCTAssertEqual(grid.plainText, "a🏴󠁧󠁢󠁥󠁮󠁧󠁿b⛹‍♀c")
  }

  func testTagsOutsideAFlagAndSeparatorsAreEscaped() {
    // Invisible tag characters can smuggle text past a reader; a line separator breaks a line.
    XCTAssertEqual(TextWidth.sanitized("a\u{E0041}b"), #"a\u{e0041}b"#)
    XCTAssertEqual(TextWidth.sanitized("🏴\u{E0067}b"), #"🏴\u{e0067}b"#, "no cancel tag")
    XCTAssertEqual(TextWidth.sanitized("one\u{2028}two\u{2029}"), #"one\u{2028}two\u{2029}"#)
  }

  func testTruncationCutsBetweenGraphemes() {
    XCTAssertEqual(TextWidth.truncated("ab👨‍👩‍👧‍👦cd", to: 6), "ab👨‍👩‍👧‍👦cd")
    XCTAssertEqual(TextWidth.truncated("ab👨‍👩‍👧‍👦cd", to: 5), "ab👨‍👩‍👧‍👦…")
    XCTAssertEqual(TextWidth.truncated("ab👨‍👩‍👧‍👦cd", to: 4), "ab…", "the picture is never halved")
  }

  func testATerminalMeasuringCodePointsGetsPiecesOfTheGridsWidth() {
    let cases: [(String, Int, [String])] = [
      ("a", 1, ["a"]), ("漢", 2, ["漢"]), ("e\u{301}", 1, ["e\u{301}"]), ("🚀", 2, ["🚀"]),
      ("👨‍👩‍👧", 2, ["👨"]), ("👋🏽", 2, ["👋"]), ("❤️", 2, ["❤", " "]), ("🇯🇵", 2, ["🇯", " "]),
      ("⛹‍♀", 2, ["⛹", " "]), ("🏴󠁧󠁢󠁥󠁮󠁧󠁿", 2, ["🏴"]),
    ]
    for (grapheme, columns, pieces) in cases {
      XCTAssertEqual(TextWidth.columns(of: grapheme), columns, grapheme.debugDescription)
      XCTAssertEqual(
        TextWidth.terminalPieces(of: grapheme, columns: columns), pieces,
        grapheme.debugDescription)
    }
  }
}
