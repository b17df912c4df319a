import ChronoscopeTraceFormat
import Foundation
import XCTest

@testable import ChronoscopeTraceFormat

/// The one rule for what the commands' JSON escapes: everything a terminal would act on.
final class JSONEscapingTests: XCTestCase {
  private static let hostile =
    "q\"\\\n\u{1}\u{7F}\u{85}\u{9B}\u{AD}\u{200F}\u{2028}\u{2029}\u{202E}\u{2066}\u{2069}\u{FEFF}\u{E0001}漢🦆"

  func testAStringIsQuotedWithEveryControlAsAnEscapeAndReadsBackTheSame() throws {
    var bytes: [UInt8] = []
    JSONEscaping.appendQuoted(Self.hostile, to: &bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    XCTAssertEqual(
      text,
      #""q\"\\\n\u0001\u007f\u0085\u009b\u00ad\u200f\u2028\u2029\u202e\u2066\u2069\ufeff\udb40\udc01漢🦆""#
    )
    let back = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
    XCTAssertEqual(back as? String, Self.hostile)
  }

  func testAnotherWritersJSONGetsTheSameEscapesInsideItsStrings() throws {
    let data = try JSONSerialization.data(withJSONObject: ["k": Self.hostile], options: .sortedKeys)
    let escaped = JSONEscaping.escapingControls(inJSON: String(decoding: data, as: UTF8.self))
    XCTAssertFalse(
      escaped.unicodeScalars.contains { $0.value >= 0x7F && JSONEscaping.escapes($0) }, escaped)
    let back = try JSONSerialization.jsonObject(with: Data(escaped.utf8)) as? [String: String]
    XCTAssertEqual(back?["k"], Self.hostile)
  }
}
