@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeRecording
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
import XCTest

/// A recording to a file with a size cap: the file rotates, each file validates on its own and
/// replays truthfully, and together they leave no gap.
final class TraceRotationTests: XCTestCase {
  private func folder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("rotation-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    return folder
  }

  /// Records a 10 ms timer and some one-shot work for `seconds` of virtual time, flushing each
  /// 100 ms, with a cap of 16 KiB.
  private func record(to path: String, keep: Int, seconds: Int) throws {
    let clock = VirtualClock()
    let recorder = try TraceRecorder(
      path: path, clock: .virtual { clock.now },
      rotation: TraceRotation(maxBytes: 16 << 10, keep: keep))
    let factory = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
    let poll = factory.makeSerial(label: "poll")
    let worker = factory.makeSerial(label: "worker")
    let timer = poll.every(.milliseconds(10)) { worker.async {} }
    let far = worker.after(.seconds(3_600)) {}
    for _ in 0..<(seconds * 10) {
      clock.advance(by: .milliseconds(100))
      recorder.flush()
    }
    timer.cancel()
    far.cancel()
    recorder.close()
  }

  private func read(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws
    -> Trace
  {
    let reading = TraceReader.read(path: url.path)
    XCTAssertEqual(
      reading.diagnostics.map(\.description), [], url.lastPathComponent, file: file, line: line)
    return try XCTUnwrap(reading.trace, file: file, line: line)
  }

  func testFilesRotateUnderTheCapAndEachIsAWholeTrace() throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("app.trace")
    try record(to: path.path, keep: 2, seconds: 30)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
      ["app.1.trace", "app.2.trace", "app.trace"], "the current file and two older ones")
    let files = ["app.2.trace", "app.1.trace", "app.trace"].map {
      folder.appendingPathComponent($0)
    }
    var traces: [Trace] = []
    for url in files {
      let size = try XCTUnwrap(
        FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
      XCTAssertLessThan(size, 16 << 10 + 8 << 10, "\(url.lastPathComponent): the cap and one flush")
      traces.append(try read(url))
    }
    // One after the other, without a gap: each file's window starts where the last one's ended.
    let windows = try traces.map { try XCTUnwrap($0.header.sliceWindow) }
    XCTAssertEqual(windows[1].lowerBound, windows[0].upperBound)
    XCTAssertEqual(windows[2].lowerBound, windows[1].upperBound)
    XCTAssertEqual(traces[2].closedAt, 30_000_000_000, "the current file ends as the app did")

    // The timer's runs carry on from file to file, one after another.
    let timer = try XCTUnwrap(traces[0].events.first { $0.kind == .schedule }?.action)
    let runs = traces.map { trace in
      // After the window's start: at it, a file's context repeats the last run of the one before.
      trace.events.filter {
        $0.kind == .begin && $0.action == timer && $0.time > trace.header.sliceWindow!.lowerBound
      }.map(\.run)
    }
    let all = runs.flatMap { $0 }
    XCTAssertEqual(all.last, 3_000)
    XCTAssertEqual(all, Array((all.first ?? 0)...3_000), "no run lost or repeated between files")
    XCTAssertFalse(runs[0].isEmpty || runs[1].isEmpty)

    // A file rotated out does not say the app stopped: no leaked timer, no lost work there.
    for trace in traces.dropLast() {
      let findings = FindingsAnalysis.findings(in: ReplayEngine(trace: trace))
      XCTAssertEqual(findings.filter { $0.severity > .info }.map(\.message), [])
    }
  }

  func testKeepingNoOlderFileLeavesOnlyTheCurrentOne() throws {
    let folder = try folder()
    try record(to: folder.appendingPathComponent("solo").path, keep: 0, seconds: 10)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["solo"])
    let trace = try read(folder.appendingPathComponent("solo"))
    XCTAssertGreaterThan(trace.header.sliceWindow?.lowerBound ?? 0, 0, "a later file")
  }

  func testTheEnvironmentCanAskForRotation() throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("env.trace").path
    let factory = RecordingSchedulerFactory.recordingIfRequested(
      wrapping: .immediate,
      environment: [
        "CHRONOSCOPE_TRACE": path, "CHRONOSCOPE_TRACE_MAX_BYTES": "8K",
        "CHRONOSCOPE_TRACE_KEEP": "1",
      ])
    let recording = try XCTUnwrap(factory as? RecordingSchedulerFactory)
    let queue = recording.makeSerial(label: "env")
    for _ in 0..<20 {
      for _ in 0..<50 { queue.async {} }
      recording.recorder.flush()
    }
    recording.recorder.close()
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
      ["env.1.trace", "env.trace"])
    for name in ["env.1.trace", "env.trace"] {
      _ = try read(folder.appendingPathComponent(name))
    }
  }
}
