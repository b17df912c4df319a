import Foundation
import XCTest

extension XCTestCase {
  /// A fresh path for a trace file under the temporary directory, removed when the test ends.
  public func temporaryTracePath(_ name: String = "chronoscope") -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-\(UUID().uuidString).trace").path
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }
}
