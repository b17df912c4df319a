import Foundation
import XCTest

/// Finds executables built by this package, next to the test bundle. (The same lookup as
/// RecordingTests'; test targets cannot share a helper file.)
enum ProductsDirectory {
  static func executable(_ name: String) throws -> URL {
    let candidates =
      [
        Bundle.main.bundleURL,
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      ] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
    for directory in candidates {
      let url = directory.appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    throw XCTSkip("\(name) is not built next to the tests (looked in \(candidates.map(\.path)))")
  }
}
