/// Where in the source a piece of work was scheduled, captured by default arguments.
public struct CallSite: Sendable, CustomStringConvertible {
  /// The file, as `Module/File.swift`.
  public let fileID: StaticString
  /// The line in that file.
  public let line: UInt
  /// The enclosing function.
  public let function: StaticString

  /// Makes a call site; the defaults capture the caller's.
  public init(
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
  ) {
    self.fileID = fileID
    self.line = line
    self.function = function
  }

  /// `File.swift:12 in function()`.
  public var description: String { "\(fileID):\(line) in \(function)" }
}
