import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// `chronoscope record -- feed-refresher`: a program written without Chronoscope (it imports only
/// Foundation) recorded unchanged through the preload library, its trace checked against what
/// the program does (Sources/feed-refresher/Feed.swift), and its bug found by `check`.
final class RecordUnmodifiedProgramTests: XCTestCase {
  /// One recording, shared by the tests: the program takes half a second.
  private static let recording = Result { try FeedRecording() }

  private struct FeedRecording {
    let output: String
    let status: Int32
    let path: String
    let trace: Trace

    init() throws {
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("record-feed-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let template = folder.appendingPathComponent("feed-%p.trace").path
      let run = try CommandRun.chronoscope([
        "record", "-o", template, "--",
        try ProductsDirectory.executable("feed-refresher").path,
      ])
      output = run.output
      status = run.status
      let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      guard names.count == 1, let name = names.first else {
        throw TraceCountMismatch(names: names, output: run.output)
      }
      path = folder.appendingPathComponent(name).path
      let reading = TraceReader.read(path: path)
      guard let trace = reading.trace else {
        throw TraceCountMismatch(names: names, output: "\(reading)")
      }
      self.trace = trace
    }
  }

  private struct TraceCountMismatch: Error {
    var names: [String]
    var output: String
  }

  private var recording: FeedRecording { get throws { try Self.recording.get() } }

  /// The line in Feed.swift that holds `text`, from 1.
  private func line(of text: String) throws -> Int {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Sources/feed-refresher/Feed.swift")
    let lines = try String(contentsOf: source, encoding: .utf8).components(separatedBy: "\n")
    let index = try XCTUnwrap(lines.firstIndex { $0.contains(text) }, text)
    return index + 1
  }

  private func scheduler(_ label: String, in trace: Trace) throws -> SchedulerRecord {
    try XCTUnwrap(trace.schedulers.values.first { $0.label == label }, label)
  }

  func testTheProgramRunsAsItWouldAndSaysWhereItsTraceIs() throws {
    let recording = try recording
    XCTAssertEqual(recording.status, 0, recording.output)
    XCTAssertTrue(
      recording.output.contains("feed-refresher: fetched 4, 12 stories; 3 refreshes"),
      recording.output)
    XCTAssertTrue(recording.output.contains("trace written to \(recording.path)"), recording.output)
    let validation = try CommandRun.chronoscope(["validate", recording.path])
    XCTAssertEqual(validation.status, 0, validation.output)
  }

  func testItsSchedulersAreTheTracesSchedulersWithTheirKinds() throws {
    let trace = try recording.trace
    XCTAssertEqual(try scheduler("feed.database", in: trace).kind, "serial")
    XCTAssertEqual(try scheduler("feed.thumbnails", in: trace).kind, "concurrent")
    XCTAssertEqual(try scheduler("com.apple.main-thread", in: trace).kind, "main")
    XCTAssertEqual(try scheduler("com.apple.root.default-qos", in: trace).kind, "concurrent")
    XCTAssertTrue(trace.schedulers.values.allSatisfy { $0.family == "dispatch" })
    // The recorder's own thread and Foundation's housekeeping timer are no work of the program's.
    XCTAssertFalse(trace.schedulers.values.contains { $0.label.contains("chronoscope") })
    XCTAssertFalse(trace.schedulers.values.contains { $0.label == "com.apple.libdispatch-manager" })
  }

