import Foundation
import XCTest

/// Finds executables built by this package, next to the test bundle.
public enum ProductsDirectory {
  /// The URL of the built executable `name`, or a skip when it is not there.
  public static func executable(_ name: String) throws -> URL {
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
