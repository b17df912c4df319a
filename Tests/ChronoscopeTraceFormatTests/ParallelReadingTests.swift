import ChronoscopeCore
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// Reading on several cores gives what reading on one gives — the same trace, the same
/// diagnostics in the same order, the same counts — for the bundled recordings and for damaged
/// versions of them: every kind of bad line, lines out of time order, events after the end
/// marker, marks, blank and CRLF lines, a cut-off last line, stretches cut anywhere.
final class ParallelReadingTests: XCTestCase {
  private static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  /// Reads `bytes` on 1, 2, 3 and 8 threads, and from a file (mapped, its pages handed back a
  /// page at a time as each pass leaves them) on 1, 2 and 3, and checks every reading equals
  /// the first.
  private func assertSameReading(
    _ bytes: [UInt8], _ name: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    var readings: [(String, TraceReading)] = []
    bytes.withUnsafeBufferPointer { buffer in
      for workers in [1, 2, 3, 8] {
        readings.append(
          ("\(name) on \(workers) threads", TraceReader.parse(buffer, file: name, workers: workers))
        )
      }
    }
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("parallel-reading-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    if !bytes.isEmpty {
      XCTAssertTrue(
        FileManager.default.createFile(atPath: path, contents: Data(bytes)),
        "\(name): writing \(path) to read it mapped", file: file, line: line)
      for workers in [1, 2, 3] {
        var reading = TraceReader.read(path: path, workers: workers, pageChunk: 1)
        // The same name in diagnostics, for comparing: the file's path is what differs.
        reading.diagnostics = reading.diagnostics.map {
          TraceDiagnostic(
            severity: $0.severity, file: name, line: $0.line, column: $0.column,
            message: $0.message)
        }
        readings.append(("\(name) mapped, on \(workers) threads", reading))
      }
      // Streamed: the events the stream took and those left in the trace are the trace's.
      for workers in [2, 3] {
        let stream = CollectingStream()
        var reading = TraceReader.read(
          path: path, workers: workers, pageChunk: 1, streamingTo: stream)
        reading.diagnostics = reading.diagnostics.map {
          TraceDiagnostic(
            severity: $0.severity, file: name, line: $0.line, column: $0.column,
            message: $0.message)
        }
        if reading.trace == nil {
          XCTAssertEqual(stream.events, [], "\(name): events streamed, but no trace")
        }
        if !stream.events.isEmpty {
          XCTAssertEqual(reading.trace?.events, [], "\(name): streamed events kept")
          XCTAssertGreaterThanOrEqual(stream.reserved ?? -1, stream.events.count, name)
        }
        reading.trace?.events.insert(contentsOf: stream.events, at: 0)
        readings.append(("\(name) streamed, on \(workers) threads", reading))
      }
    }
    let alone = readings[0].1
    for (what, spread) in readings.dropFirst() {
      func same<Value: Equatable>(_ part: (TraceReading) -> Value) {
        XCTAssertEqual(part(spread), part(alone), what, file: file, line: line)
      }
      same(\.diagnostics)
      same(\.errorCount)
      same(\.warningCount)
      same(\.notATrace)
      same(\.trace?.header)
      same(\.trace?.events)
      same(\.trace?.schedulers)
      same(\.trace?.callSites)
      same(\.trace?.threadNames)
      same(\.trace?.marks)
      same(\.trace?.closing)
      same(\.trace?.crash)
      same(\.trace?.closedAt)
      same(\.trace?.droppedEvents)
    }
  }

  private func recordings() throws -> [(String, [UInt8])] {
    try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
      .filter { $0.hasSuffix(".trace") }.sorted().map { name in
        (name, Array(try Data(contentsOf: Self.directory.appendingPathComponent(name))))
      }
  }

  func testEveryRecordingReadsTheSameOnSeveralThreads() throws {
    for (name, bytes) in try recordings() { assertSameReading(bytes, name) }
  }