  func testEachKindOfWorkIsRecordedAsOftenAsTheProgramAskedForIt() throws {
    let trace = try recording.trace
    let schedules = trace.events.filter { $0.kind == .schedule }
    func on(_ label: String) throws -> [TraceEvent] {
      let id = try scheduler(label, in: trace).id
      return schedules.filter { $0.scheduler == id }
    }
    // The timer: one repeating action every 50 ms, three runs, cancelled from its third.
    let timers = schedules.filter { $0.mode == .repeating }
    XCTAssertEqual(timers.count, 1)
    let timer = try XCTUnwrap(timers.first)
    XCTAssertEqual(timer.delay, 50_000_000)
    XCTAssertEqual(trace.events.filter { $0.kind == .begin && $0.action == timer.action }.count, 3)
    let cancel = try XCTUnwrap(
      trace.events.first { $0.kind == .cancel && $0.action == timer.action })
    XCTAssertTrue(cancel.started)
    XCTAssertEqual(cancel.parent, timer.action, "cancelled from its own handler")
    // The slow save, then the main scheduler's sync read of the database.
    XCTAssertEqual(try on("feed.database").map(\.mode), [.async, .sync])
    // Two asyncs onto the main scheduler (the refresh and the leave) and the group's notify, and
    // the main actor's job of `MainActor.run`, a task's.
    let main = try on("com.apple.main-thread")
    let tasks = Set(trace.events.filter { $0.kind == .task }.map(\.action))
    XCTAssertEqual(
      main.filter { !tasks.contains($0.action) }.map(\.mode), [.async, .async, .async])
    XCTAssertEqual(main.filter { tasks.contains($0.action) }.count, 1)
    // `asyncAfter` by 30 ms.
    let after = try XCTUnwrap(
      schedules.first { $0.mode == .after && $0.delay > 20_000_000 && $0.delay <= 30_000_000 })
    XCTAssertEqual(trace.schedulers[after.scheduler]?.label, "com.apple.root.default-qos")
    // Four thumbnails on the OperationQueue (and its barrier).
    XCTAssertGreaterThanOrEqual(try on("feed.thumbnails").count, 4)
    // Everything scheduled began, and every run ended but the last: the notify's, which exits.
    let begins = trace.events.filter { $0.kind == .begin }
    XCTAssertEqual(Set(schedules.map(\.action)).subtracting(begins.map(\.action)), [])
    let ended = Set(trace.events.filter { $0.kind == .end }.map(\.action))
    XCTAssertEqual(begins.filter { !ended.contains($0.action) }.map(\.action), [main.last?.action])
  }

  func testSwiftTasksAreJobsWithTheirTaskIDs() throws {
    let trace = try recording.trace
    let tasks = trace.events.filter { $0.kind == .task }
    // The detached task and its four children, at least; the sleeps' wake-ups are theirs too.
    XCTAssertGreaterThanOrEqual(Set(tasks.map(\.task)).count, 5)
    // Each sleep of 5 to 7 ms is an `after` job of a task.
    let sleeps = trace.events.filter { event in
      event.kind == .schedule && event.mode == .after && event.delay < 10_000_000
        && tasks.contains { $0.action == event.action }
    }
    XCTAssertEqual(sleeps.count, 4)
  }

  func testWorkRunsWhereDispatchRanItWithHopsAndParents() throws {
    let trace = try recording.trace
    XCTAssertFalse(trace.events.filter { $0.kind == .hop }.isEmpty)
    // The save and the main scheduler's refresh were scheduled from inside the `asyncAfter` block.
    let schedules = trace.events.filter { $0.kind == .schedule }
    let database = try scheduler("feed.database", in: trace).id
    let save = try XCTUnwrap(schedules.first { $0.scheduler == database })
    let parent = try XCTUnwrap(save.parent)
    XCTAssertEqual(schedules.first { $0.action == parent }?.mode, .after)
    let main = try scheduler("com.apple.main-thread", in: trace).id
    XCTAssertTrue(schedules.contains { $0.scheduler == main && $0.parent == parent })
    // The sync read ran on the thread that asked, inside the refresh, as Dispatch runs a sync
    // (after `dispatchMain()`, a worker thread serves the main scheduler).
    let read = try XCTUnwrap(schedules.first { $0.scheduler == database && $0.mode == .sync })
    let readRun = try XCTUnwrap(
      trace.events.first { $0.kind == .begin && $0.action == read.action })
    XCTAssertEqual(readRun.thread, read.thread)
  }

  func testCallSitesAreTheProgramsSourceLines() throws {
    let trace = try recording.trace
    let sites = trace.callSites.values.filter { $0.file.hasSuffix("feed-refresher/Feed.swift") }
    let lines = Set(sites.map(\.line))
    for text in [
      "database.async {", "DispatchQueue.main.async {\n", "let count = database.sync",
      "timer.schedule(deadline:", "asyncAfter(deadline:", "thumbnails.addOperation",
      "group.addTask", "Task.detached {",
    ] {
      let line = try line(of: text.trimmingCharacters(in: .newlines))
      XCTAssertTrue(
        lines.contains(line), "no site at Feed.swift:\(line) (\(text)); sites: \(sites)")
    }
    let save = try XCTUnwrap(sites.first { $0.line == (try? line(of: "database.async {")) })
    XCTAssertEqual(save.function, "static FeedRefresher.save(_:)")
    XCTAssertNotNil(save.code, "the site keeps its module and offset")
  }

