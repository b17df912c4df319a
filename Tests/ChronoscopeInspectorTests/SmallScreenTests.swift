@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// What a small screen keeps (issue 38 item 14): the detail page's state line whole, the help
/// in words that scroll, and a gap between a strip and its lane's status.
final class SmallScreenTests: XCTestCase {
  private func lines(_ grid: ScreenGrid) -> [String] {
    grid.plainText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// The findings demo's #1 repeats every 30 ms; at 1 s it has run 17 times and is late.
  private func repeatingDetail() throws -> InspectorApp {
    var app = try GoldenScreenTests.app("findings-demo-virtual")
    app.seek(to: .time(1_000_000_000))
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 1)))
    return app
  }

  func testTheDetailPageKeepsItsWholeStateLineOnSmallScreens() throws {
    let app = try repeatingDetail()
    for (width, height) in [(60, 16), (60, 20), (80, 24), (100, 30)] {
      let screen = lines(app.render(width: width, height: height))
      let text = screen.joined(separator: "\n")
      let now = try XCTUnwrap(
        screen.firstIndex { $0.hasPrefix("   now ") }, "\(width)x\(height):\n\(text)")
      // Its value may take more than a row, but every word of it shows.
      let state =
        ([screen[now].dropFirst(16)]
        + screen[(now + 1)...].prefix {
          $0.hasPrefix(String(repeating: " ", count: 16))
        }.map { $0.dropFirst(16) }).joined(separator: " ")
      XCTAssertEqual(
        state.split(separator: " ").joined(separator: " "),
        "pending after running 17 times, next due 0.540000s (late 460.000ms)",
        "\(width)x\(height):\n\(text)")
      XCTAssertTrue(text.contains("run 17"), "the last run shows:\n\(text)")
    }
  }

  func testTheHelpIsWrappedInWordsAndScrolls() throws {
    var app = try GoldenScreenTests.app("findings-demo-virtual")
    _ = app.handle(.character("?"))
    let first = lines(app.render(width: 60, height: 16))
    // No word is cut: each row of text ends at a word's end.
    let tall = lines(app.render(width: 60, height: 200)).joined(separator: "\n")
    for phrase in ["what held it up", "hide idle lanes (see below)", "nothing pending/running"] {
      XCTAssertTrue(
        tall.replacingOccurrences(of: "\n" + String(repeating: " ", count: 16), with: " ")
          .contains(phrase), "\(phrase):\n\(tall)")
    }
    XCTAssertFalse(first.joined().contains("Reading the screen"), "more than fits")
    for _ in 0..<60 { _ = app.handle(.character("j")) }
    let scrolled = lines(app.render(width: 60, height: 16)).joined(separator: "\n")
    XCTAssertTrue(scrolled.contains("the 2nd lane of a repeated name"), scrolled)
    _ = app.handle(.character("g"))
    XCTAssertEqual(lines(app.render(width: 60, height: 16)), first, "g goes back to the top")
    XCTAssertEqual(app.state.mode, .help)
  }

  func testABusyThreadsStatusKeepsAGapFromItsStrip() throws {
    var app = try GoldenScreenTests.app("findings-demo-virtual")
    app.seek(to: .time(1_158_604_000))
    app.group(by: .byThread)
    for width in [60, 100] {
      let grid = app.render(width: width, height: 30)
      let row = try XCTUnwrap(lines(grid).firstIndex { $0.hasPrefix("▸main") })
      let line = lines(grid)[row]
      let status = try XCTUnwrap(line.range(of: "busy 358.604ms"), line)
      XCTAssertTrue(line[..<status.lowerBound].hasSuffix(" "), line)
    }
  }
}
