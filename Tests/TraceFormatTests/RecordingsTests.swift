import Foundation
import TraceFormat
import XCTest

/// The traces bundled in `Recordings/`, made by `chronoscope record-example`, must stay valid
/// and keep showing what they were recorded to show.
final class RecordingsTests: XCTestCase {
  private static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  private func load(_ name: String) throws -> Trace {
    let reading = TraceReader.read(
      path: Self.directory.appendingPathComponent("\(name).trace").path)
    XCTAssertEqual(reading.diagnostics, [], name)
    return try XCTUnwrap(reading.trace, name)
  }

  func testEveryBundledRecordingReadsWithoutDiagnostics() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
      .filter { $0.hasSuffix(".trace") }
    XCTAssertEqual(
      Set(files),
      [
        "busy-app.trace", "contact-loader.trace", "message-loader.trace", "retry.trace",
        "timeout-success.trace", "timeout-timeout.trace", "virtual-timeout.trace",
      ])
    for file in files {
      let reading = TraceReader.read(path: Self.directory.appendingPathComponent(file).path)
      XCTAssertEqual(reading.diagnostics, [], file)
      XCTAssertNotNil(reading.trace?.closing, "\(file) was closed cleanly")
    }
  }

  func testTheBusyAppRecordingHasRealHopsCancelsAndTimersOnLiveQueues() throws {
    let trace = try load("busy-app")
    XCTAssertEqual(trace.header.clock, .host)
    XCTAssertGreaterThan(trace.events.count, 1000)
    let count = { (kind: TraceEvent.Kind) in trace.events.filter { $0.kind == kind }.count }
    XCTAssertGreaterThan(count(.hop), 50)
    XCTAssertGreaterThan(count(.cancel), 20)
    XCTAssertTrue(trace.events.contains { $0.kind == .schedule && $0.mode == .repeating })
    XCTAssertTrue(trace.events.contains { $0.kind == .cancel && !$0.started })
    XCTAssertGreaterThan(Set(trace.events.map(\.thread)).count, 2)
    XCTAssertTrue(trace.schedulers.values.allSatisfy { $0.family == "dispatch" })
  }

  func testTheVirtualRecordingHasExactVirtualTimes() throws {
    let trace = try load("virtual-timeout")
    XCTAssertEqual(trace.header.clock, .virtual)
    XCTAssertTrue(
      trace.events.allSatisfy { $0.time % 1_000_000 == 0 }, "whole virtual milliseconds")
    XCTAssertEqual(trace.marks.map(\.name).count, 4)
  }
}
