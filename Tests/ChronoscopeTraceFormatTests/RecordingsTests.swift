import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The traces bundled in `Recordings/`, made by `chronoscope-examples record` (and
/// `feed-refresher.trace` by `chronoscope record`), must stay valid and keep showing what they
/// were recorded to show.
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
        "async-actors.trace", "async-search.trace", "async-search-virtual.trace",
        "busy-app.trace", "busy-app-virtual.trace", "contact-loader.trace", "feed-refresher.trace",
        "findings-demo.trace", "findings-demo-virtual.trace",
        "message-loader.trace", "retry.trace", "stale-response.trace",
        "timeout-success.trace", "timeout-timeout.trace", "virtual-timeout.trace",
      ])
    for file in files {
      let reading = TraceReader.read(path: Self.directory.appendingPathComponent(file).path)
      XCTAssertEqual(reading.diagnostics, [], file)
      XCTAssertNotNil(reading.trace?.closing, "\(file) was closed cleanly")
    }
  }

  func testTheBusyAppRecordingHasRealHopsCancelsAndTimersOnLiveSchedulers() throws {
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

  func testTheStaleResponseRecordingHasALateResponseOverwritingTheNewerOneOnLiveSchedulers() throws
  {
    let trace = try load("stale-response")
    XCTAssertEqual(trace.header.clock, .host)
    XCTAssertTrue(trace.schedulers.values.allSatisfy { $0.family == "dispatch" })
    let began = trace.events.filter { $0.kind == .begin }.map(\.action)
    // 1, 2: "a" then "b" typed; 3, 4: their requests; b's response (4) shows (5) before a's
    // (3), which shows last (6).
    XCTAssertEqual(began.firstIndex(of: 1).map { $0 < began.firstIndex(of: 2) ?? 0 }, true)
    XCTAssertLessThan(
      try XCTUnwrap(began.firstIndex(of: 4)), try XCTUnwrap(began.firstIndex(of: 3)))
    XCTAssertEqual(began.last, 6)
  }

  func testTheVirtualRecordingHasExactVirtualTimes() throws {
    let trace = try load("virtual-timeout")
    XCTAssertEqual(trace.header.clock, .virtual)
    XCTAssertTrue(
      trace.events.allSatisfy { $0.time % 1_000_000 == 0 }, "whole virtual milliseconds")
    XCTAssertEqual(trace.marks.map(\.name).count, 4)
  }

  func testEveryBundledRecordingNumbersItsActionsDenselyInOrderOfFirstAppearance() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
      .filter { $0.hasSuffix(".trace") }
    for file in files {
      let trace = try load(String(file.dropLast(".trace".count)))
      var seen: Set<UInt32> = []
      var order: [UInt32] = []
      for event in trace.events {
        for id in [event.action, event.parent ?? 0] where id != 0 && seen.insert(id).inserted {
          order.append(id)
        }
      }
      XCTAssertEqual(order, order.isEmpty ? [] : Array(1...UInt32(order.count)), file)
    }
  }

  func testTheVirtualBusyAppHasTheBusyAppsShapeOnVirtualTime() throws {
    let trace = try load("busy-app-virtual")
    XCTAssertEqual(trace.header.clock, .virtual)
    XCTAssertEqual(trace.header.start, "", "nothing in it depends on the wall clock")
    XCTAssertEqual(trace.header.pid, 0)
    let labels = trace.schedulers.values.map(\.label)
    XCTAssertTrue(labels.contains("main"))
    XCTAssertTrue(labels.contains { $0.count > 40 }, "a long label: \(labels)")
    XCTAssertEqual(Set(trace.schedulers.values.map(\.kind)), ["main", "serial", "concurrent"])
    XCTAssertTrue(trace.marks.contains { !$0.fields.isEmpty }, "marks with fields")
    let schedules = trace.events.filter { $0.kind == .schedule }
    XCTAssertEqual(
      Set(schedules.map(\.mode)), [.async, .sync, .after, .repeating], "every way to schedule")
    XCTAssertTrue(trace.events.contains { $0.kind == .cancel && !$0.started }, "cancelled work")
    XCTAssertTrue(trace.events.contains { $0.kind == .cancel && $0.started }, "stopped timers")

    // A repeating timer drifts: each run starts later than the interval after the one before.
    let heartbeat = try XCTUnwrap(schedules.first { $0.mode == .repeating })
    let begins = trace.events.filter { $0.kind == .begin && $0.action == heartbeat.action }
    XCTAssertGreaterThan(begins.count, 5)
    let gaps = zip(begins, begins.dropFirst()).map { $1.time - $0.time }
    XCTAssertTrue(gaps.allSatisfy { $0 >= heartbeat.delay }, "\(gaps)")
    XCTAssertGreaterThan(
      begins.last?.time ?? 0, heartbeat.due + heartbeat.delay * Int64(begins.count - 1))

    // Lost work: scheduled, never begun, never cancelled.
    let touched = Set(trace.events.filter { $0.kind != .schedule }.map(\.action))
    XCTAssertTrue(schedules.contains { !touched.contains($0.action) }, "some work is lost")
    XCTAssertEqual(
      Set(trace.events.filter { $0.kind != .work }.map(\.thread)), [1],
      "virtual time runs on one thread")
  }
}
