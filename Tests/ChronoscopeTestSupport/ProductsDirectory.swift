import Foundation
import XCTest

/// Finds executables built by this package, next to the test bundle.
public enum ProductsDirectory {
  /// The URL of the built executable `name`; an error (a failure, not a skip: a test that needs
  /// it cannot pass without it) when it is not there.
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
    throw NotBuilt(name: name, looked: candidates.map(\.path))
  }
}

/// A product the tests run is not built next to them: build the package's products first
/// (`swift build --build-tests`, which `swift test` does).
public struct NotBuilt: Error, CustomStringConvertible {
  public var name: String
  public var looked: [String]
  public var description: String {
    "\(name) is not built next to the tests (looked in \(looked)); run swift build --build-tests"
  }
}
