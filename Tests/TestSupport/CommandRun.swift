import Foundation

/// Runs the built `chronoscope` as a user would, for tests of its output and exit status.
public enum CommandRun {
  /// Runs `chronoscope` with `arguments` (in `directory` if given) and returns its exit status
  /// and what it printed to stdout and stderr together.
  public static func chronoscope(_ arguments: [String], in directory: URL? = nil) throws -> (
    status: Int32, output: String
  ) {
    let process = Process()
    process.executableURL = try ProductsDirectory.executable("chronoscope")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()  // before waiting: no full pipe
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}
