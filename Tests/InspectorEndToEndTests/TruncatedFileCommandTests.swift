import ChronoscopeTestSupport
import Foundation
import XCTest

/// `validate`, `check` and `stats` on a file another process truncates while they read it (an
/// app restarting on the same `CHRONOSCOPE_TRACE` path): they say the file changed and exit 2,
/// never die of `SIGBUS` (issue 29, item 10; before, 10 crashes in 10 tries).
final class TruncatedFileCommandTests: XCTestCase {
  /// A trace of `count` schedule lines, about 100 bytes each.
  private func writeTrace(to path: String, events count: Int) throws {
    var text =
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"2026-01-01T00:00:00Z","process":"t","pid":1,"metadata":{}}"#
      + "\n"
    text +=
      #"{"t":0,"e":"scheduler","q":1,"label":"main","kind":"main","family":"dispatch"}"# + "\n"
    text.reserveCapacity(count * 100)
    for index in 1...count {
      text +=
        #"{"t":\#(index),"e":"schedule","a":\#(index),"q":1,"mode":"async","due":\#(index),"th":1}"#
        + "\n"
    }
    try text.write(toFile: path, atomically: false, encoding: .utf8)
  }

  /// Whether process `pid` has `path` mapped (it is reading it).
  private func maps(_ pid: Int32, _ path: String) -> Bool {
    guard let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) else {
      return false
    }
    return maps.contains(path)
  }

  /// Runs `command` on a fresh copy of `source`, truncates the copy as soon as the command has
  /// mapped it (a wait on the child's state, not on the clock), and returns how it ended.
  private func runTruncating(_ command: String, _ source: String) throws -> (
    status: Int32, reason: Process.TerminationReason, output: String
  ) {
    let path = temporaryTracePath("truncated-\(command)")
    try FileManager.default.copyItem(atPath: source, toPath: path)
    let process = Process()
    process.executableURL = try ProductsDirectory.executable("chronoscope")
    process.arguments = [command, path]
    process.environment = ProcessInfo.processInfo.environment.merging([
      "SWIFT_BACKTRACE": "enable=no"
    ]) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    while process.isRunning, !maps(process.processIdentifier, path) { sched_yield() }
    XCTAssertEqual(truncate(path, 4096), 0)
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, process.terminationReason, String(decoding: data, as: UTF8.self)
    )
  }

  func testACommandReadingAFileThatIsTruncatedSaysItChangedAndExits2() throws {
    #if os(Linux)
      let source = temporaryTracePath("large")
      try writeTrace(to: source, events: 400_000)
      var changed = 0
      for command in ["validate", "check", "stats", "validate", "check"] {
        let run = try runTruncating(command, source)
        XCTAssertEqual(run.reason, .exit, "\(command) died of signal \(run.status): \(run.output)")
        // Done before the truncation took hold, the read is whole; otherwise it says so.
        XCTAssertTrue([0, 1, 2].contains(run.status), "\(command): \(run.status) \(run.output)")
        if run.output.contains("the file changed while it was read") {
          XCTAssertEqual(run.status, 2, run.output)
          changed += 1
        }
      }
      XCTAssertGreaterThan(changed, 0, "no read was under way when its file was truncated")
    #else
      throw XCTSkip("reads /proc to see when the child has mapped the file")
    #endif
  }
}
