import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs the built `chronoscope` as a user would, for tests of its output and exit status.
public enum CommandRun {
  /// Runs `chronoscope` with `arguments` (in `directory` if given, with `environment` added to
  /// the test's own) and returns its exit status and what it printed to stdout and stderr
  /// together.
  public static func chronoscope(
    _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
  ) throws -> (status: Int32, output: String) {
    let run = try program(
      try ProductsDirectory.executable("chronoscope"), arguments, in: directory,
      environment: environment)
    return (run.status, run.output)
  }

  /// Runs `chronoscope-examples` (the example programs and the children of the crash and fault
  /// tests) with `arguments`, as ``chronoscope(_:in:environment:)`` runs `chronoscope`.
  public static func examples(
    _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]
  ) throws -> (status: Int32, output: String) {
    let run = try program(
      try ProductsDirectory.executable("chronoscope-examples"), arguments, in: directory,
      environment: environment)
    return (run.status, run.output)
  }

  /// Runs `executable` with `arguments` (in `directory` if given, with `environment` added to
  /// the test's own) and returns how it ended — its exit status, or the signal that ended it —
  /// and what it printed to stdout and stderr together.
  public static func program(
    _ executable: URL, _ arguments: [String], in directory: URL? = nil,
    environment: [String: String] = [:]
  ) throws -> (status: Int32, reason: Process.TerminationReason, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    if let directory { process.currentDirectoryURL = directory }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()  // before waiting: no full pipe
    process.waitUntilExit()
    return (
      process.terminationStatus, process.terminationReason, String(decoding: data, as: UTF8.self)
    )
  }

  /// Runs `chronoscope` with `arguments` as ``chronoscope(_:in:environment:)`` does, but kills
  /// it once `seconds` have passed, for a command that must end at once rather than wait (on a
  /// FIFO nobody writes, say). Its standard input is a pipe nobody writes or closes, so a
  /// command that read it would wait too.
  ///
  /// - Returns: its exit status, what it printed, and whether the deadline killed it.
  public static func chronoscope(
    _ arguments: [String], deadline seconds: Double, in directory: URL? = nil
  ) throws -> (status: Int32, output: String, timedOut: Bool) {
    let process = Process()
    process.executableURL = try ProductsDirectory.executable("chronoscope")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let pid = process.processIdentifier
    let finished = SharedValue(false)
    let timedOut = SharedValue(false)
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
      guard !finished.get() else { return }
      timedOut.set(true)
      kill(pid, SIGKILL)
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()  // before waiting: no full pipe
    process.waitUntilExit()
    finished.set(true)
    // Open until the command ended: closed earlier, a read of it would end instead of waiting.
    try input.fileHandleForWriting.close()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self), timedOut.get())
  }
}
