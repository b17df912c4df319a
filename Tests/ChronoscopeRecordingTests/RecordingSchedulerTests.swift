import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
import XCTest

@testable import ChronoscopeRecording

/// What the recording decorator writes, checked by reading the trace back.
final class RecordingSchedulerTests: XCTestCase {
  private var path = ""

  override func setUp() {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("chronoscope-\(UUID().uuidString).trace").path
  }

  override func tearDown() {
    try? FileManager.default.removeItem(atPath: path)
  }

  private func readBack() throws -> Trace {
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics, [])
    return try XCTUnwrap(reading.trace)
  }

  func testVirtualTimeRecordingHasExactTimestampsParentsAndCancels() throws {
    let clock = VirtualClock()
    let recorder = try TraceRecorder(
      path: path, clock: .virtual { clock.now }, metadata: ["test": "virtual"])
    let factory = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
    let queue = factory.makeSerial(label: "work")
    queue.after(.seconds(2)) {
      queue.async {}  // child of the delayed action
    }
    let never = queue.after(.seconds(5)) {}
    never.cancel()
    let ticks = Locked(0)
    let ticker = Locked<SchedulerTask?>(nil)
    let task = queue.every(.seconds(1)) {
      if ticks.withLock({ count in
        count += 1
        return count
      }) == 3 {
        ticker.value?.cancel()
      }
    }
    ticker.withLock { $0 = task }
    try clock.run()
    recorder.close()

    let trace = try readBack()
    XCTAssertEqual(trace.header.clock, .virtual)
    XCTAssertEqual(trace.header.metadata, ["test": "virtual"])
    XCTAssertEqual(trace.schedulers.values.map(\.label).sorted(), ["main", "work"])
    let work = try XCTUnwrap(trace.schedulers.values.first { $0.label == "work" })
    XCTAssertEqual(work.family, "virtual")
    let lines = trace.events.map { event -> String in
      switch event.kind {
      case .schedule:
        "\(event.time) schedule a\(event.action) \(event.mode.name) due \(event.due) parent \(event.parent ?? 0)"
      case .cancel:
        "\(event.time) cancel a\(event.action) started \(event.started) by \(event.parent ?? 0)"
      case .begin, .end: "\(event.time) \(event.kind.name) a\(event.action) run \(event.run)"
      case .hop, .mark, .task, .work, .wait: "\(event.time) \(event.kind.name)"
      }
    }
    XCTAssertEqual(
      lines,
      [
        "0 schedule a1 after due 2000000000 parent 0",
        "0 schedule a2 after due 5000000000 parent 0",
        "0 cancel a2 started false by 0",
        "0 schedule a3 repeating due 1000000000 parent 0",
        "1000000000 begin a3 run 1",
        "1000000000 end a3 run 1",
        "2000000000 begin a1 run 1",
        "2000000000 schedule a4 async due 2000000000 parent 1",
        "2000000000 end a1 run 1",
        "2000000000 begin a3 run 2",
        "2000000000 end a3 run 2",
        "2000000000 begin a4 run 1",
        "2000000000 end a4 run 1",
        "3000000000 begin a3 run 3",
        "3000000000 cancel a3 started true by 3",
        "3000000000 end a3 run 3",
      ])
    XCTAssertEqual(trace.closing, Trace.Closing(written: 16, dropped: 0))
    let site = try XCTUnwrap(trace.callSites[trace.events[0].site])
    XCTAssertEqual(site.file, "ChronoscopeRecordingTests/RecordingSchedulerTests.swift")
    XCTAssertEqual(site.function, "testVirtualTimeRecordingHasExactTimestampsParentsAndCancels()")
  }

  /// Each schedule names its own call site, even where sites share a file and a line and only
  /// the function tells them apart, scheduled one after another (the thread's cache of sites).
  func testEachScheduleNamesItsOwnCallSite() throws {
    let recorder = try TraceRecorder(path: path)
    let queue = RecordingScheduler(
      wrapping: ImmediateSchedulerFactory().makeSerial(label: "q"), recorder: recorder)
    let functions: [StaticString] = ["first()", "second()"]
    var expected: [String] = []
    for line in [1, 17, 33] as [UInt] {
      for function in functions + functions {
        _ = queue.scheduleAsync(from: CallSite(fileID: "M/F.swift", line: line, function: function))
        {}
        expected.append("M/F.swift:\(line) in \(function)")
      }
    }
    recorder.close()
    let trace = try readBack()
    let named = try trace.events.filter { $0.kind == .schedule }.map { event in
      let site = try XCTUnwrap(trace.callSites[event.site])
      return "\(site.file):\(site.line) in \(site.function)"
    }
    XCTAssertEqual(named, expected)
    XCTAssertEqual(trace.callSites.count, 6, "each site defined once")
  }

  func testAnActionRunOnAnotherThreadIsRecordedAsAHop() throws {
    let recorder = try TraceRecorder(path: path)
    let queue = RecordingScheduler(
      wrapping: DispatchSchedulerFactory().makeSerial(label: "io"), recorder: recorder)
    let done = Locked(false)
    queue.async { done.withLock { $0 = true } }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { done.value }, .satisfied)
    _ = queue.sync { 1 }
    recorder.close()
    let trace = try readBack()
    XCTAssertEqual(trace.header.clock, .host)
    let hop = try XCTUnwrap(trace.events.first { $0.kind == .hop })
    XCTAssertEqual(hop.action, 1)
    XCTAssertEqual(hop.fromThread, 1, "scheduled from the main thread")
    XCTAssertNotEqual(hop.thread, 1)
    XCTAssertEqual(trace.threadNames[1], "main")
    let begin = try XCTUnwrap(trace.events.first { $0.kind == .begin && $0.action == 1 })
    XCTAssertEqual(begin.thread, hop.thread)
    XCTAssertEqual(trace.events.filter { $0.kind == .schedule }.map(\.mode), [.async, .sync])
  }

  func testMarksAreWrittenWithTheirFields() throws {
    let recorder = try TraceRecorder(path: path)
    recorder.mark("login tapped", ["user": "ada"])
    recorder.mark("plain")
    recorder.close()
    let trace = try readBack()
    XCTAssertEqual(trace.events.map(\.kind), [.mark, .mark])
    XCTAssertEqual(
      trace.marks,
      [MarkRecord(name: "login tapped", fields: ["user": "ada"]), MarkRecord(name: "plain")])
  }

  func testFlushWritesEverythingRecordedSoFar() throws {
    let recorder = try TraceRecorder(path: path)
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
    for _ in 0..<10 { queue.async {} }
    recorder.flush()
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(
      reading.diagnostics.map(\.message),
      [
        "the recording did not close: the process may have crashed or not called close(); the last moments may be missing"
      ], "a flushed trace is complete but for its end marker")
    XCTAssertEqual(reading.trace?.events.count, 30)
    XCTAssertNil(reading.trace?.closing, "not closed yet")
    recorder.close()
  }

  func testEventsBeyondTheBufferAreDroppedAndCounted() throws {
    // No background writer: nothing drains the 8-slot buffer while the loop fills it.
    let recorder = try TraceRecorder(
      path: path, clock: .host, metadata: [:], bufferCapacity: 8, onError: { _ in },
      backgroundWriter: false)
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
    for _ in 0..<100 { queue.async {} }
    recorder.close()
    let reading = TraceReader.read(path: path)
    XCTAssertFalse(reading.hasErrors)
    // Dropped schedules can leave begins without a schedule: warnings, never errors.
    XCTAssertTrue(reading.diagnostics.contains { $0.message.hasPrefix("the recorder dropped") })
    let trace = try XCTUnwrap(reading.trace)
    let closing = try XCTUnwrap(trace.closing)
    XCTAssertEqual(closing.written, 8, "the buffer's worth")
    XCTAssertEqual(closing.dropped, 292)
    XCTAssertEqual(closing.written + closing.dropped, 300, "nothing is lost silently")
    XCTAssertEqual(trace.droppedEvents, closing.dropped, "drops are written as they happen")
    XCTAssertEqual(Int64(trace.events.count), closing.written)
  }

  /// With a writer thread, a full recording waits for room rather than drop (issue 40): a
  /// thread that schedules far faster than an 8-slot ring is written is slowed to the writer's
  /// pace, and the file has every event.
  func testAFullRecordingWaitsForTheWriterInsteadOfDropping() throws {
    let recorder = try TraceRecorder(
      path: path, clock: .host, metadata: [:], bufferCapacity: 8, onError: { _ in },
      backgroundWriter: true)
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
    for _ in 0..<2_000 { queue.async {} }
    recorder.close()
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics, [])
    let closing = try XCTUnwrap(reading.trace?.closing)
    XCTAssertEqual(closing.dropped, 0)
    XCTAssertEqual(closing.written, 6_000)
  }

  /// A flight recorder never makes the app wait: its window drops, by design, and counts.
  func testAFlightRecorderDropsRatherThanWaits() throws {
    let flight = FlightRecorder(
      keeping: FlightRecorderWindow(keeping: .seconds(30), maxBytes: 1 << 20),
      bufferCapacity: 8)
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: flight.recorder)
    for _ in 0..<2_000 { queue.async {} }
    try flight.dump(to: path)
    flight.close()
    let trace = try XCTUnwrap(TraceReader.read(path: path).trace)
    XCTAssertGreaterThan(trace.droppedEvents, 0, "an 8-slot ring outpaced, and nobody waited")
  }

  func testAWriteFailureIsReportedOnceAndRecordingCarriesOn() throws {
    // A pipe whose reader goes away after the header: every later write fails (EPIPE).
    let fifo = path + ".fifo"
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    defer { unlink(fifo) }
    let reader = open(fifo, O_RDONLY | O_NONBLOCK)
    XCTAssertGreaterThanOrEqual(reader, 0)
    signal(SIGPIPE, SIG_IGN)
    let errors = Locked<[String]>([])
    let recorder = try TraceRecorder(
      path: fifo, onError: { message in errors.withLock { $0.append(message) } })
    close(reader)
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
    let ran = Locked(0)
    for _ in 0..<10 { queue.async { ran.withLock { $0 += 1 } } }
    recorder.flush()
    for _ in 0..<10 { queue.async { ran.withLock { $0 += 1 } } }
    recorder.close()
    XCTAssertEqual(ran.value, 20, "the app keeps running")
    XCTAssertEqual(errors.value.count, 1)
    XCTAssertTrue(errors.value.first?.contains("Broken pipe") ?? false, "\(errors.value)")
    XCTAssertEqual(recorder.counts.written, 0, "nothing after the header reached the reader")
    XCTAssertEqual(recorder.counts.dropped, 60)
  }

  func testCancellingWorkThatAlreadyRanInlineIsNotRecorded() throws {
    let recorder = try TraceRecorder(path: path)
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
    queue.after(.seconds(1)) {}.cancel()
    recorder.close()
    XCTAssertEqual(try readBack().events.map(\.kind), [.schedule, .begin, .end])
  }

  func testEachActionNestedInlineHasTheOneRunningItAsItsParent() throws {
    let recorder = try TraceRecorder(path: path)
    let queue = RecordingScheduler(
      wrapping: ImmediateScheduler(label: "inline"), recorder: recorder)
    // Deeper than the thread's stack of running actions starts out.
    @Sendable func nest(_ depth: Int) {
      guard depth > 0 else { return }
      queue.async { nest(depth - 1) }
    }
    nest(40)
    queue.async {}
    recorder.close()

    let schedules = try readBack().events.filter { $0.kind == .schedule }
    XCTAssertEqual(schedules.count, 41)
    XCTAssertNil(schedules[0].parent)
    for (parent, child) in zip(schedules.dropLast(2), schedules.dropFirst().dropLast()) {
      XCTAssertEqual(child.parent, parent.action)
    }
    XCTAssertNil(schedules[40].parent, "none runs once the nest has ended")
  }

  func testOpeningAnUnwritablePathFailsClearly() {
    XCTAssertThrowsError(try TraceRecorder(path: "/nonexistent-dir/x.trace")) { error in
      XCTAssertEqual(
        "\(error)", "cannot open /nonexistent-dir/x.trace for writing: No such file or directory")
    }
  }

  func testNestedRecordersEachWriteTheirOwnTrace() throws {
    let innerPath = path + ".inner"
    defer { try? FileManager.default.removeItem(atPath: innerPath) }
    let inner = try TraceRecorder(path: innerPath)
    let outer = try TraceRecorder(path: path)
    let clock = VirtualClock()
    let queue = RecordingScheduler(
      wrapping: RecordingScheduler(
        wrapping: VirtualSchedulerFactory(clock: clock).makeSerial(label: "q"), recorder: inner),
      recorder: outer)
    queue.async {}
    clock.advance(by: .zero)
    let task = queue.after(.seconds(1)) {}
    task.cancel()
    clock.advance(by: .seconds(1))
    inner.close()
    outer.close()
    for file in [path, innerPath] {
      let trace = try XCTUnwrap(TraceReader.read(path: file).trace)
      XCTAssertEqual(
        trace.events.map(\.kind), [.schedule, .begin, .end, .schedule, .cancel], file)
    }
  }
}

/// Closing is done once whichever thread closes first, and no caller returns before the trace
/// ends with its marker: the process's exit closes a recorder whose last reference may be going
/// on another thread at that moment.
final class RecorderClosingTests: XCTestCase {
  func testASecondCloseReturnsOnlyOnceTheFirstHasWrittenTheEndMarker() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("chronoscope-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = try TraceRecorder(path: path, bufferCapacity: 1 << 20)
    let queue = RecordingScheduler(
      wrapping: ImmediateSchedulerFactory().makeSerial(label: "q"), recorder: recorder)
    // Enough buffered events that the first close takes a while to write them.
    for _ in 0..<100_000 { queue.async {} }
    let first = DispatchGroup()
    DispatchQueue.global().async(group: first) { recorder.close() }
    let deadline = Date(timeIntervalSinceNow: 30)
    while !recorder.core.isStopping, Date() < deadline {}
    XCTAssertTrue(recorder.core.isStopping, "the first close began")
    recorder.close()
    // Read at once, before waiting for the first close.
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics, [], "closed when the second close returned")
    XCTAssertEqual(reading.trace?.closing, Trace.Closing(written: 300_000, dropped: 0))
    first.wait()
  }
}
