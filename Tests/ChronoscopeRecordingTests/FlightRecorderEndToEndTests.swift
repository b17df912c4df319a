@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// A live app (a child process on real Dispatch) records into a flight recorder with a 200 ms
/// window for 600 ms, dumps on SIGUSR1 and on a call — and, in the second test, crashes. Every
/// dump validates without a warning, replays, and the CLI opens it. Waits only for the child.
final class FlightRecorderEndToEndTests: XCTestCase {
  private func runChild(crash: Bool, way: String = "ill") throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("flight-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    let child = Process()
    child.executableURL = try ProductsDirectory.executable("chronoscope-examples")
    child.arguments =
      ["flight", "--output", folder.path] + (crash ? ["--crash", "--crash-way", way] : [])
    child.environment = ProcessInfo.processInfo.environment.merging([
      "SWIFT_BACKTRACE": "enable=no"
    ]) { $1 }
    child.standardError = FileHandle.nullDevice
    child.standardOutput = FileHandle.nullDevice
    try child.run()
    // A generous deadline: a child that hangs fails the test, not the suite.
    let deadline = DispatchWorkItem { [child] in if child.isRunning { child.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: deadline)
    child.waitUntilExit()
    deadline.cancel()
    if crash {
      XCTAssertEqual(child.terminationReason, .uncaughtSignal)
    } else {
      XCTAssertEqual(child.terminationStatus, 0)
    }
    return folder
  }

  /// Checks one dump: its window, the timer's runs carrying on in it, a replay to the end, and
  /// what `check` finds; returns the trace.
  @discardableResult
  private func checkDump(
    _ path: String, allowing allowed: [String] = [], file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> Trace {
    let name = (path as NSString).lastPathComponent
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(
      reading.diagnostics.map(\.message).filter { message in
        !allowed.contains { message.hasPrefix($0) }
      }, [], name, file: file, line: line)
    let trace = try XCTUnwrap(reading.trace, name, file: file, line: line)
    let window = try XCTUnwrap(trace.header.sliceWindow, name, file: file, line: line)
    let last = try XCTUnwrap(trace.events.last?.time, name, file: file, line: line)
    XCTAssertGreaterThanOrEqual(
      last - window.lowerBound, 200_000_000, "\(name): at least the window", file: file, line: line)
    XCTAssertGreaterThan(window.lowerBound, 0, "\(name): the start let go", file: file, line: line)
    // The ticker (the first action) runs every 5 ms: its runs go on, one after another.
    let ticker = try XCTUnwrap(trace.events.first { $0.kind == .schedule }, name)
    XCTAssertEqual(ticker.mode, .repeating, name, file: file, line: line)
    let runs = trace.events.filter { $0.kind == .begin && $0.action == ticker.action }.map(\.run)
    XCTAssertGreaterThan(runs.first ?? 0, 1, "\(name): run 1 was long gone", file: file, line: line)
    XCTAssertEqual(
      runs, Array((runs.first ?? 0)..<((runs.first ?? 0) + UInt32(runs.count))),
      "\(name): consecutive runs", file: file, line: line)

    var replay = ReplayEngine(trace: trace)
    replay.seek(to: replay.eventCount)
    XCTAssertGreaterThanOrEqual(
      replay.pendingCount(), 1, "\(name): the hour-long wait", file: file, line: line)
    let kinds = Set(FindingsAnalysis.findings(in: replay).map(\.kind))
    XCTAssertFalse(kinds.contains(.leakedTimer), "\(name): the app went on", file: file, line: line)
    // What is pending where the window ends is only a hint: nothing there fails a CI run. (The
    // rules about the end alone: a live run on a loaded machine is late for real.)
    let check = try CommandRun.chronoscope(["check", "--only", "lost-work,leaked-timer", path])
    XCTAssertEqual(check.status, 0, "\(name): \(check.output)", file: file, line: line)

    let (status, output) = try CommandRun.chronoscope([
      "show", path, "--at", "\(last / 1_000_000)ms", "--size", "120x40",
    ])
    XCTAssertEqual(status, 0, output, file: file, line: line)
    XCTAssertTrue(output.contains("ticker"), output, file: file, line: line)
    return trace
  }

  func testDumpsOnASignalAndOnACallValidateAndReplay() throws {
    let folder = try runChild(crash: false)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    XCTAssertEqual(files.count, 2, "\(files)")
    let signal = try XCTUnwrap(files.first { $0.hasPrefix("signal-") }, "the SIGUSR1 dump")
    XCTAssertEqual(signal, "signal-\(signal.dropFirst(7).dropLast(6)).trace")
    try checkDump(folder.appendingPathComponent(signal).path)
    let dump = try checkDump(folder.appendingPathComponent("dump.trace").path)
    XCTAssertNotNil(dump.closing, "a dump ends with an end marker")
  }

  func testACrashWritesTheWindowAndTheCrashingAction() throws {
    let folder = try runChild(crash: true)
    let trace = try checkDump(
      folder.appendingPathComponent("crash.trace").path, allowing: ["the process crashed"])
    let crash = try XCTUnwrap(trace.crash, "a crash line")
    XCTAssertEqual(crash.signal, "SIGILL")
    let mark = try XCTUnwrap(trace.events.lastIndex { $0.kind == .mark }, "the mark")
    let crashing = try XCTUnwrap(trace.events[mark...].first { $0.kind == .schedule }?.action)
    let begin = try XCTUnwrap(trace.events.last { $0.kind == .begin && $0.action == crashing })
    XCTAssertEqual(crash.thread, begin.thread, "the crash hit the thread running the action")
  }

  func testAStackOverflowInAnActionStillWritesTheCrashDump() throws {
    let folder = try runChild(crash: true, way: "stack-overflow")
    let trace = try checkDump(
      folder.appendingPathComponent("crash.trace").path, allowing: ["the process crashed"])
    XCTAssertEqual(trace.crash?.signal, "SIGSEGV")
    let mark = try XCTUnwrap(trace.events.lastIndex { $0.kind == .mark }, "the mark")
    let crashing = try XCTUnwrap(trace.events[mark...].first { $0.kind == .schedule }?.action)
    XCTAssertNotNil(trace.events.last { $0.kind == .begin && $0.action == crashing })
  }
}
