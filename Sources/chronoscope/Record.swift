import ArgumentParser
import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `chronoscope record [options] -- PROGRAM ARGS…`: runs a program with recording switched on
/// through the preload library, passes its exit status through, and says where its traces are.
struct Record: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a program with recording switched on and say where its traces are.",
    discussion: """
      The program runs unchanged: the preload library (found beside chronoscope) records what it \
      asks of Dispatch and of Swift's executors. Each process of its tree that loads the library \
      writes its own trace (%p in the path becomes its process id). The exit status is the \
      program's (128+N when signal N ended it); SIGINT and SIGTERM are passed on to it.
      """
  )

  @Option(
    name: .shortAndLong,
    help: "Where to write the traces; %p becomes each process's id (default: PROGRAM-%p.trace).")
  var output: String?

  @Option(help: "Keep only this long in memory (e.g. 30s), written at exit, on SIGUSR1 or a crash.")
  var flight: String?

  @Option(help: "Rotate a trace past this size (e.g. 64M).")
  var maxBytes: String?

  @Option(help: "With --max-bytes: how many older files to keep.")
  var keep: Int?

  @Argument(parsing: .postTerminator, help: "The program and its arguments, after --.")
  var command: [String] = []

  func validate() throws {
    guard !command.isEmpty else {
      throw ValidationError("name the program after --: chronoscope record -- ./MyApp")
    }
    if let flight, RecordingLaunch.seconds(flight) == nil {
      throw ValidationError("--flight must be a duration such as 30s")
    }
  }

  func run() throws {
    guard let library = RecordingLaunch.preloadLibrary() else {
      standardError(
        "chronoscope: the preload library is not installed beside chronoscope (looked in "
          + RecordingLaunch.libraryCandidates().map(\.path).joined(separator: ", ") + ")")
      throw ExitCode(2)
    }
    let program = command[0]
    let template = output ?? "\(URL(fileURLWithPath: program).lastPathComponent)-%p.trace"
    var environment = ProcessInfo.processInfo.environment
    environment["LD_PRELOAD"] = ([library.path] + (environment["LD_PRELOAD"].map { [$0] } ?? []))
      .joined(separator: ":")
    environment["CHRONOSCOPE_TRACE"] = template
    if let flight { environment["CHRONOSCOPE_TRACE_FLIGHT"] = flight }
    if let maxBytes { environment["CHRONOSCOPE_TRACE_MAX_BYTES"] = maxBytes }
    if let keep { environment["CHRONOSCOPE_TRACE_KEEP"] = String(keep) }
    let status = try RecordingLaunch.run(command, environment: environment)
    standardError("chronoscope: traces written as \(template)")
    throw ExitCode(status)
  }
}

/// Finding the preload library and running a program under it.
enum RecordingLaunch {
  /// The preload library's file name.
  static let libraryName = "libChronoscopePreload.so"

  /// Where the library may be: beside the executable (a build folder, `swift run`), then in
  /// `lib/chronoscope/` under the prefix the executable is installed in.
  static func libraryCandidates() -> [URL] {
    guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return [] }
    let folder = executable.deletingLastPathComponent()
    return [
      folder.appendingPathComponent(libraryName),
      folder.deletingLastPathComponent().appendingPathComponent("lib/chronoscope/\(libraryName)"),
    ]
  }

  static func preloadLibrary() -> URL? {
    libraryCandidates().first { FileManager.default.isReadableFile(atPath: $0.path) }
  }

  /// `30s`, `500ms`, `2m` as seconds; nil when it is none.
  static func seconds(_ text: String) -> Double? {
    let units: [(String, Double)] = [("ms", 1e-3), ("s", 1), ("m", 60)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
      guard let value = Double(text.dropLast(suffix.count)), value.isFinite, value > 0 else {
        return nil
      }
      return value * scale
    }
    return nil
  }

  /// Runs `command` with `environment`, passing SIGINT and SIGTERM on to it, and returns the
  /// status to exit with: its own, 128+N after signal N, 127 when it cannot be started.
  static func run(_ command: [String], environment: [String: String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = command
    process.environment = environment
    let forwarded = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { if process.isRunning { kill(process.processIdentifier, number) } }
      source.resume()
      return source
    }
    defer { forwarded.forEach { $0.cancel() } }
    do {
      try process.run()
    } catch {
      standardError("chronoscope: cannot run \(command[0]): \(fileErrorReason(error))")
      return 127
    }
    process.waitUntilExit()
    switch process.terminationReason {
    case .uncaughtSignal: return 128 + process.terminationStatus
    case .exit: return process.terminationStatus
    @unknown default: return process.terminationStatus
    }
  }
}
