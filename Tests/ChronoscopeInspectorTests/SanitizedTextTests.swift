import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen
import XCTest

/// Text from a trace file reaches the terminal only sanitized: every control character and
/// every invisible format character shows as an escape, and everything else is left as it was,
/// printable ASCII (the fast path) and the rest alike.
final class SanitizedTextTests: XCTestCase {
  func testPrintableTextIsLeftAsItIs() {
    for text in ["", "plain ASCII ~!@#$%^&*()_+{}|:<>?", "déjà vu", "日本語", "👩‍💻 ok", "a\u{A0}b"] {
      XCTAssertEqual(TextWidth.sanitized(text), text, text.debugDescription)
      XCTAssertEqual(TextWidth.sanitized(text[...]), text, "as a substring")
    }
  }

  func testControlAndFormatCharactersAreEscaped() {
    let cases: [(String, String)] = [
      ("a\u{1B}[2Jb", #"a\u{1b}[2Jb"#),
      ("tab\there", #"tab\u{9}here"#),
      ("del\u{7F}", #"del\u{7f}"#),
      ("csi\u{9B}31m", #"csi\u{9b}31m"#),
      ("\u{202E}evil", #"\u{202e}evil"#),
      ("soft\u{AD}hyphen", #"soft\u{ad}hyphen"#),
      ("zero\u{200B}width", #"zero\u{200b}width"#),
      ("bom\u{FEFF}", #"bom\u{feff}"#),
    ]
    for (text, expected) in cases {
      XCTAssertEqual(TextWidth.sanitized(text), expected, text.debugDescription)
    }
  }
}
