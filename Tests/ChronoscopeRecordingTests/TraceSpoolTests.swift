import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeTraceFormat
import Foundation
import XCTest

@_spi(Benchmarks) @testable import ChronoscopeRecording

/// The spool `chronoscope record` writes while the program runs (issue 40, section 1): converted,
/// it is the trace the writer would have written directly, line for line; cut short or
/// corrupted, it converts what it can and says why, and never traps.
final class TraceSpoolTests: XCTestCase {
  private var folder = ""

  override func setUpWithError() throws {
    folder =
      FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)")
      .path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  }

  override func tearDown() {
    try? FileManager.default.removeItem(atPath: folder)
  }

  // MARK: - The same calls, two files

  /// Three threads' runs over four flushes, with events past each cut held back, definitions
  /// made between flushes, a mark, named work and a task name, a hop and a cancel.
  private func feed(_ writer: inout TraceWriter) {
    var definitions = RecorderCore.Definitions()
    definitions.schedulers = [
      SchedulerRecord(id: 1, label: "main", kind: "main", family: "dispatch", time: 0),
      SchedulerRecord(id: 2, label: "io ☃", kind: "serial", family: "dispatch", time: 0),
      SchedulerRecord(id: 3, label: "unused", kind: "concurrent", family: "dispatch", time: 0),
    ]
    definitions.sites = [
      CallSiteRecord(id: 1, file: "App/Main.swift", line: 12, function: "start()"),
      CallSiteRecord(
        id: 2, file: "libApp.so", line: 0, function: "0x1f00",
        code: CodeLocation(
          module: "/lib/libApp.so", offset: 0x1f00, buildID: "ab12", callerOffset: 0x40)),
    ]
    definitions.marks = [(0, MarkRecord(name: "ready", fields: ["b": "2", "a": "1"]))]
    definitions.works = [(0, WorkRecord(name: "request", fields: ["id": "7"]))]
    definitions.taskNames = [(1, "loader")]
    writer.nameThread(1, "main")
    writer.nameThread(2, "worker \"one\"")
    writer.define(definitions)
    let main: [TraceEvent] = [
      .schedule(
        time: 10, action: 300, scheduler: 1, mode: .async, delay: 0, due: 10, thread: 1, parent: 0,
        site: 1),
      .work(time: 10, action: 300, work: 0),
      .task(time: 10, action: 300, task: 1),
      .schedule(
        time: 20, action: 301, scheduler: 2, mode: .after, delay: 500, due: 520, thread: 1,
        parent: 0, site: 2),
      .mark(time: 30, thread: 1, mark: 0),
      .schedule(
        time: 95, action: 302, scheduler: 2, mode: .async, delay: 0, due: 95, thread: 1, parent: 0,
        site: 1),
    ]
    let worker: [TraceEvent] = [
      .hop(time: 15, action: 300, from: 1, to: 2),
      .begin(time: 15, action: 300, thread: 2, run: 1),
      .end(time: 40, action: 300, thread: 2, run: 1, duration: 25),
      .begin(time: 96, action: 302, thread: 2, run: 1),
    ]
    writer.write(runs: [main, worker], upTo: 50, dropped: 0)
    writer.nameThread(3, "")
    writer.write(
      runs: [
        [.cancel(time: 60, action: 301, thread: 3, by: 0, started: false)],
        [.end(time: 99, action: 302, thread: 2, run: 1, duration: 3)],
      ], upTo: 100, dropped: 4)
    writer.write(runs: [], upTo: 110, dropped: 0)
    writer.close(time: 120)
  }

  private func file(_ name: String) -> (descriptor: Int32, path: String) {
    let path = folder + "/" + name
    return (open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644), path)
  }

  func testASpoolConvertsToTheTraceTheWriterWritesDirectly() throws {
    let header = TraceHeader(clock: .host, start: "", process: "app", pid: 7, metadata: ["k": "v"])
    let direct = file("direct.trace")
    var lines = TraceWriter(descriptor: direct.descriptor, path: direct.path, onError: { _ in })
    XCTAssertTrue(lines.writeHeader(header))
    feed(&lines)
    let spool = file("spool.trace")
    var spooled = TraceWriter(
      descriptor: spool.descriptor, path: spool.path, spool: true, onError: { _ in })
    XCTAssertTrue(spooled.writeHeader(header))
    feed(&spooled)

    let spoolBytes = try Data(contentsOf: URL(fileURLWithPath: spool.path))
    XCTAssertTrue(spoolBytes.starts(with: TraceSpool.magic))
    let converted = spoolBytes.withUnsafeBytes {
      TraceSpoolConversion.convert($0, file: spool.path)
    }
    XCTAssertEqual(converted.diagnostics, [])
    let expected = try Data(contentsOf: URL(fileURLWithPath: direct.path))
    XCTAssertEqual(
      String(decoding: converted.lines, as: UTF8.self), String(decoding: expected, as: UTF8.self))
    // And the trace is clean: every line the reader knows, nothing it warns about.
    let reading = TraceReader.parse(converted.lines, file: "converted")
    XCTAssertEqual(reading.diagnostics.filter { $0.severity == .error }, [])
    XCTAssertEqual(reading.trace?.closing?.dropped, 4)

    // In place: the file becomes that trace, and a second conversion leaves it alone.
    XCTAssertEqual(try TraceSpoolConversion.convertInPlace(path: spool.path), [])
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: spool.path)), expected)
    XCTAssertNil(try TraceSpoolConversion.convertInPlace(path: spool.path))
  }

  /// A recorder asked to spool a regular file does; its events, converted, read as a recording
  /// made directly does (dense ids, time order, every definition before its use).
  func testARecorderOnLiveQueuesSpoolsAndConvertsClean() throws {
    let path = folder + "/live.trace"
    let recorder = try TraceRecorder(
      path: path, clock: .host, metadata: [:], bufferCapacity: 1 << 12, onError: { _ in },
      backgroundWriter: true, spool: true)
    let factory = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: recorder)
    let queues = (0..<4).map { factory.makeSerial(label: "worker.\($0)") }
    let finished = Locked(0)
    for index in 0..<400 {
      queues[index % 4].async {
        let timer = queues[index % 4].after(.seconds(60)) {}
        queues[(index + 1) % 4].async {
          timer.cancel()
          finished.withLock { $0 += 1 }
        }
      }
    }
    XCTAssertEqual(waitUntil(timeout: .seconds(20)) { finished.value == 400 }, .satisfied)
    recorder.close()
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    XCTAssertTrue(bytes.starts(with: TraceSpool.magic), "written as a spool")
    XCTAssertEqual(try TraceSpoolConversion.convertInPlace(path: path), [])
    let reading = TraceReader.read(path: path)
    XCTAssertEqual(reading.diagnostics, [])
    let trace = try XCTUnwrap(reading.trace)
    XCTAssertEqual(trace.closing?.dropped, 0)
    XCTAssertEqual(trace.events.count { $0.kind == .schedule }, 1_200)
    XCTAssertEqual(trace.events.count { $0.kind == .cancel }, 400)
    XCTAssertTrue(
      Set(trace.schedulers.values.map(\.label)).isSuperset(of: (0..<4).map { "worker.\($0)" }))
  }

  /// In place, a big spool is written as it is converted (a few MiB at a time), and comes out
  /// as the conversion in memory does; one with nothing to convert is left as it is.
  func testConvertingInPlaceStreamsAndLeavesAnUnreadableSpoolAlone() throws {
    let spool = file("big.trace")
    var writer = TraceWriter(
      descriptor: spool.descriptor, path: spool.path, spool: true, onError: { _ in })
    XCTAssertTrue(
      writer.writeHeader(
        TraceHeader(clock: .host, start: "", process: "app", pid: 7, metadata: [:])))
    var definitions = RecorderCore.Definitions()
    definitions.schedulers = [
      SchedulerRecord(id: 1, label: "q", kind: "serial", family: "dispatch", time: 0)
    ]
    writer.define(definitions)
    for batch in 0..<20 {
      let base = Int64(batch) * 10_000
      let events = (0..<5_000).flatMap { index -> [TraceEvent] in
        let id = UInt32(batch * 5_000 + index + 1)
        let time = base + Int64(index) * 2
        return [
          .schedule(
            time: time, action: id, scheduler: 1, mode: .async, delay: 0, due: time, thread: 1,
            parent: 0, site: 0),
          .begin(time: time + 1, action: id, thread: 1, run: 1),
        ]
      }
      writer.write(runs: [events], upTo: base + 9_999, dropped: 0)
    }
    writer.close(time: 200_000)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: spool.path))
    let inMemory = bytes.withUnsafeBytes { TraceSpoolConversion.convert($0, file: spool.path) }
    XCTAssertGreaterThan(inMemory.lines.count, 4 << 20, "more than one drain's worth")
    XCTAssertEqual(try TraceSpoolConversion.convertInPlace(path: spool.path), [])
    XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: spool.path))), inMemory.lines)

    let broken = folder + "/broken.trace"
    let brokenBytes = Data(TraceSpool.magic + Array("not a header\n".utf8))
    try brokenBytes.write(to: URL(fileURLWithPath: broken))
    XCTAssertThrowsError(try TraceSpoolConversion.convertInPlace(path: broken))
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: broken)), brokenBytes)
  }

  // MARK: - Untrusted spools

  /// A spool made by ``feed(_:)``.
  private func sampleSpool() throws -> [UInt8] {
    let spool = file("sample.trace")
    var writer = TraceWriter(
      descriptor: spool.descriptor, path: spool.path, spool: true, onError: { _ in })
    XCTAssertTrue(
      writer.writeHeader(
        TraceHeader(clock: .host, start: "", process: "app", pid: 7, metadata: [:])))
    feed(&writer)
    return Array(try Data(contentsOf: URL(fileURLWithPath: spool.path)))
  }

  private func convert(_ bytes: [UInt8]) -> (lines: [UInt8], diagnostics: [TraceDiagnostic]) {
    bytes.withUnsafeBytes { TraceSpoolConversion.convert($0, file: "hostile.trace") }
  }

  /// Cut at every byte: a trace or a clear error each time, and the events of a flush cut short
  /// are counted as dropped, never written without their causes.
  func testASpoolCutAtAnyByteConvertsWhatItHolds() throws {
    let spool = try sampleSpool()
    for length in 0..<spool.count {
      let converted = convert(Array(spool[..<length]))
      if converted.lines.isEmpty {
        XCTAssertFalse(converted.diagnostics.isEmpty, "cut at \(length): says why")
        continue
      }
      let reading = TraceReader.parse(converted.lines, file: "cut")
      XCTAssertEqual(
        reading.diagnostics.filter { $0.severity == .error }, [], "cut at \(length)")
      XCTAssertNil(reading.trace?.closing, "cut at \(length): no end marker")
      for event in reading.trace?.events ?? [] where event.kind == .begin {
        XCTAssertTrue(
          reading.trace?.events.contains { $0.kind == .schedule && $0.action == event.action }
            ?? false, "cut at \(length): a begin without its schedule")
      }
    }
  }

  func testACorruptRecordIsAnErrorAtItsByte() throws {
    var spool = try sampleSpool()
    // The first event's kind.
    let header = spool.firstIndex(of: UInt8(ascii: "\n"))! + 1
    let firstLineEnd = spool[header...].firstIndex(of: UInt8(ascii: "\n"))! + 1
    let event = spool[firstLineEnd...].firstIndex(of: UInt8(ascii: "E"))!
    spool[event + 1] = 200
    let converted = convert(spool)
    XCTAssertEqual(converted.diagnostics.first?.severity, .error)
    XCTAssertTrue(
      converted.diagnostics.first?.message.contains(
        "at byte \(event): an event of unknown kind 200")
        ?? false, "\(converted.diagnostics)")
  }

  /// Flipped bytes, lengths that claim gigabytes, ids at the top of their range: never a trap,
  /// never a huge allocation.
  func testHostileSpoolsNeverTrap() throws {
    let spool = try sampleSpool()
    var random = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      var bytes = spool
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        let index = Int.random(in: TraceSpool.magic.count..<bytes.count, using: &random)
        bytes[index] = UInt8.random(in: 0...255, using: &random)
      }
      let converted = convert(bytes)
      _ = TraceReader.parse(converted.lines, file: "flipped")
    }
    // A record claiming 4 GiB, and an event whose ids are the largest there are.
    var huge = Array(spool[..<(spool.count - 13)])
    huge += [UInt8(ascii: "D"), 0xFF, 0xFF, 0xFF, 0xFF]
    XCTAssertTrue(convert(huge).diagnostics.contains { $0.message.contains("cut short") })
    var far = TraceSpool.magic
    var encoder = TraceEncoder()
    encoder.header(TraceHeader(clock: .host, start: "", process: "app", pid: 7, metadata: [:]))
    far += encoder.bytes
    TraceSpool.appendRunStart(to: &far)
    for id in [UInt32.max, UInt32.max - 1, 3_000_000_000] {
      TraceSpool.appendEvent(
        .schedule(
          time: Int64.max, action: id, scheduler: .max, mode: .async, delay: .min, due: .min,
          thread: .max, parent: .max, site: .max), to: &far)
    }
    TraceSpool.appendBatchEnd(cut: .max, dropped: 0, to: &far)
    TraceSpool.appendClose(time: .max, to: &far)
    let converted = convert(far)
    XCTAssertEqual(converted.diagnostics, [])
    XCTAssertNotNil(TraceReader.parse(converted.lines, file: "far").trace)
  }
}
