/// A problem found while reading a trace, with where it is.
public struct TraceDiagnostic: Sendable, Equatable, CustomStringConvertible {
  /// How bad it is.
  public enum Severity: String, Sendable {
    /// The line could not be used.
    case error
    /// The line was used, but something about it looks wrong.
    case warning
  }

  /// How bad it is.
  public var severity: Severity
  /// The file's path as given.
  public var file: String
  /// The 1-based line.
  public var line: Int
  /// The 1-based byte column within the line (0 when the whole file is concerned).
  public var column: Int
  /// What is wrong, and where useful what to do.
  public var message: String

  /// Makes a diagnostic.
  public init(severity: Severity, file: String, line: Int, column: Int, message: String) {
    self.severity = severity
    self.file = file
    self.line = line
    self.column = column
    self.message = message
  }

  /// `file:line:column: error: message`, as compilers print it.
  public var description: String { "\(file):\(line):\(column): \(severity.rawValue): \(message)" }
}
