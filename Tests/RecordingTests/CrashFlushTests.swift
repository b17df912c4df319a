import Foundation
import TestSupport
import TraceFormat
import XCTest

/// A child process crashes inside a recorded action, each way a Swift program crashes; the trace
/// must hold the crashing action's schedule and begin, end with a `crash` line naming the
/// signal, and validate. Waits only for the child to exit.
final class CrashFlushTests: XCTestCase {
  private func crash(
    _ way: String, signal: Int32, name: String, backtracer: Bool = false
  ) throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("crash-\(way)-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let child = Process()
    child.executableURL = try ProductsDirectory.executable("chronoscope-examples")
    child.arguments = ["crash", "--output", path, "--way", way]
    child.environment = ProcessInfo.processInfo.environment.merging([
      "SWIFT_BACKTRACE": backtracer ? "enable=yes,interactive=no" : "enable=no"
    ]) { $1 }
    let errors = Pipe()
    child.standardError = errors
    child.standardOutput = FileHandle.nullDevice
    try child.run()
    // A generous deadline: a child that hangs instead of dying fails the test, not the suite.
    let deadline = DispatchWorkItem { [child] in if child.isRunning { child.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: deadline)
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    deadline.cancel()
    if !backtracer {
      XCTAssertEqual(child.terminationReason, .uncaughtSignal, way)
      XCTAssertEqual(child.terminationStatus, signal, "\(way) died of its signal")
    }

    let reading = TraceReader.read(path: path)
    XCTAssertFalse(reading.hasErrors, "\(way): \(reading.diagnostics)")
    XCTAssertEqual(
      reading.diagnostics.map(\.message).filter { !$0.hasPrefix("the process crashed") }, [], way)
    let trace = try XCTUnwrap(reading.trace, way)
    let crash = try XCTUnwrap(trace.crash, "\(way): a crash line")
    XCTAssertEqual(crash.signal, name)
    // The mark comes just before the crashing action is scheduled; its schedule and begin
    // follow, and it never ends.
    let mark = try XCTUnwrap(trace.events.lastIndex { $0.kind == .mark }, way)
    let crashing = try XCTUnwrap(
      trace.events[mark...].first { $0.kind == .schedule }?.action, "\(way): the schedule")
    let begin = try XCTUnwrap(
      trace.events.last { $0.kind == .begin && $0.action == crashing }, "\(way): the begin")
    XCTAssertEqual(crash.thread, begin.thread, "the crash hit the thread running the action")
    XCTAssertFalse(trace.events.contains { $0.kind == .end && $0.action == crashing })
    return stderr
  }

  func testASegmentationFaultWritesTheCrashingActionsBegin() throws {
    _ = try crash("segv", signal: SIGSEGV, name: "SIGSEGV")
  }

  func testABusErrorWritesTheCrashingActionsBegin() throws {
    _ = try crash("bus", signal: SIGBUS, name: "SIGBUS")
  }

  func testASwiftTrapWritesTheCrashingActionsBegin() throws {
    _ = try crash("ill", signal: SIGILL, name: "SIGILL")
  }

  func testAbortWritesTheCrashingActionsBegin() throws {
    _ = try crash("abrt", signal: SIGABRT, name: "SIGABRT")
  }

  func testSIGTRAPWritesTheCrashingActionsBegin() throws {
    _ = try crash("trap", signal: SIGTRAP, name: "SIGTRAP")
  }

  func testSwiftsBacktracerStillReportsTheCrashAfterTheFlush() throws {
    if ProcessInfo.processInfo.environment["CHRONOSCOPE_SANITIZER"] != nil {
      throw XCTSkip("Swift's backtracer cannot suspend threads in a sanitized process")
    }
    let stderr = try crash("segv", signal: SIGSEGV, name: "SIGSEGV", backtracer: true)
    XCTAssertTrue(stderr.contains("Program crashed: Bad pointer dereference"), stderr)
  }
}
