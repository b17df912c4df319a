import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// A child process crashes inside a recorded action, each way a Swift program crashes; the trace
/// must hold the crashing action's schedule and begin, end with a `crash` line naming the
/// signal, and validate. Waits only for the child to exit.
final class CrashFlushTests: XCTestCase {
  /// Runs the `crash` child with `arguments` (its trace path given by the caller), waits for it
  /// to die, and returns what it wrote on standard error.
  private func runChild(
    _ arguments: [String], backtracer: Bool = false, signal: Int32? = nil,
    file: StaticString = #filePath, line: UInt = #line
  ) throws -> String {
    let child = Process()
    child.executableURL = try ProductsDirectory.executable("chronoscope-examples")
    child.arguments = ["crash"] + arguments
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
    if let signal {
      XCTAssertEqual(
        child.terminationReason, .uncaughtSignal, "\(arguments)", file: file, line: line)
      XCTAssertEqual(
        child.terminationStatus, signal, "\(arguments) died of its signal", file: file, line: line)
    }
    return stderr
  }

  /// Checks a crashed child's trace: it validates, ends with a crash line naming `name`, and holds
  /// the crashing action's schedule and begin (after the last mark) on the thread the crash hit.
  @discardableResult
  private func checkCrashedTrace(
    _ path: String, name: String, crashingThread: UInt32? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> Trace {
    let reading = TraceReader.read(path: path)
    XCTAssertFalse(reading.hasErrors, "\(path): \(reading.diagnostics)", file: file, line: line)
    XCTAssertEqual(
      reading.diagnostics.map(\.message).filter { !$0.hasPrefix("the process crashed") }, [],
      path, file: file, line: line)
    let trace = try XCTUnwrap(reading.trace, path, file: file, line: line)
    let crash = try XCTUnwrap(trace.crash, "\(path): a crash line", file: file, line: line)
    XCTAssertEqual(crash.signal, name, file: file, line: line)
    if let crashingThread {
      XCTAssertEqual(
        crash.thread, crashingThread, "\(path): the crashing thread", file: file, line: line)
      return trace
    }
    // The mark comes just before the crashing action is scheduled; its schedule and begin
    // follow, and it never ends.
    let mark = try XCTUnwrap(
      trace.events.lastIndex { $0.kind == .mark }, path, file: file, line: line)
    let crashing = try XCTUnwrap(
      trace.events[mark...].first { $0.kind == .schedule }?.action, "\(path): the schedule",
      file: file, line: line)
    let begin = try XCTUnwrap(
      trace.events.last { $0.kind == .begin && $0.action == crashing }, "\(path): the begin",
      file: file, line: line)
    XCTAssertEqual(
      crash.thread, begin.thread, "the crash hit the thread running the action", file: file,
      line: line)
    XCTAssertFalse(
      trace.events.contains { $0.kind == .end && $0.action == crashing }, file: file, line: line)
    return trace
  }

  private func crash(
    _ way: String, signal: Int32, name: String, backtracer: Bool = false, options: [String] = []
  ) throws -> (stderr: String, trace: Trace) {
    let path = temporaryTracePath("crash-\(way)")
    let stderr = try runChild(
      ["--output", path, "--way", way] + options, backtracer: backtracer,
      signal: backtracer ? nil : signal)
    return (stderr, try checkCrashedTrace(path, name: name))
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
    let stderr = try crash("segv", signal: SIGSEGV, name: "SIGSEGV", backtracer: true).stderr
    XCTAssertTrue(stderr.contains("Program crashed: Bad pointer dereference"), stderr)
  }

  // MARK: - The crash path's edges (issue 29, item 9)

  func testAStackOverflowInAnActionWritesItsBeginAndACrashLine() throws {
    _ = try crash("stack-overflow", signal: SIGSEGV, name: "SIGSEGV")
  }

  func testAMarkJustBeforeACrashIsWrittenWithItsName() throws {
    let trace = try crash("abrt", signal: SIGABRT, name: "SIGABRT").trace
    XCTAssertEqual(trace.marks.last?.name, "about to crash")
  }

  func testACrashWhileTheVirtualClocksLockIsHeldStillWritesTheCrashLine() throws {
    let trace = try crash(
      "ill", signal: SIGILL, name: "SIGILL", options: ["--virtual-clock-locked"]
    ).trace
    XCTAssertEqual(trace.header.clock, .virtual)
    // No clock reading: the crash line takes the last time buffered.
    XCTAssertEqual(trace.crash?.time, trace.events.last?.time)
  }

  func testTwentyRecordersAllWriteTheCrashLineWithTheCrashingThread() throws {
    let folder = try temporaryFolder("crash-twenty")
    let output = folder.appendingPathComponent("trace").path
    _ = try runChild(
      ["--output", output, "--way", "segv", "--recorders", "20"], signal: SIGSEGV)
    // The 20th recorder's action crashed: its trace has the begin; every other names that thread.
    let last = try checkCrashedTrace("\(output)-20", name: "SIGSEGV")
    let thread = try XCTUnwrap(last.crash?.thread)
    XCTAssertNotEqual(thread, 0)
    for index in 1..<20 {
      try checkCrashedTrace("\(output)-\(index)", name: "SIGSEGV", crashingThread: thread)
    }
  }
}
