import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// A `sync` that would have deadlocked and ran inline is marked on its schedule line, and the
/// header carries the machine's core count.
final class InlineSyncRecordingTests: XCTestCase {
  func testAReentrantSyncIsMarkedInlineAndAPlainOneIsNot() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("inline-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try TraceRecorder(path: path)
    let factory = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: recorder)
    let queue = factory.makeSerial(label: "db")
    queue.sync { queue.sync {} }
    recorder.close()

    let trace = try XCTUnwrap(TraceReader.read(path: path).trace)
    let syncs = trace.events.filter { $0.kind == .schedule && $0.mode == .sync }
    XCTAssertEqual(syncs.map(\.ranInline), [false, true])
    XCTAssertEqual(trace.header.cores, ProcessInfo.processInfo.activeProcessorCount)
    let start = try XCTUnwrap(trace.header.startNanoseconds, "a live recording says when it began")
    let now = Int64(Date().timeIntervalSince1970 * 1e9)
    XCTAssertLessThan(abs(now - start), 600 * 1_000_000_000, "within minutes of now")
    let text = try String(contentsOfFile: path, encoding: .utf8)
    XCTAssertEqual(text.components(separatedBy: "\"inline\":true").count, 2, "one line says so")
  }
}
