import Foundation

/// The bundled traces in `Recordings/`, for tests.
public enum Recordings {
  /// The package's `Recordings` folder.
  public static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  /// The path of `Recordings/NAME.trace`.
  public static func path(_ name: String) -> String {
    folder.appendingPathComponent("\(name).trace").path
  }
}
