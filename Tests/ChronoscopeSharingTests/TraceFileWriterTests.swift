@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

final class TraceFileWriterTests: XCTestCase {
  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("writer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try FileManager.default.removeItem(at: directory)
  }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  func testARecordingReadAndWrittenBackIsTheSameFileByteForByte() throws {
    for recording in try TraceFixtures.recordings() {
      let original = try TraceFixtures.bytes(recording)
      let (trace, _) = try TraceFixtures.read(original, recording)
      let written = TraceEncoder.encode(trace)
      XCTAssertEqual(
        String(decoding: written, as: UTF8.self), String(decoding: original, as: UTF8.self),
        recording)
    }
  }

  func testDefinitionsGoJustBeforeTheirFirstUseAndUnusedOnesBeforeTheEnd() throws {
    var trace = Trace(header: TraceHeader(clock: .virtual, start: "", process: "p", pid: 0))
    trace.schedulers = [
      1: SchedulerRecord(id: 1, label: "used", kind: "serial", family: "virtual", time: 0),
      2: SchedulerRecord(id: 2, label: "unused", kind: "serial", family: "virtual", time: 0),
    ]
    trace.callSites = [3: CallSiteRecord(id: 3, file: "F.swift", line: 9, function: "f()")]
    trace.threadNames = [1: "main", 4: "worker", 9: "idle"]
    trace.events = [
      .schedule(
        time: 10, action: 1, scheduler: 1, mode: .async, delay: 0, due: 10, thread: 1, parent: 0,
        site: 3),
      .hop(time: 20, action: 1, from: 1, to: 4),
      .begin(time: 20, action: 1, thread: 4, run: 1),
      .end(time: 25, action: 1, thread: 4, run: 1, duration: 5),
    ]
    trace.closing = Trace.Closing(written: 4, dropped: 0)
    trace.closedAt = 30
    let lines = String(decoding: TraceEncoder.encode(trace), as: UTF8.self)
      .split(separator: "\n").dropFirst().map(String.init)
    XCTAssertEqual(
      lines,
      [
        #"{"t":10,"e":"thread","th":1,"name":"main"}"#,
        #"{"t":10,"e":"scheduler","q":1,"label":"used","kind":"serial","family":"virtual"}"#,
        #"{"t":10,"e":"site","site":3,"file":"F.swift","line":9,"func":"f()"}"#,
        #"{"t":10,"e":"schedule","a":1,"q":1,"mode":"async","due":10,"th":1,"site":3}"#,
        #"{"t":20,"e":"thread","th":4,"name":"worker"}"#,
        #"{"t":20,"e":"hop","a":1,"from":1,"to":4}"#,
        #"{"t":20,"e":"begin","a":1,"th":4,"run":1}"#,
        #"{"t":25,"e":"end","a":1,"th":4,"run":1,"dur":5}"#,
        #"{"t":30,"e":"thread","th":9,"name":"idle"}"#,
        #"{"t":30,"e":"scheduler","q":2,"label":"unused","kind":"serial","family":"virtual"}"#,
        #"{"t":30,"e":"close","events":4,"dropped":0}"#,
      ])
  }

  func testACrashLineWithAnySignalIsWrittenEscapedAfterTheDroppedCount() throws {
    var trace = Trace(header: TraceHeader(clock: .host, start: "", process: "p", pid: 1))
    trace.events = [.mark(time: 5, thread: 1, mark: 0)]
    trace.marks = [MarkRecord(name: "m")]
    trace.droppedEvents = 3
    trace.crash = Trace.Crash(signal: "SIG\"ODD\u{1}", thread: 1, time: 7)
    let bytes = TraceEncoder.encode(trace)
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").suffix(2)
    XCTAssertEqual(
      Array(lines),
      [
        #"{"t":5,"e":"dropped","count":3}"#,
        #"{"t":7,"e":"crash","signal":"SIG\"ODD\u0001","th":1}"#,
      ])
    let reread = try XCTUnwrap(TraceReader.parse(bytes, file: "t").trace)
    XCTAssertEqual(reread.crash, trace.crash)
    XCTAssertEqual(reread.droppedEvents, 3)
  }

  // MARK: - Saving

  func testSavingReplacesTheOutputWholeAndLeavesNoTemporaryFile() throws {
    let output = path("out.trace")
    try Data("old".utf8).write(to: URL(fileURLWithPath: output))
    try TraceFileWriter.save(Array("new contents\n".utf8), to: output, input: path("in.trace"))
    XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "new contents\n")
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: directory.path), ["out.trace"])
  }

  func testSavingNeverWritesOverTheInputByAnyName() throws {
    let input = path("in.trace")
    try Data("original\n".utf8).write(to: URL(fileURLWithPath: input))
    try FileManager.default.createSymbolicLink(
      atPath: path("link.trace"), withDestinationPath: input)
    try FileManager.default.linkItem(atPath: input, toPath: path("hard.trace"))
    for output in [
      input, path("link.trace"), path("hard.trace"), directory.path + "/./sub/../in.trace",
    ] {
      XCTAssertThrowsError(try TraceFileWriter.save([1, 2, 3], to: output, input: input), output) {
        error in
        XCTAssertEqual((error as? TraceFileWriter.SaveError)?.isOverInput, true, output)
      }
    }
    XCTAssertEqual(try String(contentsOfFile: input, encoding: .utf8), "original\n")
  }

  func testAnOutputThatCannotBeWrittenSaysWhyAndLeavesNothing() throws {
    XCTAssertThrowsError(
      try TraceFileWriter.save([1], to: path("missing/out.trace"), input: path("in.trace"))
    ) { error in
      XCTAssertTrue("\(error)".contains("missing/out.trace"), "\(error)")
      XCTAssertEqual((error as? TraceFileWriter.SaveError)?.isOverInput, false)
    }
    XCTAssertThrowsError(try TraceFileWriter.save([1], to: directory.path, input: path("in.trace")))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
  }

  func testAFileWithALineReadersWouldNotReadIsNotWrittenAndTheErrorSaysItsLength() throws {
    let limit = TraceReader.maximumLineLength
    let fits = Array(repeating: UInt8(ascii: "x"), count: limit) + [UInt8(ascii: "\n")]
    try TraceFileWriter.save(fits + fits, to: path("fits.trace"), input: path("in.trace"))
    let long = Array(repeating: UInt8(ascii: "x"), count: limit + 1)
    for (bytes, line) in [(long, 1), (fits + long + [UInt8(ascii: "\n")] + fits, 2)] {
      XCTAssertThrowsError(
        try TraceFileWriter.save(bytes, to: path("out.trace"), input: path("in.trace"))
      ) { error in
        XCTAssertEqual(
          "\(error)",
          "cannot write \(path("out.trace")): its line \(line) would be \(limit + 1) bytes long; readers read lines of at most \(limit) bytes"
        )
      }
    }
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: directory.path), ["fits.trace"])
  }
}
