import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// A real child process records at full speed and is killed with SIGKILL: its trace must still
/// parse (but for a possibly cut-off last line) and hold every event older than the flush
/// interval. This runs the real `chronoscope` binary, so it waits on a real clock — through the
/// child's own output, never a fixed sleep.
final class CrashSafetyTests: XCTestCase {
  /// How much slower than usual the binary runs: `scripts/tsan.sh` sets
  /// `CHRONOSCOPE_TIME_SCALE` (ThreadSanitizer slows it several times), and the bounds on
  /// wall-clock time scale with it instead of the test being skipped.
  private static let slowdown =
    ProcessInfo.processInfo.environment["CHRONOSCOPE_TIME_SCALE"].flatMap(Double.init) ?? 1

  func testATraceSurvivesSIGKILLWithEverythingOlderThanTheFlushInterval() throws {
    let binary = try ProductsDirectory.executable("chronoscope-examples")
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("crash-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }

    let child = Process()
    child.executableURL = binary
    // Each action blocks for 200 µs, as if on I/O, so that even a debug build's writer keeps up
    // on a loaded machine: the point is what survives a kill, not how much a writer can drop.
    child.arguments = [
      "stress", "--output", path, "--seconds", "60", "--io-microseconds",
      String(Int(200 * Self.slowdown)),
    ]
    let output = Pipe()
    child.standardOutput = output
    try child.run()

    // Read the child's "round N" reports until it has recorded for a while.
    var reported: [(round: Int, at: Date)] = []
    var pending = Data()
    let started = Date()
    while Date().timeIntervalSince(started) < 30 * Self.slowdown {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      pending.append(chunk)
      while let newline = pending.firstIndex(of: 0x0A) {
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        if line.hasPrefix("round "), let round = Int(line.dropFirst(6)) {
          reported.append((round, Date()))
        }
      }
      if let first = reported.first, let last = reported.last,
        last.at.timeIntervalSince(first.at) > 1.0 * Self.slowdown
      {
        break
      }
    }
    kill(child.processIdentifier, SIGKILL)
    let killedAt = Date()
    child.waitUntilExit()
    XCTAssertEqual(child.terminationReason, .uncaughtSignal)
    XCTAssertGreaterThan(reported.count, 10, "the child recorded for a while")

    let reading = TraceReader.read(path: path)
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics.prefix(5))")
    // A cut-off last line, and the end marker a killed process never wrote: warnings only.
    XCTAssertTrue(
      reading.diagnostics.allSatisfy {
        $0.message.hasPrefix("truncated final line")
          || $0.message.hasPrefix("the recording did not close")
      }, "\(reading.diagnostics.prefix(5))")
    XCTAssertTrue(
      reading.diagnostics.contains { $0.message.hasPrefix("the recording did not close") })
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertNil(trace.closing, "killed processes write no end marker")
    let markedRounds = Set(trace.marks.compactMap { $0.fields["n"].flatMap(Int.init) })
    // Everything recorded well before the kill (five flush intervals) must be on disk.
    let settled = reported.filter { killedAt.timeIntervalSince($0.at) > 0.5 * Self.slowdown }
    XCTAssertFalse(settled.isEmpty)
    let missing = settled.filter { !markedRounds.contains($0.round) }
    XCTAssertEqual(missing.map(\.round), [], "marks older than the flush interval were lost")
    XCTAssertGreaterThan(trace.events.count, 1000)
  }
}
