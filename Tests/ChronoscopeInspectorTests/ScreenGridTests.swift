@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// The grid every view draws into, at sizes and spans no terminal would ask for: clamped, never
/// trapping.
final class ScreenGridTests: XCTestCase {
  func testAGridOfExtremeSizeIsClampedToTheLargestSide() {
    for (width, height) in [(Int.max, Int.max), (Int.max, 2), (Int.min, Int.max), (-5, 3)] {
      let grid = ScreenGrid(width: width, height: height)
      XCTAssertTrue((0...ScreenGrid.maximumSide).contains(grid.width), "\(width)")
      XCTAssertTrue((0...ScreenGrid.maximumSide).contains(grid.height), "\(height)")
      XCTAssertEqual(grid.cells.count, grid.width * grid.height)
    }
  }

  func testPaintingOrFillingABackwardsOrOffGridSpanDrawsNothing() {
    var grid = ScreenGrid(width: 10, height: 2)
    grid.fill(row: 0, from: 8, to: 3, with: "x")
    grid.paint(row: 1, from: 20, to: 25, style: Style(bold: true))
    grid.fill(row: 1, from: Int.min, to: Int.min, with: "y")
    XCTAssertEqual(grid, ScreenGrid(width: 10, height: 2))
  }

  func testWritingWithAHugeLimitClipsAtTheEdgeAndFarLeftTextIsOffTheGrid() {
    var grid = ScreenGrid(width: 6, height: 1)
    XCTAssertEqual(grid.write("abcdefgh", row: 0, column: 2, limit: Int.max), 6)
    grid.write("zz", row: 0, column: Int.min, limit: Int.max)
    XCTAssertEqual(grid.plainText, "  abcd")
  }

  /// Found by the `inspector` fuzz target: `render` at a width and height whose product overflows
  /// `Int` trapped in `ScreenGrid.init`. Minimized input: the header line alone.
  func testRenderingAtAnOverflowingSizeDrawsAClampedFrame() throws {
    let header = #"{"format":"chronoscope-trace","version":1,"clock":"host","nme": ""}"#
    let trace = try XCTUnwrap(TraceReader.parse(Array((header + "\n").utf8), file: "f").trace)
    let app = InspectorApp(replay: ReplayEngine(trace: trace), name: "f")
    let grid = app.render(width: Int.max, height: Int.max / 3)
    XCTAssertEqual(grid.width, ScreenGrid.maximumSide)
    XCTAssertEqual(grid.height, ScreenGrid.maximumSide)
    XCTAssertTrue(grid.plainText.contains("the trace has no events"))
    let tooSmall = app.render(width: Int.min, height: 20)
    XCTAssertEqual(tooSmall.width, 0)
  }
}
