/// Which characters the JSON the package writes as `\u` escapes, and how: one rule for trace
/// files (``TraceEncoder``), `check --json`, `stats --json`, `diff --json` and `export` (through
/// ``JSONWriter``), so that nothing from a trace
/// reaches a terminal as a control sequence when the JSON goes to standard output.
///
/// Escaped, beyond what JSON requires (quotes, backslashes, C0 controls): DEL and the C1
/// controls (U+0080–U+009F; 0x9B is a CSI to some terminals), the line and paragraph separators
/// U+2028 and U+2029, and format characters (Unicode category Cf) such as the bidi overrides and
/// isolates (U+202A–U+202E, U+2066–U+2069), which reorder what a terminal shows. An escape reads
/// back as the same character, so nothing is lost.
///
/// ```swift
/// var bytes: [UInt8] = []
/// JSONEscaping.appendQuoted("evil\u{202E}", to: &bytes)   // "evil\u202e"
/// ```
package enum JSONEscaping {
  /// Whether `scalar` is written as a `\u` escape inside a JSON string.
  @inline(__always)
  package static func escapes(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
    if value < 0xA0 { return false }
    return value == 0x2028 || value == 0x2029 || scalar.properties.generalCategory == .format
  }

  /// Whether any byte of `utf8` may need an escape: a quote, a backslash, a control, or any
  /// non-ASCII byte (checked scalar by scalar then). False means the bytes go out as they are.
  @inline(__always)
  package static func mayNeedEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
    utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 >= 0x7F }
  }

  /// Appends `text` as a JSON string, quotes included: `"` and `\` after a backslash, `\n`,
  /// `\r`, `\t`, `\b` and `\f` as such (as `JSONSerialization` writes them), every character
  /// ``escapes(_:)`` picks as `\uXXXX` (a surrogate pair above U+FFFF), everything else as UTF-8.
  /// A string that needs no escape (most) is copied whole.
  package static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
    var contiguous = text
    let copied = contiguous.withUTF8 { utf8 -> Bool in
      guard !mayNeedEscape(utf8) else { return false }
      bytes.append(UInt8(ascii: "\""))
      bytes.append(contentsOf: utf8)
      bytes.append(UInt8(ascii: "\""))
      return true
    }
    if !copied { appendEscaped(text, to: &bytes) }
  }

  /// ``appendQuoted(_:to:)``, scalar by scalar.
  private static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case "\\": bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case "\n": bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case "\r": bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case "\t": bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case "\u{8}": bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
      case "\u{C}": bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
      default:
        if escapes(scalar) {
          appendEscape(scalar, to: &bytes)
        } else {
          UTF8.encode(scalar) { bytes.append($0) }
        }
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// `json`, a JSON text made by another writer (`JSONSerialization`, which escapes only what JSON
  /// requires), with every character ``escapes(_:)`` picks above the C0 range written as a `\u`
  /// escape. Such characters can only be inside strings there, where the escape reads back the
  /// same; C0 controls are left to that writer (they may be its whitespace).
  package static func escapingControls(inJSON json: String) -> String {
    guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && escapes($0) }) else {
      return json
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(json.utf8.count + 64)
    for scalar in json.unicodeScalars {
      if scalar.value >= 0x7F && escapes(scalar) {
        appendEscape(scalar, to: &bytes)
      } else {
        UTF8.encode(scalar) { bytes.append($0) }
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `\uXXXX` for `scalar`, or a surrogate pair of them above U+FFFF.
  private static func appendEscape(_ scalar: Unicode.Scalar, to bytes: inout [UInt8]) {
    if scalar.value > 0xFFFF {
      for unit in String(scalar).utf16 { appendUnit(unit, to: &bytes) }
    } else {
      appendUnit(UInt16(scalar.value), to: &bytes)
    }
  }

  private static func appendUnit(_ unit: UInt16, to bytes: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
    for shift in stride(from: 12, through: 0, by: -4) {
      bytes.append(hex[Int(unit >> UInt16(shift) & 0xF)])
    }
  }
}
