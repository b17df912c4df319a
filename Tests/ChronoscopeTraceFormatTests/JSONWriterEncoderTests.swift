import ChronoscopeTraceFormat
import Foundation
import XCTest

/// A `Codable` value through the JSON writer: the document `JSONEncoder` then
/// `JSONSerialization` with sorted keys would write, escaped for terminals, nil members left out.
final class JSONWriterEncoderTests: XCTestCase {
  private struct Sample: Codable, Equatable {
    struct Inner: Codable, Equatable {
      var p99: Int64?
      var p50: Int64?
      var busiest: Int

      enum CodingKeys: String, CodingKey {
        case p99, p50
        case busiest = "busiest_100ms"
      }
    }
    var zeta: String
    var alphaBeta: Double
    var alpha: [Int]
    var missing: Int?
    var present: Bool?
    var inner: Inner
    var list: [Inner]
    var values: [String: String]
    var buckets: [String: Int]

    enum CodingKeys: String, CodingKey {
      case zeta, alpha, missing, present, inner, list, values, buckets
      case alphaBeta = "alpha_beta"
    }
  }

  func testAValueIsWrittenAsJSONSerializationSortsAndEscapesIt() throws {
    let sample = Sample(
      zeta: "a \u{1B}[31m red\n", alphaBeta: 0.25, alpha: [3, -1, 0], missing: nil, present: true,
      inner: Sample.Inner(p99: 9, p50: nil, busiest: 100),
      list: [Sample.Inner(p99: nil, p50: 5, busiest: 1)],
      values: ["Zed": "1", "alpha": "2", "_x": "3", "é": "4"],
      buckets: ["<1ms": 1, "1-10ms": 2, ">1s": 3, "10-100ms": 4])
    let bytes = JSONWriterEncoder.bytes(of: sample)
    let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(sample))
    let expected = try JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    // The writer escapes what a terminal would act on; JSONSerialization leaves ESC raw: read
    // both back to compare the values, and compare the bytes with ESC spelled as the writer does.
    let text = String(decoding: bytes, as: UTF8.self)
    XCTAssertFalse(text.contains("\u{1B}"), text)
    XCTAssertEqual(
      text,
      String(decoding: expected, as: UTF8.self).replacingOccurrences(of: "\u{1B}", with: "\\u001b"))
    XCTAssertEqual(try JSONDecoder().decode(Sample.self, from: Data(bytes)), sample)
  }

  func testKeysThatAreNotPlainLettersSortAsTheWriterSortsDataKeys() {
    struct Buckets: Encodable { var b10: Int, b9: Int, b100: Int }
    let text = String(
      decoding: JSONWriterEncoder.bytes(of: Buckets(b10: 1, b9: 2, b100: 3)), as: UTF8.self)
    XCTAssertEqual(text, #"{"b9":2,"b10":1,"b100":3}"#)
  }
}
