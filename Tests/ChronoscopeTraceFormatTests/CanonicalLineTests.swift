import ChronoscopeCore
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The reader reads the lines recorders write through a fast path and every other line through
/// the general scanner. Both must agree on what a line means and on what is wrong with it.
final class CanonicalLineTests: XCTestCase {
  private static let header =
    #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"app","pid":1}"#
  private static let scheduler =
    #"{"t":0,"e":"scheduler","q":1,"label":"db","kind":"serial","family":"dispatch"}"#

  /// The same line as the general scanner reads it: a space after every `,` and `:` outside
  /// strings, which the fast path never accepts.
  private static func spaced(_ line: String) -> String {
    var out = ""
    var inString = false
    for character in line {
      out.append(character)
      if character == "\"" { inString.toggle() }
      if !inString, character == "," || character == ":" { out.append(" ") }
    }
    return out
  }

  private static func read(_ lines: [String]) -> TraceReading {
    let text = ([header, scheduler] + lines).joined(separator: "\n") + "\n"
    return TraceReader.parse(Array(text.utf8), file: "t.trace")
  }

  /// Reads `lines` as written and spaced out, and checks both readings agree.
  private func assertBothPathsAgree(
    _ lines: [String], file: StaticString = #filePath, line: UInt = #line
  ) {
    let canonical = Self.read(lines)
    let general = Self.read(lines.map(Self.spaced))
    XCTAssertEqual(
      canonical.trace?.events, general.trace?.events, "events", file: file, line: line)
    XCTAssertEqual(
      canonical.diagnostics.map(\.message), general.diagnostics.map(\.message), "messages",
      file: file, line: line)
    XCTAssertEqual(
      canonical.diagnostics.map(\.line), general.diagnostics.map(\.line), "lines", file: file,
      line: line)
  }

  func testEveryBundledRecordingReadsTheSameThroughBothPaths() throws {
    let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Recordings")
    for name in try FileManager.default.contentsOfDirectory(atPath: recordings.path).sorted()
    where name.hasSuffix(".trace") {
      let text = try String(contentsOf: recordings.appendingPathComponent(name), encoding: .utf8)
      let lines = text.split(separator: "\n").map(String.init)
      let canonical = TraceReader.parse(Array(text.utf8), file: name)
      let spaced = ([lines[0]] + lines.dropFirst().map(Self.spaced)).joined(separator: "\n") + "\n"
      let general = TraceReader.parse(Array(spaced.utf8), file: name)
      XCTAssertNotNil(canonical.trace, name)
      XCTAssertEqual(canonical.trace?.events, general.trace?.events, name)
      XCTAssertEqual(canonical.diagnostics.map(\.message), general.diagnostics.map(\.message))
    }
  }

  func testEncodedEventsOfEveryShapeReadTheSameThroughBothPaths() {
    var lines: [String] = []
    var encoder = TraceEncoder()
    let events: [TraceEvent] = [
      .schedule(
        time: 5, action: 1, scheduler: 1, mode: .async, delay: 0, due: 5, thread: 1, parent: 0,
        site: 0),
      .schedule(
        time: 6, action: 2, scheduler: 1, mode: .repeating, delay: 10, due: 16, thread: 2,
        parent: 1, site: 3, inline: false),
      .schedule(
        time: 7, action: 3, scheduler: 1, mode: .sync, delay: 0, due: 7, thread: 2, parent: 1,
        site: 0, inline: true),
      .begin(time: 8, action: 1, thread: 1, run: 1),
      .hop(time: 9, action: 1, from: 1, to: 2),
      .end(time: 10, action: 1, thread: 2, run: 1, duration: 2),
      .cancel(time: 11, action: 2, thread: 1, by: 0, started: false),
      .cancel(time: 12, action: 3, thread: 1, by: 1, started: true),
    ]
    for event in events {
      encoder.event(event)
      lines.append(String(decoding: encoder.bytes, as: UTF8.self).trimmingCharacters(in: .newlines))
      encoder.bytes.removeAll()
    }
    XCTAssertEqual(Self.read(lines).trace?.events.count, events.count)
    assertBothPathsAgree(lines)
  }

