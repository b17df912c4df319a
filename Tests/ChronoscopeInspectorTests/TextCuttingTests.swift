import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeScreen
import XCTest

/// How text gives way on a narrow screen without cutting a number short (issue 27 item 13).
final class TextCuttingTests: XCTestCase {
  func testACutNeverEndsInsideANumber() {
    XCTAssertEqual(
      TextWidth.truncatedKeepingNumbers("due 0.040000s, began 0.091511s (late 11.511ms)", to: 40),
      "due 0.040000s, began 0.091511s (late …")
    XCTAssertEqual(
      TextWidth.truncatedKeepingNumbers("took 0ns, on main ← hop from worker 4", to: 36),
      "took 0ns, on main ← hop from worker…")
    XCTAssertEqual(TextWidth.truncatedKeepingNumbers("(late 903.2µs)", to: 12), "(late …")
    XCTAssertEqual(TextWidth.truncatedKeepingNumbers("3600.014760", to: 8), "…")
  }

  func testANameCutNeverEndsInADigitOrADot() {
    XCTAssertEqual(TextWidth.truncatedName("worker 12", to: 9), "worker 12")
    XCTAssertEqual(TextWidth.truncatedName("worker 123", to: 9), "worker …")
    XCTAssertEqual(TextWidth.truncatedName("app.request.cache", to: 13), "app.request…")
    XCTAssertEqual(TextWidth.truncatedName("com.example.app", to: 14), "com.example.a…")
    XCTAssertEqual(TextWidth.truncatedName("evil\u{1b}[2J and more", to: 14), "evil\\u{1b}[2J…")
  }

  func testTextThatFitsIsLeftAloneEvenWhenItEndsInAnEllipsis() {
    XCTAssertEqual(TextWidth.truncatedKeepingNumbers("⚑ finding…", to: 10), "⚑ finding…")
  }

  func testAFileNameIsCutInItsMiddle() {
    let cut = TextWidth.truncatedInMiddle("busy-app-virtual.trace", to: 16)
    XCTAssertEqual(TextWidth.columns(of: cut), 16)
    XCTAssertTrue(cut.hasPrefix("busy-app") && cut.hasSuffix(".trace") && cut.contains("…"), cut)
    XCTAssertEqual(TextWidth.truncatedInMiddle("short.trace", to: 16), "short.trace")
    XCTAssertEqual(
      TextWidth.truncatedInMiddle("run-2026.11.25.trace", to: 12).filter { $0 == "…" }.count, 1)
    for width in 0...20 {
      let cut = TextWidth.truncatedInMiddle("run-2026.11.25.trace", to: width)
      XCTAssertLessThanOrEqual(TextWidth.columns(of: cut), width)
      XCTAssertFalse(cut.contains("1…") || cut.contains(".…") || cut.contains("…2"), cut)
    }
  }

  func testAPathIsCutAtItsFrontWholeDirectoriesAtATime() {
    let site = "Sources/MyApplication/Features/Search/File.swift:93"
    XCTAssertEqual(TextWidth.truncatedPath(site, to: 60), site)
    XCTAssertEqual(TextWidth.truncatedPath(site, to: 31), "…/Features/Search/File.swift:93")
    XCTAssertEqual(TextWidth.truncatedPath(site, to: 24), "…/Search/File.swift:93")
    XCTAssertEqual(TextWidth.truncatedPath(site, to: 15), "…/File.swift:93")
    XCTAssertEqual(TextWidth.truncatedPath(site, to: 12), "", "File.swift:93 does not fit")
    // A path from a trace may be 64 KiB of directories: only its end is looked at (cutting
    // one directory at a time and joining the rest again took minutes a row).
    let deep = String(repeating: "a/", count: 32_000) + "File.swift:93"
    XCTAssertEqual(TextWidth.truncatedPath(deep, to: 24), "…/a/a/a/a/File.swift:93")
  }

  func testWrappingBreaksBetweenWordsAndMarksWhatDoesNotFit() {
    let state = "pending after running 17 times, next due 0.540000s (late 460.000ms)"
    XCTAssertEqual(
      TextWidth.wrapped(state, to: 43, rows: 3),
      ["pending after running 17 times, next due", "0.540000s (late 460.000ms)"])
    XCTAssertEqual(
      TextWidth.wrapped(state, to: 43, rows: 1), ["pending after running 17 times, next due …"])
    XCTAssertEqual(TextWidth.wrapped("検索キャッシュ キュー", to: 10, rows: 2), ["検索キャ…", "キュー"])
    XCTAssertEqual(TextWidth.wrapped("a\u{1b}[2J b", to: 20, rows: 1), ["a\\u{1b}[2J b"])
    // A megabyte of text costs what a row of it does.
    let long = String(repeating: "word ", count: 200_000)
    XCTAssertEqual(TextWidth.wrapped(long, to: 10, rows: 2), ["word word", "word word…"])
  }
}
