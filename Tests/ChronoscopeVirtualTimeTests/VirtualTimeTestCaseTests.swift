import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Foundation
import XCTest

/// Under XCTest, a failing test keeps the trace of its work on virtual time, and its message
/// says where it went. Failures made on purpose (in `failing`) go to `failureSink`, not to XCTest.
final class VirtualTimeTestCaseTests: VirtualTimeTestCase {
  /// The messages of the failures `body` makes, which fail nothing.
  private func failing(_ body: () -> Void) -> [String] {
    let failures = Locked<[String]>([])
    failureSink.withLock { $0 = { message in failures.withLock { $0.append(message) } } }
    body()
    failureSink.withLock { $0 = nil }
    return failures.value
  }

  /// Two searches on a serial queue, the second at 5 s, recorded on `clock`.
  private func runSearches(on factory: some SchedulerFactory, clock: VirtualClock) {
    let queue = factory.makeSerial(label: "search")
    queue.async {}
    queue.after(.seconds(5)) {}
    clock.advance(by: .seconds(5))
  }

  /// The two searches, recorded with their trace going to `folder` (a fresh one by default).
  private func recordedSearches(in folder: String? = nil) throws -> TestTraceRecorder {
    let clock = VirtualClock()
    let trace = recordTrace(
      of: clock, settings: TestTraceSettings(folder: try folder ?? temporaryFolder().path))
    runSearches(on: trace.factory, clock: clock)
    return trace
  }

  private func files(in folder: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
  }

  func testAFailingTestKeepsItsTraceWithItsPathCommandsAndState() throws {
    let folder = try temporaryFolder()
    let trace = try recordedSearches(in: folder.path)

    let message = try XCTUnwrap(failing { XCTFail("two searches went out") }.first)
    let path = try XCTUnwrap(trace.keptTrace?.path)
    XCTAssertEqual(files(in: folder), [URL(fileURLWithPath: path).lastPathComponent])
    XCTAssert(message.hasPrefix("failed - two searches went out\n"), message)
    XCTAssert(message.contains("chronoscope kept this test's trace: \(path)"), message)
    XCTAssert(message.contains("chronoscope view \(path)"), message)
    let event = try XCTUnwrap(trace.keptTrace?.event)
    XCTAssert(message.contains("chronoscope show \(path) --at e\(event)"), message)
    // The state at the last work: the instant, the work that began, what runs and waits.
    let state = try XCTUnwrap(trace.keptTrace?.state)
    XCTAssert(message.hasSuffix("\n" + state), message)
    XCTAssert(state.hasPrefix("at 5.000000s, event \(event) of "), state)
    XCTAssert(state.contains(" on search from "), state)
    XCTAssert(state.contains(" began\n  running (1): #"), state)
    // The show command draws that instant.
    let shown = try CommandRun.chronoscope(["show", path, "--at", "e\(event)"])
    XCTAssertEqual(shown.status, 0, shown.output)
    XCTAssert(shown.output.contains("5.000000s"), shown.output)
  }

  func testAKeptTraceOpensAtTheLastWorkThatRanBeforeTheFailureNotAtTheClocksLastInstant() throws {
    let folder = try temporaryFolder()
    let clock = VirtualClock()
    let trace = recordTrace(of: clock, settings: TestTraceSettings(folder: folder.path))
    let queue = trace.factory.makeSerial(label: "search")
    queue.async {}
    queue.after(.seconds(5)) {}  // the write that races, at 5 s
    clock.advance(by: .seconds(60))  // the test moves on; the check fails at 60 s, nothing left

    let message = try XCTUnwrap(failing { XCTFail("the stale write won") }.first)

    let path = try XCTUnwrap(trace.keptTrace?.path)
    let command = try XCTUnwrap(
      message.split(separator: "\n").first { $0.contains("chronoscope show") }, message)
    let at = try XCTUnwrap(command.components(separatedBy: " --at ").last, message)
    XCTAssert(command.hasSuffix("chronoscope show \(path) --at \(at)"), message)
    XCTAssert(message.contains("open it:  chronoscope view \(path) --at \(at)\n"), message)
    let shown = try CommandRun.chronoscope(["show", path, "--at", at])
    XCTAssertEqual(shown.status, 0, shown.output)
    XCTAssert(message.contains("at 5.000000s, event \(at.dropFirst()) of "), message)
    // The frame is at 5 s, the cursor (▸) on the second search's begin.
    let cursor = try XCTUnwrap(
      shown.output.split(separator: "\n").first { $0.hasPrefix("▸") && $0.contains("#2") },
      shown.output)
    XCTAssert(cursor.contains("5.000000s  begin    #2"), shown.output)
    XCTAssert(shown.output.contains("5.000000s / 60.000000s"), shown.output)
  }

  func testAKeptTraceValidatesWithTheVirtualClocksTimes() throws {
    let folder = try temporaryFolder()
    let trace = try recordedSearches(in: folder.path)

    _ = failing { XCTFail("the second search at 5 s") }

    let path = try XCTUnwrap(trace.keptTrace?.path)
    let validated = try CommandRun.chronoscope(["validate", path])
    XCTAssertEqual(validated.status, 0, validated.output)
    let reading = TraceReader.read(path: path)
    let read = try XCTUnwrap(reading.trace)
    XCTAssertFalse(reading.hasErrors || reading.hasWarnings, "\(reading.diagnostics)")
    XCTAssertEqual(read.header.clock, .virtual)
    XCTAssertEqual(read.events.filter { $0.kind == .begin }.map(\.time), [0, 5_000_000_000])
    XCTAssertEqual(read.marks.map(\.name), ["failure"])
  }

