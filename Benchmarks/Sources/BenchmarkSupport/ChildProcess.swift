import Foundation

/// Runs this executable again with other arguments, so one measurement has a process to itself.
public enum ChildProcess {
  /// The path of the running executable.
  public static var currentExecutablePath: String {
    #if os(Linux)
      if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return path
      }
    #endif
    return Bundle.main.executablePath ?? CommandLine.arguments[0]
  }

  /// A child that exited unsuccessfully.
  public struct Failure: Error, CustomStringConvertible {
    public let arguments: [String]
    public let status: Int32
    public var description: String {
      "child process \(arguments.joined(separator: " ")) exited with status \(status)"
    }
  }

  /// Runs this executable with `arguments` and returns what it wrote to standard output. Its
  /// standard error passes through to ours.
  ///
  /// - Throws: ``Failure`` if the child exits with a non-zero status, or what `Process` throws.
  public static func runSelf(arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: currentExecutablePath)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    // Drain the pipe before waiting, or a child with a full pipe buffer would never exit.
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      throw Failure(arguments: arguments, status: process.terminationStatus)
    }
    return String(decoding: data, as: UTF8.self)
  }
}