  func testHostileValuesInTheRecordersShapeAreRejectedAsTheGeneralScannerRejectsThem() {
    let hostile = [
      #"{"t":1,"e":"begin","a":0,"th":1,"run":1}"#,  // id 0
      #"{"t":1,"e":"begin","a":4294967296,"th":1,"run":1}"#,  // past 32 bits
      #"{"t":1,"e":"begin","a":1,"th":1,"run":0}"#,  // run 0
      #"{"t":1,"e":"end","a":1,"th":1,"run":1,"dur":4611686018427387904}"#,  // past 2^62 - 1
      #"{"t":99999999999999999999,"e":"begin","a":1,"th":1,"run":1}"#,  // past 64 bits
      #"{"t":01,"e":"begin","a":1,"th":1,"run":1}"#,  // leading zero
      #"{"t":-1,"e":"begin","a":1,"th":1,"run":1}"#,  // negative
      #"{"t":1.5,"e":"begin","a":1,"th":1,"run":1}"#,  // a fraction
      #"{"t":1,"e":"begin","a":1,"th":1}"#,  // no run: 1
      #"{"t":1,"e":"begin","a":1,"run":1}"#,  // no thread
      #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"later","due":1,"th":1}"#,  // unknown mode
      #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"after","due":1,"th":1}"#,  // no delay
      #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"as\u0079nc","due":1,"th":1}"#,  // an escape
      #"{"t":1,"e":"cancel","a":1,"th":1,"started":1}"#,  // not a boolean
      #"{"t":1,"e":"cancel","a":1,"th":1,"started":true,"x":[1,{"y":2}]}"#,  // unknown field
      #"{"t":1,"e":"hop","a":1,"from":1,"to":2}x"#,  // garbage after the object
      #"{"t":1,"e":"hop","a":1,"from":1,"to":2"#,  // unterminated
      #"{"t":1,"e":"begin","a":1,"th":1,"run":1,"a":2}"#,  // a duplicate key
      #"{"t":1,"e":"beginning","a":1,"th":1,"run":1}"#,  // an unknown event
    ]
    for line in hostile { assertBothPathsAgree([line]) }
    let reading = Self.read(hostile)
    XCTAssertEqual(reading.errorCount, 15, "\(reading.diagnostics.map(\.message))")
  }

