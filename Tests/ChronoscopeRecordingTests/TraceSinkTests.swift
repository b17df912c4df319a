import ChronoscopeSchedulingTesting
import ChronoscopeTraceFormat
import Foundation
import XCTest

@testable import ChronoscopeRecording

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where the writer's lines go: what each sink tells the encoding core, and what each does with
/// a failure and on the crash path.
final class TraceSinkTests: XCTestCase {
  private var directory = URL(fileURLWithPath: "/")

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("sinks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDown() {
    try? FileManager.default.removeItem(at: directory)
  }

  private var header: TraceHeader {
    TraceHeader(clock: .host, start: "", process: "sinks", pid: 1)
  }

  func testOnlySinksThatStartTracesPartWayKeepTheRecordersActionIDs() {
    let file = TraceSink.file(TraceFileSink(descriptor: -1, path: "a.trace", onError: { _ in }))
    let rotating = TraceSink.rotating(
      RotatingTraceFileSink(
        descriptor: -1, path: "a.trace", rotation: TraceRotation(maxBytes: 1 << 20, keep: 1),
        onError: { _ in }))
    let memory = TraceSink.memory(
      FlightMemorySink(window: FlightRecorderWindow(), header: header, crashDumpPath: nil))

    XCTAssertFalse(file.keepsIDs)
    XCTAssertTrue(rotating.keepsIDs)
    XCTAssertTrue(memory.keepsIDs)
  }

  func testAFileSinkWhoseReaderWentAwayKeepsNothingAndReportsOnce() {
    var ends: [Int32] = [0, 0]
    XCTAssertEqual(pipe(&ends), 0)
    close(ends[0])
    defer { close(ends[1]) }
    let reports = Locked<[String]>([])
    var sink = TraceFileSink(
      descriptor: ends[1], path: "fifo",
      onError: { message in reports.withLock { $0.append(message) } })
    let line = Array("{\"t\":1}\n".utf8)

    let first = sink.write(line, ends: [line.count], time: 1, crashing: false, reporting: true)
    let second = sink.write(line, ends: [line.count], time: 2, crashing: false, reporting: true)

    XCTAssertEqual(first.kept, 0)
    XCTAssertFalse(first.succeeded)
    XCTAssertFalse(second.succeeded)
    XCTAssertTrue(sink.failed)
    XCTAssertEqual(reports.value.count, 1)
    XCTAssertTrue(reports.value.first?.hasPrefix("chronoscope: writing fifo failed") == true)
  }

  func testAFlightSinkWithoutACrashDumpPathHasNowhereToWriteOnACrash() {
    var sink = TraceSink.memory(
      FlightMemorySink(window: FlightRecorderWindow(), header: header, crashDumpPath: nil))

    XCTAssertFalse(sink.beginCrash())
  }

  func testAFlightSinkWritesItsWindowToTheCrashDumpThenTheLinesAfterIt() throws {
    let path = directory.appendingPathComponent("crash.trace").path
    var sink = TraceSink.memory(
      FlightMemorySink(window: FlightRecorderWindow(), header: header, crashDumpPath: path))
    let kept = Array("{\"kept\":1}\n".utf8)
    let after = Array("{\"after\":1}\n".utf8)
    _ = sink.write(kept, ends: [kept.count], time: 1, crashing: false, reporting: true)

    XCTAssertTrue(sink.beginCrash())
    _ = sink.write(after, ends: [after.count], time: 2, crashing: true, reporting: false)
    sink.endCrash()

    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    XCTAssertEqual(lines.count, 3)
    XCTAssertTrue(lines.first?.contains("flight recorder of sinks") == true)
    XCTAssertEqual(lines.dropFirst().map(String.init), ["{\"kept\":1}", "{\"after\":1}"])
  }
}
