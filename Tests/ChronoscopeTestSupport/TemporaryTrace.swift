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

  /// A fresh, empty folder under the temporary directory, removed with what it holds when the
  /// test ends.
  public func temporaryFolder(_ name: String = "chronoscope") throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    return folder
  }

  /// A trace file of `lines` under the temporary directory, removed when the test ends.
  public func temporaryTrace(_ lines: [String], name: String = "chronoscope") throws -> String {
    let path = temporaryTracePath(name)
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    return path
  }
}
