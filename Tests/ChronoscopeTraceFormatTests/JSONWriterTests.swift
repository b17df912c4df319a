import ChronoscopeCore
import ChronoscopeTestSupport
import Foundation
import XCTest

@testable import ChronoscopeTraceFormat

/// The package's one JSON byte writer: what it writes reads as `JSONSerialization` wrote it
/// (numbers, key order, escapes), and the trace encoder escapes by the same rule.
final class JSONWriterTests: XCTestCase {
  private func written(_ write: (JSONWriter) -> Void) -> String {
    var bytes: [UInt8] = []
    let writer = JSONWriter(chunk: 7) { bytes.append(contentsOf: $0) }
    write(writer)
    writer.flush()
    return String(decoding: bytes, as: UTF8.self)
  }

  private func serialized(_ object: Any) throws -> String {
    let data = try JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self)
  }

  func testDoublesAreWrittenAsJSONSerializationWritesThem() throws {
    var generator = SplitMix64(seed: 29)
    var values: [Double] = [
      0, -0.0, 1, -1, 2.5, 1e-5, 0.0001, 123_456_789, 1e15, 9_999_999_999_999_998, 1e16, 1e17, 1e21,
      -1e21, 1.5e300, 0.1, 3e-7, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
      0.000_720_019_382_171_586_5,
    ]
    for _ in 0..<2_000 {
      values.append(Double(bitPattern: generator.next()))
      values.append(Double(generator.next() % 1_000_000) / Double(generator.next() % 999 + 1))
    }
    for value in values where value.isFinite {
      XCTAssertEqual(written { $0.double(value) }, try serialized(value), "\(value)")
    }
    XCTAssertEqual(written { $0.double(.nan) }, "null")
  }

  func testKeysAreSortedAsJSONSerializationSortsThem() throws {
    var generator = SplitMix64(seed: 10)
    let alphabet = Array("aAbB_-<>019 .Zz~éÉ漢")
    for _ in 0..<300 {
      var pairs: [String: String] = [:]
      for _ in 0..<6 {
        let length = Int(generator.next() % 5)
        let key = String(
          (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        pairs[key] = "v"
      }
      XCTAssertEqual(written { $0.object(pairs) }, try serialized(pairs))
    }
  }

  func testMembersAndElementsGetTheirCommasWhateverTheChunk() {
    let text = written { writer in
      writer.objectStart()
      writer.key("a")
      writer.array([1, 2, 3])
      writer.key("b")
      writer.objectStart()
      writer.objectEnd()
      writer.key("c")
      writer.arrayStart()
      writer.value("x")
      writer.value(true)
      writer.value(-0.5)
      writer.arrayEnd()
      writer.objectEnd()
    }
    XCTAssertEqual(text, #"{"a":[1,2,3],"b":{},"c":["x",true,-0.5]}"#)
  }

  /// One escaper: a trace file's strings are escaped as the export and the reports escape them,
  /// so a trace printed to a terminal holds no bidi override or C1 control either.
  func testTheTraceEncoderEscapesStringsByTheSameRule() throws {
    let name = "w\u{202E}k\u{85}\u{8}\u{C}\"\\/é"
    var encoder = TraceEncoder()
    encoder.thread(id: 1, name: name, time: 0)
    let line = String(decoding: encoder.bytes, as: UTF8.self)
    XCTAssertEqual(line, #"{"t":0,"e":"thread","th":1,"name":"w\u202ek\u0085\b\f\"\\/é"}"# + "\n")
    let quoted =
      #"{"t":0,"e":"thread","th":1,"name":"#
      + String(decoding: JSONWriter.encoded(name), as: UTF8.self) + "}\n"
    XCTAssertEqual(line, quoted)
  }
}
