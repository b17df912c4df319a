import ChronoscopeTestSupport
import Foundation
import XCTest

/// What an app links — `ChronoscopeScheduling`, `ChronoscopeRecording` and the modules they
/// depend on — carries no test support: no way to XCTest, no hook a test's wait listens to. The
/// test reads the compiled objects of each of those modules' current sources, so a hook added
/// back to the live path (or a test helper moved into an app module) fails it.
final class AppLinkTests: XCTestCase {
  private static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The Swift modules an app that records links (Package.swift's graph from the two products).
  static let appModules = [
    "ChronoscopeScheduling", "ChronoscopeRecording", "ChronoscopeTraceFormat", "ChronoscopeCore",
    "ChronoscopeFatalSignals",
  ]

  /// Names only test support has: XCTest's failure function, the test-failure reporter, the
  /// signal `waitUntil` sleeps on, and the testing module itself (in every mangled name of its
  /// symbols).
  static let testSupportNames = [
    "XCTFail", "TestFailure", "WaitSignal", "CompletionSignal", "ChronoscopeSchedulingTesting",
  ]

  func testWhatAnAppLinksCarriesNoTestSupport() throws {
    let products = try ProductsDirectory.executable("chronoscope").deletingLastPathComponent()
    var found: [String] = []
    var objects = 0
    for module in Self.appModules {
      let sources = Self.root.appendingPathComponent("Sources/\(module)")
      let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path))
      for case let file as String in files where file.hasSuffix(".swift") {
        let name = URL(fileURLWithPath: file).lastPathComponent
        let object = products.appendingPathComponent("\(module).build/\(name).o")
        let data = try Data(contentsOf: object)
        objects += 1
        for hook in Self.testSupportNames where data.range(of: Data(hook.utf8)) != nil {
          found.append("\(module)/\(file): \(hook)")
        }
      }
    }
    XCTAssertGreaterThan(objects, 50, "the app modules' objects were read")
    XCTAssertEqual(found, [], "test support in what an app links")
  }
}