  func testDamagedRecordingsReadTheSameOnSeveralThreads() throws {
    var random = SplitMix64(seed: 14)
    let damages: [(String, (inout [Substring], inout SplitMix64) -> Void)] = [
      (
        "a byte flipped in some lines",
        { lines, random in
          for _ in 0..<8 {
            let index = Int(random.next() % UInt64(lines.count))
            var bytes = Array(lines[index].utf8)
            guard !bytes.isEmpty else { continue }
            bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(
              truncatingIfNeeded: random.next())
            lines[index] = Substring(String(decoding: bytes, as: UTF8.self))
          }
        }
      ),
      (
        "lines swapped out of time order",
        { lines, random in
          for _ in 0..<6 {
            let index = 1 + Int(random.next() % UInt64(max(lines.count - 2, 1)))
            if index + 1 < lines.count { lines.swapAt(index, index + 1) }
          }
        }
      ),
      (
        "the end marker in the middle",
        { lines, _ in
          if let close = lines.lastIndex(where: { $0.contains(#""e":"close""#) }) {
            let line = lines.remove(at: close)
            lines.insert(line, at: lines.count / 2)
          }
        }
      ),
      (
        "blank, CRLF, a mark, an unknown event and a huge number",
        { lines, _ in
          lines.insert("", at: lines.count / 3)
          lines.insert("   ", at: lines.count / 2)
          lines[lines.count / 4] += "\r"
          lines.insert(#"{"t":1,"e":"mark","th":1,"name":"here","fields":{"k":"v"}}"#, at: 2)
          lines.insert(#"{"t":1,"e":"gc-pause","th":1}"#, at: lines.count / 2)
          lines.insert(
            #"{"t":99999999999999999999,"e":"begin","a":1,"th":1,"run":1}"#, at: lines.count / 2)
        }
      ),
      (
        "a second header and a line before any",
        { lines, _ in
          lines.insert(lines[0], at: lines.count / 2)
          lines.insert(#"{"t":0,"e":"begin","a":1,"th":1,"run":1}"#, at: 0)
        }
      ),
      (
        "a header whose process is a number",
        { lines, _ in
          lines[0] = Substring(
            lines[0].replacingOccurrences(of: #""process":""#, with: #""process":3,"x":""#))
        }
      ),
      (
        "the last line cut off",
        { lines, _ in
          lines[lines.count - 1] = lines[lines.count - 1].dropLast(3)
        }
      ),
    ]
    for (name, bytes) in try recordings() {
      let text = String(decoding: bytes, as: UTF8.self)
      for (damage, apply) in damages {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        apply(&lines, &random)
        let cutOff = damage == "the last line cut off"
        let damaged = lines.joined(separator: "\n") + (cutOff ? "" : "\n")
        assertSameReading(Array(damaged.utf8), "\(name), \(damage)")
      }
    }
  }

  /// A stream that refuses events stops the reading there, on any number of threads, without
  /// waiting for the rest of the file and without being offered more.
  func testAStreamThatRefusesStopsTheReading() throws {
    var text =
      #"{"format":"chronoscope-trace","version":1,"clock":"virtual","process":"p","pid":1}"#
    text += "\n" + #"{"t":0,"e":"scheduler","q":1,"label":"main","kind":"main","family":"virtual"}"#
    for action in 1...20_000 {
      text +=
        "\n"
        + #"{"t":\#(action),"e":"schedule","a":\#(action),"q":1,"mode":"async","due":\#(action),"th":1}"#
    }
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("refusing-stream-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data((text + "\n").utf8)))
    for workers in [2, 3, 8] {
      for refusing in [1, 3] {
        let stream = CollectingStream(refusingBatch: refusing)
        _ = TraceReader.read(path: path, workers: workers, pageChunk: 1, streamingTo: stream)
        XCTAssertEqual(stream.batches, refusing, "\(workers) threads, refusing batch \(refusing)")
        XCTAssertLessThan(stream.events.count, 20_000)
      }
    }
  }

  func testInputsThatAreNotTracesReadTheSame() {
    for text in ["", "\n\n", "hello\nworld\n", #"{"format":"other"}"# + "\n{}\n", "{\n"] {
      assertSameReading(Array(text.utf8), "not a trace: \(text.debugDescription)")
    }
  }
}

/// Keeps what a reader streams; refuses the `refusingBatch`th batch, if set.
private final class CollectingStream: TraceEventStream {
  private(set) var events: [TraceEvent] = []
  private(set) var reserved: Int?
  private(set) var batches = 0
  private let refusingBatch: Int?

  init(refusingBatch: Int? = nil) {
    self.refusingBatch = refusingBatch
  }

  func reserve(events: Int) {
    XCTAssertNil(reserved, "reserved twice")
    XCTAssertEqual(batches, 0, "reserved after events")
    reserved = events
  }

  func take(_ events: UnsafeBufferPointer<TraceEvent>) -> Bool {
    batches += 1
    XCTAssertFalse(events.isEmpty, "an empty batch")
    if batches == refusingBatch { return false }
    XCTAssertTrue(refusingBatch.map { batches < $0 } ?? true, "offered events after refusing")
    self.events.append(contentsOf: events)
    return true
  }
}
