import ArgumentParser
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope-examples read-trace PATH`: reads a trace as a tool that imports
/// ChronoscopeTraceFormat does, and prints each crash signal's action, and whether the crash
/// signals' worker thread runs, before and after — for the test that reading leaves the process as it found it (the guard
/// against a file truncated while mapped holds the crash handlers only during the read).
struct ReadTrace: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "read-trace",
    abstract: "Read a trace; print the crash signals' actions before and after."
  )

  @Argument(help: "The trace to read.")
  var path: String

  func run() throws {
    print("before: \(Self.state())")
    let reading = TraceReader.read(path: path)
    print("events: \(reading.trace?.events.count ?? -1)")
    print("after: \(Self.state())")
  }

  /// `SIGSEGV=… SIGBUS=… … signal-worker=no`: each crash signal's handler address, and whether
  /// the worker that runs crash callbacks exists.
  private static func state() -> String {
    let signals: [(String, Int32)] = [
      ("SIGSEGV", SIGSEGV), ("SIGBUS", SIGBUS), ("SIGILL", SIGILL), ("SIGABRT", SIGABRT),
      ("SIGTRAP", SIGTRAP),
    ]
    let actions = signals.map { name, signal -> String in
      var current = sigaction()
      sigaction(signal, nil, &current)
      #if canImport(Glibc)
        let handler = unsafeBitCast(current.__sigaction_handler.sa_sigaction, to: Int.self)
      #else
        let handler = unsafeBitCast(current.__sigaction_u.__sa_sigaction, to: Int.self)
      #endif
      return "\(name)=\(handler)"
    }
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    let worker = tasks.contains { task in
      let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
      return name?.trimmingCharacters(in: .newlines) == "chrono-signals"
    }
    return actions.joined(separator: " ") + " signal-worker=\(worker ? "yes" : "no")"
  }
}
