import ChronoscopeCore
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// A stop or crash signal sent at any moment to a busy program recorded through the preload
/// library ends it by that signal, promptly, with its trace whole and ending with the signal's
/// `crash` line.
///
/// The signal lands on whichever thread the kernel picks, often inside `malloc`: the recorder's
/// signal path used to allocate there (a temporary buffer, a type's metadata met for the first
/// time) and deadlock on the arena lock the interrupted thread held, or give up waiting for a
/// writer stuck behind that lock and leave a trace of its header alone (3 of 30 SIGTERMs, 1 of
/// 60 `kill -SEGV`s hung for ever). `CHRONOSCOPE_SIGNAL_STRESS_RUNS` runs more (scripts/stress.sh
/// runs hundreds).
final class RecordSignalStressTests: XCTestCase {
  private static let signals: [(number: Int32, name: String)] = [
    (SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"),
    (SIGSEGV, "SIGSEGV"), (SIGABRT, "SIGABRT"),
  ]

  func testEverySignalToABusyRecordedProgramEndsItBySignalWithItsCrashLine() throws {
    let runs =
      ProcessInfo.processInfo.environment["CHRONOSCOPE_SIGNAL_STRESS_RUNS"].flatMap { Int($0) }
      ?? 60
    let folder = try temporaryFolder("signal-stress")
    let program = try ProductsDirectory.executable("chronoscope-examples")
    let library = try ProductsDirectory.executable("chronoscope").deletingLastPathComponent()
      .appendingPathComponent("libChronoscopePreload.so")
    XCTAssertTrue(FileManager.default.fileExists(atPath: library.path), library.path)
    var generator = SplitMix64(seed: 37)
    var failures: [String] = []
    for run in 0..<runs {
      let signal = Self.signals[run % Self.signals.count]
      // Most at once, some after a while: a recorder that has fallen behind the program.
      let delay = UInt32.random(in: 0..<(run % 4 == 3 ? 1_500_000 : 40_000), using: &generator)
      if let failure = try signalOnce(
        program: program, library: library, folder: folder, signal: signal,
        delayMicroseconds: delay)
      {
        failures.append("run \(run), \(signal.name) after \(delay) µs: \(failure)")
      }
    }
    XCTAssertEqual(failures, [], "\(failures.count) of \(runs) runs")
  }

  /// Starts the busy program recorded, waits until it works, sends `signal` after `delay`, and
  /// says what went wrong, if anything.
  private func signalOnce(
    program: URL, library: URL, folder: URL, signal: (number: Int32, name: String),
    delayMicroseconds: UInt32
  ) throws -> String? {
    let process = Process()
    process.executableURL = program
    process.arguments = ["busy-dispatch", "--seconds", "30"]
    process.environment = ProcessInfo.processInfo.environment.merging([
      "LD_PRELOAD": library.path,
      "CHRONOSCOPE_TRACE": folder.appendingPathComponent("busy-%p.trace").path,
      // The toolchain's backtracer would take seconds over each SIGSEGV and SIGABRT.
      "SWIFT_BACKTRACE": "enable=no",
    ]) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    let ended = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in ended.signal() }
    try process.run()
    // The program says "busy PID" once every scheduler has run work.
    var seen = Data()
    while !seen.contains(UInt8(ascii: "\n")) {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      seen.append(chunk)
    }
    guard String(decoding: seen, as: UTF8.self).hasPrefix("busy") else {
      process.terminate()
      return "never got busy: \(String(decoding: seen, as: UTF8.self))"
    }
    usleep(delayMicroseconds)
    kill(process.processIdentifier, signal.number)
    guard ended.wait(timeout: .now() + 20) == .success else {
      kill(process.processIdentifier, SIGKILL)
      _ = ended.wait(timeout: .now() + 10)
      return "still running 20 s after the signal"
    }
    let path = folder.appendingPathComponent("busy-\(process.processIdentifier).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    guard process.terminationReason == .uncaughtSignal,
      process.terminationStatus == signal.number
    else {
      return "ended with \(process.terminationReason) \(process.terminationStatus)"
    }
    let reading = TraceReader.read(path: path)
    guard let trace = reading.trace, !reading.hasErrors else {
      return "trace unreadable: \(reading.diagnostics.prefix(3))"
    }
    guard trace.crash?.signal == signal.name else {
      return "trace ends without its crash line (\(trace.events.count) events)"
    }
    // Nothing lost without a word: each run whose schedule is missing was counted as dropped
    // (a writer that fell behind the program leaves its rings full when the signal comes).
    let scheduled = Set(trace.events.lazy.filter { $0.kind == .schedule }.map(\.action))
    let unscheduled = trace.events.lazy.filter {
      $0.kind == .begin && !scheduled.contains($0.action)
    }
    .count
    guard unscheduled <= trace.droppedEvents else {
      return "\(unscheduled) runs of unscheduled work, \(trace.droppedEvents) events said dropped"
    }
    return nil
  }
}
