import ChronoscopeRecording
import Foundation
import XCTest

/// The recorder's writer thread takes none of the app's signals (found recording a program that
/// waits for SIGINT on a Dispatch signal source: with every one of its own threads blocking it, the
/// kernel gave the signal to the writer, where it was dropped, and the program never saw it).
final class WriterThreadSignalTests: XCTestCase {
  /// The blocked-signal mask of this process's thread named `name`, from /proc.
  private func blockedSignals(ofThreadNamed name: String) throws -> UInt64? {
    let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
    for task in tasks {
      let comm =
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
      guard comm.trimmingCharacters(in: .whitespacesAndNewlines) == name else { continue }
      let status = try String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
      guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") })
      else { return nil }
      return UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    }
    return nil
  }

  func testTheWriterThreadBlocksTheAppsSignalsButNotCrashes() throws {
    #if os(Linux)
      let folder = try temporaryFolder("writer-signals")
      let recorder = try TraceRecorder(path: folder.appendingPathComponent("t.trace").path)
      defer { recorder.close() }
      // The name the writer gives itself (Linux keeps 15 bytes of one).
      let name = "chronoscope.tra"
      // The thread names itself as it starts: wait for that, yielding, with a generous deadline.
      let deadline = Date().addingTimeInterval(10)
      var found = try blockedSignals(ofThreadNamed: name)
      while found == nil, Date() < deadline {
        sched_yield()
        found = try blockedSignals(ofThreadNamed: name)
      }
      let mask = try XCTUnwrap(found, "the writer thread \(name) is listed in /proc")
      func blocks(_ signal: Int32) -> Bool { mask & (1 << UInt64(signal - 1)) != 0 }
      for signal in [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGCHLD] {
        XCTAssertTrue(blocks(signal), "signal \(signal) blocked")
      }
      for signal in [SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGTRAP] {
        XCTAssertFalse(blocks(signal), "crash signal \(signal) open")
      }
    #endif
  }
}
