import Foundation

/// Writes a line to standard error (progress and problems; measurements go to stdout).
public func printError(_ message: String) {
  FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes one measurement to standard output, unbuffered, so that a driver reading a child's
/// output (or a script reading the driver's) sees each line as soon as it is measured.
public func writeLine(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes one JSON line to standard output; see ``writeLine(_:)-(String)``.
public func writeLine(_ line: JSONLine) { writeLine(line.description) }