  func testCheckFindsTheMainThreadHang() throws {
    let check = try CommandRun.chronoscope(["check", try recording.path])
    XCTAssertEqual(check.status, 1, check.output)
    XCTAssertTrue(check.output.contains("error: main-thread-hang"), check.output)
    XCTAssertTrue(check.output.contains("com.apple.main-thread"), check.output)
  }

  func testAProcessThatIsNotASwiftProgramWritesNoTrace() throws {
    let folder = try temporaryFolder("record-inert")
    let template = folder.appendingPathComponent("t-%p.trace").path
    let run = try CommandRun.chronoscope(["record", "-o", template, "--", "sh", "-c", "true"])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    XCTAssertTrue(run.output.contains("no trace was written"), run.output)
  }

  func testAProgramThatForksGoesOnAndItsChildrenLeaveItsTraceAlone() throws {
    // Children that exit through `exit` run the recorder's exit handlers: without the fork
    // rules they hung on a lock a parent's thread held, or wrote into the parent's trace.
    let folder = try temporaryFolder("record-fork")
    let template = folder.appendingPathComponent("fork-%p.trace").path
    let run = try CommandRun.chronoscope([
      "record", "-o", template, "--",
      try ProductsDirectory.executable("chronoscope-examples").path, "fork-children",
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("forked 20 children; 0 hung"), run.output)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    XCTAssertEqual(names.count, 1, "\(names)")
    // A child writing into the parent's file showed as errors and as warnings of repeated ids
    // and time going backwards. The busy schedulers may fill the rings: drops are said, and fine.
    let reading = TraceReader.read(
      path: folder.appendingPathComponent(try XCTUnwrap(names.first)).path)
    let problems = reading.diagnostics.filter { !$0.message.contains("the recorder dropped") }
    XCTAssertEqual(problems.map(\.message), [])
    XCTAssertNotNil(reading.trace?.closing, "closed once, by the parent")
  }

  func testAProgramWhoseRecorderCannotStartRunsUnrecordedWithOneLineSaid() throws {
    // A folder as the path: `record` finds nothing wrong with where it is (a folder that is not
    // there it says itself, before the program runs: RecordProcessEdgesTests), the recorder
    // refuses it.
    let folder = try temporaryFolder("record-unstartable")
    let run = try CommandRun.chronoscope([
      "record", "-o", folder.path, "--",
      try ProductsDirectory.executable("feed-refresher").path,
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("feed-refresher: fetched 4"), run.output)
    XCTAssertEqual(run.output.components(separatedBy: "not recording").count - 1, 1, run.output)
  }

  func testBarriersAndWorkItemsKeepTheirMeaningAndAreRecorded() throws {
    // Dispatch reads a barrier's flag, a work item's quality of service and its cancellation
    // from the block itself: a block around it would run a barrier beside readers.
    let folder = try temporaryFolder("record-semantics")
    let run = try CommandRun.chronoscope([
      "record", "-o", folder.appendingPathComponent("s-%p.trace").path, "--",
      try ProductsDirectory.executable("chronoscope-examples").path, "dispatch-semantics",
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("barriers saw 0 readers; the item ran: true"), run.output)
    XCTAssertFalse(run.output.contains("the cancelled item ran"), run.output)
    let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
    let trace = try XCTUnwrap(
      TraceReader.read(path: folder.appendingPathComponent(name).path).trace)
    let scheduler = try scheduler("readers-writer", in: trace).id
    let schedules = trace.events.filter { $0.kind == .schedule && $0.scheduler == scheduler }
    // 200 asyncs, the two work items and the barrier sync.
    XCTAssertEqual(schedules.count, 203)
    let begun = Set(trace.events.filter { $0.kind == .begin }.map(\.action))
    let unrun = schedules.filter { !begun.contains($0.action) }
    XCTAssertEqual(unrun.count, 1, "the cancelled item")
    let cancel = try XCTUnwrap(trace.events.first { $0.kind == .cancel })
    XCTAssertEqual(cancel.action, unrun.first?.action)
    XCTAssertFalse(cancel.started)
  }

  func testACancelRacingATimersFiringNeverSaysARunStartedBeforeItsBegin() throws {
    // A firing counted its run under the timer's lock and stamped the begin after it; a cancel
    // in between was written first, saying a run had started (in OpenCombine's suite, once in
    // eight traces; here tens to hundreds in 10,000 timers before the fix).
    let folder = try temporaryFolder("record-timer-race")
    let run = try CommandRun.chronoscope([
      "record", "-o", folder.appendingPathComponent("r-%p.trace").path, "--",
      try ProductsDirectory.executable("chronoscope-examples").path, "timer-cancel-race",
      "--timers", "10000",
    ])
    XCTAssertEqual(run.status, 0, run.output)
    let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
    let path = folder.appendingPathComponent(name).path
    let reading = TraceReader.read(path: path)
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertEqual(reading.diagnostics.map(\.message), [], "validate is clean")
    var begun = Set<UInt32>()
    var cancels = 0
    var early: [UInt32] = []
    for event in trace.events {
      if event.kind == .begin { begun.insert(event.action) }
      guard event.kind == .cancel else { continue }
      cancels += 1
      if event.started, !begun.contains(event.action) { early.append(event.action) }
    }
    XCTAssertEqual(early, [], "cancels written before the begin of the run they say started")
    XCTAssertEqual(cancels, 10000, "each timer's cancel is recorded")
  }

  func testEachSwiftProcessOfTheTreeWritesItsOwnTrace() throws {
    // A shell (not recorded) runs the program twice: two processes, two traces, one timeline.
    let folder = try temporaryFolder("record-tree")
    let program = try ProductsDirectory.executable("feed-refresher").path
    let run = try CommandRun.chronoscope([
      "record", "-o", folder.appendingPathComponent("tree-%p.trace").path, "--",
      "sh", "-c", "'\(program)' && '\(program)'",
    ])
    XCTAssertEqual(run.status, 0, run.output)
    let traces = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      .map { folder.appendingPathComponent($0).path }
    XCTAssertEqual(traces.count, 2, "\(traces)")
    for trace in traces {
      XCTAssertTrue(run.output.contains("trace written to \(trace)"), run.output)
    }
    let check = try CommandRun.chronoscope(["check"] + traces)
    XCTAssertEqual(
      check.output.components(separatedBy: "error: main-thread-hang").count - 1, 2, check.output)
  }

  func testTheBundledRecordingIsTheProgramAsItIsNow() throws {
    // Recordings/feed-refresher.trace, made with `chronoscope record`, points at Feed.swift's
    // lines: an edit that moves them needs a new recording.
    let bundled = try XCTUnwrap(TraceReader.read(path: Recordings.path("feed-refresher")).trace)
    func lines(_ trace: Trace) -> Set<Int> {
      Set(
        trace.callSites.values.filter { $0.file.hasSuffix("feed-refresher/Feed.swift") }
          .map(\.line))
    }
    XCTAssertEqual(
      lines(bundled), lines(try recording.trace),
      """
      re-record with: swift build && swift run chronoscope record -o Recordings/feed-refresher.trace \
      -- .build/debug/feed-refresher
      """)
    XCTAssertEqual(bundled.header.metadata["recorded-by"], "chronoscope record")
  }

  func testAProgramThatCrashesEndsItsTraceWithTheCrash() throws {
    let folder = try temporaryFolder("record-crash")
    let run = try CommandRun.chronoscope(
      [
        "record", "-o", folder.appendingPathComponent("c-%p.trace").path, "--",
        try ProductsDirectory.executable("chronoscope-examples").path, "dispatch-semantics",
        "--trap",
      ],
      environment: ["SWIFT_BACKTRACE": "enable=no"])
    XCTAssertEqual(run.status, 128 + SIGILL, run.output)
    let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
    let reading = TraceReader.read(path: folder.appendingPathComponent(name).path)
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertEqual(trace.crash?.signal, "SIGILL")
    // The crash came before any flush: the sites and schedulers defined since were written by
    // the crash path too (they were lost: every schedule pointed at a site with no line), and
    // `record` symbolized them.
    XCTAssertEqual(
      reading.diagnostics.map(\.message).filter { !$0.hasPrefix("the process crashed") }, [])
    let used = Set(trace.events.filter { $0.kind == .schedule && $0.site != 0 }.map(\.site))
    XCTAssertFalse(used.isEmpty)
    XCTAssertEqual(used.subtracting(trace.callSites.keys), [], "every site used is defined")
    XCTAssertTrue(
      trace.callSites.values.contains { $0.file.hasSuffix("DispatchSemantics.swift") },
      "\(trace.callSites.values.map(\.file))")
    XCTAssertTrue(trace.schedulers.values.contains { $0.label == "readers-writer" })
    // The block that trapped began and never ended.
    let ended = Set(trace.events.filter { $0.kind == .end }.map(\.action))
    XCTAssertEqual(trace.events.filter { $0.kind == .begin && !ended.contains($0.action) }.count, 1)
  }

  func testAFlightRecordingIsWrittenWhenTheProgramExits() throws {
    let folder = try temporaryFolder("record-flight")
    let run = try CommandRun.chronoscope([
      "record", "--flight", "5s", "-o", folder.appendingPathComponent("f-%p.trace").path, "--",
      try ProductsDirectory.executable("feed-refresher").path,
    ])
    XCTAssertEqual(run.status, 0, run.output)
    let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
    let trace = try XCTUnwrap(
      TraceReader.read(path: folder.appendingPathComponent(name).path).trace)
    XCTAssertTrue(trace.schedulers.values.contains { $0.label == "feed.database" })
    XCTAssertTrue(trace.callSites.values.contains { $0.file.hasSuffix("Feed.swift") })
  }

  func testRotatedFilesAreReportedAndSymbolizedToo() throws {
    let folder = try temporaryFolder("record-rotate")
    let run = try CommandRun.chronoscope([
      "record", "--max-bytes", "8K", "--keep", "2", "-o",
      folder.appendingPathComponent("r-%p.trace").path, "--",
      try ProductsDirectory.executable("feed-refresher").path,
    ])
    XCTAssertEqual(run.status, 0, run.output)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    XCTAssertGreaterThan(names.count, 1, "the trace rotated: \(names)")
    var sites: [CallSiteRecord] = []
    for name in names {
      let path = folder.appendingPathComponent(name).path
      XCTAssertTrue(run.output.contains("trace written to \(path)"), run.output)
      sites += try XCTUnwrap(TraceReader.read(path: path).trace, name).callSites.values
    }
    // A file may hold no schedule (its lines all runs), but no site is left an address.
    XCTAssertTrue(sites.contains { $0.line > 0 }, "\(sites)")
    XCTAssertFalse(sites.contains { $0.function.hasPrefix("0x") }, "\(sites)")
  }

  func testAnAppThatRecordsItselfFromTheVariablesLeavesItsTraceToTheLibrary() throws {
    // `recordingIfRequested` reads the variables `record` sets: two recorders on one file wrote
    // a trace that did not parse. The app's stands down; its Dispatch work is recorded anyway.
    let folder = try temporaryFolder("record-aware")
    let run = try CommandRun.chronoscope([
      "record", "-o", folder.appendingPathComponent("a-%p.trace").path, "--",
      try ProductsDirectory.executable("chronoscope-examples").path, "run", "retry",
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("not recorded"), run.output)
    let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first)
    let reading = TraceReader.read(path: folder.appendingPathComponent(name).path)
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics)")
    XCTAssertGreaterThan(reading.trace?.events.filter { $0.kind == .schedule }.count ?? 0, 2)
  }

  func testTwoRunsWritingToOneFolderAtOnceKeepToTheirOwnTraces() throws {
    // Each run once took every matching file written since it started as its own and rewrote
    // it, under the other run's writer: a trace cut short.
    let folder = try temporaryFolder("record-together")
    let template = folder.appendingPathComponent("feed-%p.trace").path
    let program = try ProductsDirectory.executable("feed-refresher").path
    let first = Process()
    first.executableURL = try ProductsDirectory.executable("chronoscope")
    first.arguments = ["record", "-o", template, "--", program]
    let firstOutput = Pipe()
    first.standardOutput = firstOutput
    first.standardError = firstOutput
    try first.run()
    let second = try CommandRun.chronoscope(["record", "-o", template, "--", program])
    let firstText = String(
      decoding: firstOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    first.waitUntilExit()
    XCTAssertEqual(first.terminationStatus, 0, firstText)
    XCTAssertEqual(second.status, 0, second.output)
    let traces = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    XCTAssertEqual(traces.count, 2, "\(traces)")
    for run in [firstText, second.output] {
      XCTAssertEqual(run.components(separatedBy: "trace written to").count - 1, 1, run)
    }
    for name in traces {
      let reading = TraceReader.read(path: folder.appendingPathComponent(name).path)
      XCTAssertFalse(reading.hasErrors, "\(name): \(reading.diagnostics)")
      XCTAssertNotNil(reading.trace?.closing, "\(name) closed")
    }
  }
}