  /// Lines in the recorder's shape, their numbers drawn from every range's edges, some with one
  /// byte changed, dropped or added. Each is read as written and with a space after it, which
  /// only the general scanner accepts: the two readings must agree event for event and word
  /// for word. (The fast path may only take a line the general reader would read the same
  /// without a word.)
  func testRecorderShapedLinesWithEdgeValuesAndDamageReadTheSameThroughBothPaths() {
    let numbers = [
      "0", "1", "7", "10", "01", "-1", "1.5", "1e3", "4294967295", "4294967296",
      "999999999999999999", "1000000000000000000", "4611686018427387903", "4611686018427387904",
      "9223372036854775807", "99999999999999999999", "true", "\"1\"",
    ]
    let shapes = [
      #"{"t":N,"e":"schedule","a":N,"q":N,"mode":"async","due":N,"th":N}"#,
      #"{"t":N,"e":"schedule","a":N,"q":N,"mode":"after","delay":N,"due":N,"th":N,"parent":N,"site":N}"#,
      #"{"t":N,"e":"schedule","a":N,"q":N,"mode":"repeating","delay":N,"due":N,"th":N,"site":N}"#,
      #"{"t":N,"e":"schedule","a":N,"q":N,"mode":"sync","delay":N,"due":N,"th":N,"parent":N,"inline":true}"#,
      #"{"t":N,"e":"schedule","a":N,"q":N,"mode":"async","due":N,"th":N,"inline":false}"#,
      #"{"t":N,"e":"begin","a":N,"th":N,"run":N}"#,
      #"{"t":N,"e":"end","a":N,"th":N,"run":N,"dur":N}"#,
      #"{"t":N,"e":"hop","a":N,"from":N,"to":N}"#,
      #"{"t":N,"e":"cancel","a":N,"th":N,"by":N,"started":false}"#,
      #"{"t":N,"e":"cancel","a":N,"th":N,"started":true}"#,
      #"{"t":N,"e":"task","a":N,"task":N}"#,
      #"{"t":N,"e":"mark","th":N,"name":"here"}"#,
    ]
    var random = SplitMix64(seed: 14)
    var accepted = 0
    for _ in 0..<4000 {
      let shape = shapes[Int(random.next() % UInt64(shapes.count))]
      // Mostly plain values, so that many lines are valid; now and then an edge.
      let parts = shape.split(separator: "N", omittingEmptySubsequences: false)
      var line = String(parts[0])
      for part in parts.dropFirst() {
        line +=
          random.next() % 10 == 0
          ? numbers[Int(random.next() % UInt64(numbers.count))] : String(1 + random.next() % 99)
        line += part
      }
      var bytes = Array(line.utf8)
      switch random.next() % 4 {
      case 0:
        bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(0x20 + random.next() % 0x5F)
      case 1: bytes.remove(at: Int(random.next() % UInt64(bytes.count)))
      case 2:
        bytes.insert(
          UInt8(0x20 + random.next() % 0x5F), at: Int(random.next() % UInt64(bytes.count + 1)))
      default: break
      }
      line = String(decoding: bytes, as: UTF8.self)
      let asWritten = Self.read([line])
      let general = Self.read([line + " "])
      XCTAssertEqual(asWritten.trace?.events, general.trace?.events, line)
      XCTAssertEqual(
        asWritten.diagnostics.map(\.message), general.diagnostics.map(\.message), line)
      if asWritten.errorCount == 0, asWritten.trace?.events.isEmpty == false { accepted += 1 }
    }
    // Both kinds of line were drawn often enough to mean something.
    XCTAssertGreaterThan(accepted, 600)
    XCTAssertLessThan(accepted, 3200)
  }

  /// Every digit count, on both sides of each power of ten, at every distance from the end of
  /// the bytes (the fast path reads eight bytes at a time where it can): the same events and
  /// the same words as the general scanner.
  func testNumbersOfEveryLengthReadTheSameThroughBothPaths() {
    var values: [String] = ["0", "00", "007"]
    var power: UInt64 = 1
    for _ in 1...19 {
      values += [power - 1, power, power + 1, power * 9 + (power - 1) / 3].map { String($0) }
      power = power.multipliedReportingOverflow(by: 10).partialValue
    }
    values += [
      "4611686018427387903", "4611686018427387904", "18446744073709551615", "123456789012345678901",
    ]
    for value in values {
      for line in [
        #"{"t":\#(value),"e":"begin","a":1,"th":1,"run":1}"#,
        #"{"t":1,"e":"end","a":1,"th":1,"run":1,"dur":\#(value)}"#,
        #"{"t":1,"e":"hop","a":\#(value),"from":1,"to":\#(value)}"#,
      ] {
        // Last in the bytes, with and without a newline, and followed by another line.
        for after in ["", "\n", "\n" + #"{"t":1,"e":"mark","th":1,"name":"x"}"# + "\n"] {
          let asWritten = Self.read(text: line + after)
          let general = Self.read(text: line + " " + after)
          XCTAssertEqual(asWritten.trace?.events, general.trace?.events, line)
          XCTAssertEqual(
            asWritten.diagnostics.map(\.message), general.diagnostics.map(\.message), line)
        }
      }
    }
    let plain = Self.read(
      text: #"{"t":123456789012345678,"e":"begin","a":99999999,"th":4294967295,"run":4294967295}"#)
    XCTAssertEqual(
      plain.trace?.events,
      [.begin(time: 123_456_789_012_345_678, action: 99_999_999, thread: .max, run: .max)])
  }

  /// Reads `text` after a header and a scheduler line, as it is (no newline added).
  private static func read(text: String) -> TraceReading {
    TraceReader.parse(Array((header + "\n" + scheduler + "\n" + text).utf8), file: "t.trace")
  }
}