  func testATraceStartedLateStillShowsTheClocksOwnTime() throws {
    let folder = try temporaryFolder()
    let clock = VirtualClock(start: .seconds(5))
    let trace = recordTrace(of: clock, settings: TestTraceSettings(folder: folder.path))
    trace.factory.makeSerial(label: "late").after(.seconds(2)) {}
    clock.advance(by: .seconds(2))

    let kept = trace.keep(reason: "at 7 s")

    XCTAssertEqual(kept.at, 7_000_000_000)
    let event = try XCTUnwrap(kept.event)
    XCTAssertEqual(kept.showCommand, "chronoscope show \(try XCTUnwrap(kept.path)) --at e\(event)")
    XCTAssert(
      kept.state?.hasPrefix("at 7.000000s, event \(event) of 4: #1 on late") == true,
      kept.state ?? "no state")
    let read = try XCTUnwrap(TraceReader.read(path: try XCTUnwrap(kept.path)).trace)
    XCTAssertEqual(read.events.filter { $0.kind == .begin }.map(\.time), [7_000_000_000])
  }

  func testAPassingTestWritesNothing() throws {
    let folder = try temporaryFolder()
    let trace = try recordedSearches(in: folder.path)

    XCTAssertNil(trace.finish())

    XCTAssertEqual(files(in: folder), [])
  }

  func testKeepingEveryTestsTraceWritesAPassingOne() throws {
    let folder = try temporaryFolder()
    let clock = VirtualClock()
    let settings = TestTraceSettings(environment: [
      TestTraceSettings.keepVariable: "all", TestTraceSettings.folderVariable: folder.path,
    ])
    let trace = recordTrace(of: clock, settings: settings)
    runSearches(on: trace.factory, clock: clock)

    let kept = try XCTUnwrap(trace.finish())

    XCTAssertEqual(
      files(in: folder), [URL(fileURLWithPath: try XCTUnwrap(kept.path)).lastPathComponent])
    XCTAssertFalse(TraceReader.read(path: try XCTUnwrap(kept.path)).hasErrors)
  }

  func testAnUnwritableFolderIsSaidOnceAndFailsNothingMore() throws {
    _ = try recordedSearches(in: "/dev/null/chronoscope-traces")

    let messages = failing {
      XCTFail("first")
      XCTFail("second")
    }

    XCTAssertEqual(messages.count, 2, "no failure of its own")
    XCTAssert(
      messages[0].hasPrefix("failed - first\nchronoscope could not keep this test's trace: "),
      messages[0])
    XCTAssert(messages[0].contains("/dev/null/chronoscope-traces: Not a directory"), messages[0])
    XCTAssertEqual(messages[1], "failed - second")
  }

  func testAFullDiskIsSaidInTheFailure() throws {
    let folder = try temporaryFolder()
    let fileName = TestTraceSettings.fileName(name) + ".trace"
    try FileManager.default.createSymbolicLink(
      atPath: folder.appendingPathComponent(fileName).path, withDestinationPath: "/dev/full")
    _ = try recordedSearches(in: folder.path)

    let message = try XCTUnwrap(failing { XCTFail("on a full disk") }.first)
    XCTAssert(message.contains("could not keep this test's trace: cannot write"), message)
    XCTAssert(message.contains("No space left on device"), message)
  }

  func testTheSettingsComeFromTheEnvironment() {
    let unset = TestTraceSettings(environment: [:])
    XCTAssertFalse(unset.keepsPassingTests)
    XCTAssert(unset.folder.hasSuffix("/chronoscope-test-traces"), unset.folder)
    let set = TestTraceSettings(environment: [
      "CHRONOSCOPE_TRACE_TESTS": "ALL", "CHRONOSCOPE_TRACE_TESTS_DIR": "/tmp/t",
    ])
    XCTAssertEqual(set, TestTraceSettings(folder: "/tmp/t", keepsPassingTests: true))
    XCTAssertFalse(
      TestTraceSettings(environment: ["CHRONOSCOPE_TRACE_TESTS": "failing"]).keepsPassingTests)
  }

  func testFileNamesAreSanitized() {
    XCTAssertEqual(TestTraceSettings.fileName("Suite.test(_:)"), "Suite.test-_")
    XCTAssertEqual(TestTraceSettings.fileName("../../etc/passwd"), "etc-passwd")
    XCTAssertEqual(TestTraceSettings.fileName("a\u{1B}[2Jb é"), "a-2Jb")
    XCTAssertEqual(TestTraceSettings.fileName("///"), "test")
    XCTAssertEqual(TestTraceSettings.fileName(String(repeating: "x", count: 500)).count, 120)
  }

  func testTimesAreWrittenAsShowReadsThem() {
    XCTAssertEqual(KeptTrace.timeText(0), "0s")
    XCTAssertEqual(KeptTrace.timeText(5_000_000_000), "5s")
    XCTAssertEqual(KeptTrace.timeText(300_000_000), "300ms")
    XCTAssertEqual(KeptTrace.timeText(40_000), "40us")
    XCTAssertEqual(KeptTrace.timeText(1_500), "1500ns")
    XCTAssertEqual(KeptTrace.quoted("/tmp/a b'c.trace"), #"'/tmp/a b'\''c.trace'"#)
  }
}
