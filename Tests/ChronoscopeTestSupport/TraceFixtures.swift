import ChronoscopeTraceFormat
import Foundation
import XCTest

/// Traces for the tests of the stages that rewrite traces (sharing, redaction): the bundled
/// recordings, and hostile ones made from lines.
public enum TraceFixtures {
  /// Every bundled recording's path.
  public static func recordings() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: Recordings.folder.path)
      .filter { $0.hasSuffix(".trace") }.sorted()
      .map { Recordings.folder.appendingPathComponent($0).path }
  }

  /// The bytes of `path`.
  public static func bytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// Reads `bytes`, failing the test on errors.
  public static func read(
    _ bytes: [UInt8], _ name: String = "trace", file: StaticString = #filePath, line: UInt = #line
  ) throws -> (trace: Trace, reading: TraceReading) {
    let reading = TraceReader.parse(bytes, file: name)
    XCTAssertFalse(
      reading.hasErrors, "\(name): \(reading.diagnostics.map(\.description))", file: file,
      line: line)
    return (try XCTUnwrap(reading.trace, name, file: file, line: line), reading)
  }

  /// Reads the file at `path`, failing the test on errors.
  public static func read(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws
    -> (trace: Trace, reading: TraceReading)
  {
    try read(bytes(path), URL(fileURLWithPath: path).lastPathComponent, file: file, line: line)
  }

  /// The diagnostics' messages, without their places: a rewritten file moves lines around.
  public static func messages(_ reading: TraceReading) -> [String] {
    reading.diagnostics.map { "\($0.severity.rawValue): \($0.message)" }.sorted()
  }

  /// Asserts that every message of `new` is one `old` has too (as many times at most).
  public static func assertNoNewDiagnostics(
    _ new: TraceReading, comparedTo old: TraceReading, _ name: String,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    var left = messages(old)
    for message in messages(new) {
      if let index = left.firstIndex(of: message) {
        left.remove(at: index)
      } else {
        XCTFail("\(name): new diagnostic: \(message)", file: file, line: line)
      }
    }
  }

  /// A trace file made of `lines` (JSON objects, one a line).
  public static func trace(_ lines: [String]) -> [UInt8] {
    Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// A header line with `fields` added.
  public static let header =
    #"{"format":"chronoscope-trace","version":1,"clock":"virtual","start":"","process":"p","pid":0,"metadata":{}}"#
}
