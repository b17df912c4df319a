/// The folder of tests' traces could not be made.
public struct TestTraceFolderError: Error, CustomStringConvertible {
  /// The folder, as the settings name it.
  public let folder: String
  /// Why, as the system says it (`Not a directory`).
  public let reason: String

  public var description: String { "cannot make the folder \(folder): \(reason)" }
}
