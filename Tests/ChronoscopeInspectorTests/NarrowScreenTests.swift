@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// The inspector at 80 × 24 and 60 × 16 (issue 27 item 13): a number is never cut in the
/// middle, columns give way whole by priority, the file name stays in the header and call sites
/// keep their file name and line.
final class NarrowScreenTests: XCTestCase {
  static let sizes = [(width: 80, height: 24), (width: 60, height: 16)]

  /// The busy app at 500 ms, where Pending holds late repeating timers and long call sites.
  private func busyApp() throws -> InspectorApp {
    var app = try GoldenScreenTests.app("busy-app-virtual")
    app.seek(to: .time(500_000_000))
    return app
  }

  /// The main view and a repeating timer's detail page, at each size.
  private func screens() throws -> [(name: String, grid: ScreenGrid)] {
    var screens: [(String, ScreenGrid)] = []
    var app = try busyApp()
    for size in Self.sizes {
      screens.append(
        ("main \(size.width)x\(size.height)", app.render(width: size.width, height: size.height)))
    }
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 1)))
    for size in Self.sizes {
      screens.append(
        ("detail \(size.width)x\(size.height)", app.render(width: size.width, height: size.height)))
    }
    return screens
  }

  /// Every place where `…` touches a digit or a `.`: a number (or a time) cut short.
  static func cutNumbers(in text: String) -> [String] {
    var found: [String] = []
    for line in text.split(separator: "\n") {
      let characters = Array(line)
      for (index, character) in characters.enumerated() where character == "…" {
        let neighbours = [index - 1, index + 1].filter { characters.indices.contains($0) }
          .map { characters[$0] }
        if neighbours.contains(where: { $0.isNumber || $0 == "." }) {
          let from = max(index - 12, 0)
          let to = min(index + 12, characters.count)
          found.append(String(characters[from..<to]))
        }
      }
    }
    return found
  }

  func testTheScanFindsANumberCutByAnEllipsis() {
    XCTAssertEqual(
      Self.cutNumbers(in: "due 3600.01476…  in 60.136…\n…5 ok… fine").count, 3,
      "after a digit, after a digit, before a digit")
    XCTAssertEqual(Self.cutNumbers(in: "busy-…-app.trace …/Search/File.swift:93 app.cach…"), [])
  }

  func testNoNumberIsCutAt80x24Or60x16() throws {
    for (name, grid) in try screens() {
      XCTAssertEqual(Self.cutNumbers(in: grid.plainText), [], "\(name):\n\(grid.plainText)")
    }
  }

  func testTheHeaderKeepsTheFileNameCutInItsMiddle() throws {
    let app = try busyApp()
    for size in Self.sizes {
      let header = app.render(width: size.width, height: size.height).plainText
        .split(separator: "\n")[0]
      XCTAssertTrue(
        header.contains("busy-app-virtual.trace")
          || header.contains(".trace")
            && header.hasPrefix(" busy-"),
        "\(size): \(header)")
      XCTAssertTrue(header.contains("0.500000s / 1.300000s"), "\(size): \(header)")
    }
  }
}

extension NarrowScreenTests {
  /// An hour-long delay and a deep call site, as a real app has them.
  private func deepSite() throws -> InspectorApp {
    let text = """
      {"format":"chronoscope-trace","version":1,"clock":"virtual","start":"","process":"x","pid":1,"metadata":{}}
      {"t":0,"e":"scheduler","q":1,"label":"app.search","kind":"serial","family":"virtual"}
      {"t":0,"e":"site","site":1,"file":"Sources/MyApplication/Features/Search/SearchViewModel.swift","line":93,"func":"search(_:)"}
      {"t":0,"e":"schedule","a":1,"q":1,"mode":"after","delay":3600014760000,"due":3600014760000,"th":1,"site":1}
      {"t":1000,"e":"mark","th":1,"name":"typed"}
      """
    let trace = try XCTUnwrap(TraceReader.parse(Array(text.utf8), file: "deep").trace)
    var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "deep.trace")
    app.seek(to: .event(2))
    return app
  }

  func testCallSitesKeepTheirFileNameAndLineAndLongTimesStayWhole() throws {
    var app = try deepSite()
    for size in Self.sizes {
      let screen = app.render(width: size.width, height: size.height).plainText
      let pending = try XCTUnwrap(
        screen.split(separator: "\n").first { $0.contains("#1 after") }, screen)
      XCTAssertTrue(pending.contains("due 3600.014760s in 3600.015s"), "\(size): \(pending)")
      if size.width == 80 {
        XCTAssertTrue(pending.hasSuffix(" …/SearchViewModel.swift:93"), "\(pending)")
      }
      XCTAssertEqual(Self.cutNumbers(in: screen), [], screen)
    }
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 1)))
    for size in Self.sizes {
      let screen = app.render(width: size.width, height: size.height).plainText
      let site = try XCTUnwrap(screen.split(separator: "\n").first { $0.contains("call site") })
      XCTAssertTrue(site.contains("SearchViewModel.swift:93"), "\(size): \(site)")
      XCTAssertEqual(Self.cutNumbers(in: screen), [], screen)
    }
  }
}
