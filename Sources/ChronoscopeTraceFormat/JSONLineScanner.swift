/// A strict, allocation-free scanner over one line of JSON, for the trace schema.
///
/// It reads an object's keys and scalar values in place; strings are only turned into `String`
/// when asked. Everything JSON allows that the schema does not use (arrays, nested objects,
/// fractions) is still scanned and validated, so an unknown field never breaks a line.
struct JSONLineScanner {
  /// A problem at a byte column of the line.
  struct Failure: Error {
    var column: Int
    var message: String
  }

  /// A value as found in the line.
  enum Value {
    case integer(Int64)
    case string(StringSlice)
    case bool(Bool)
    case null
    /// A value of another JSON type.
    case other(OtherType)

    var typeName: String {
      switch self {
      case .integer: "an integer"
      case .string: "a string"
      case .bool: "a boolean"
      case .null: "null"
      case .other(.object): "an object"
      case .other(.array): "an array"
      case .other(.fraction): "a number with a fraction or exponent"
      }
    }
  }

  /// JSON values the schema only ever skips. Keeping the payload trivial keeps `Value` free of
  /// reference counting on the hot path.
  enum OtherType {
    case object, array, fraction
  }

  /// Where a string's bytes are, and whether it needs unescaping.
  struct StringSlice {
    var range: Range<Int>
    var hasEscapes: Bool
  }

  let bytes: UnsafeBufferPointer<UInt8>
  let lineStart: Int
  let lineEnd: Int
  var position: Int
  /// Whether failures carry their message. A reader that shows no more diagnostics turns it
  /// off: making a message per bad line took most of the time of reading a file of them.
  var describing = true

  init(bytes: UnsafeBufferPointer<UInt8>, lineStart: Int, lineEnd: Int) {
    self.bytes = bytes
    self.lineStart = lineStart
    self.lineEnd = lineEnd
    position = lineStart
  }

  var column: Int { position - lineStart + 1 }

  func failure(_ message: @autoclosure () -> String, at position: Int? = nil) -> Failure {
    Failure(
      column: (position ?? self.position) - lineStart + 1, message: describing ? message() : "")
  }

  // MARK: - Structure

  mutating func skipWhitespace() {
    while position < lineEnd {
      switch bytes[position] {
      case 0x20, 0x09, 0x0D: position += 1
      default: return
      }
    }
  }

  mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
    skipWhitespace()
    guard position < lineEnd else { throw failure("expected \(what), found the end of the line") }
    guard bytes[position] == byte else {
      throw failure("expected \(what), found \(describe(position))")
    }
    position += 1
  }

  /// After `{` or a value: true if another member follows (consuming the `,`), false at `}`.
  mutating func nextMember(first: Bool) throws(Failure) -> Bool {
    skipWhitespace()
    guard position < lineEnd else {
      throw failure("unterminated object: expected ',' or '}', found the end of the line")
    }
    if bytes[position] == UInt8(ascii: "}") {
      position += 1
      return false
    }
    if first { return true }
    guard bytes[position] == UInt8(ascii: ",") else {
      throw failure("expected ',' or '}', found \(describe(position))")
    }
    position += 1
    return true
  }

  mutating func expectEndOfLine() throws(Failure) {
    skipWhitespace()
    if position < lineEnd { throw failure("unexpected \(describe(position)) after the object") }
  }

  /// Reads an object key, returning its (unescaped-free) byte range.
  mutating func key() throws(Failure) -> StringSlice {
    skipWhitespace()
    guard position < lineEnd, bytes[position] == UInt8(ascii: "\"") else {
      throw failure(
        position < lineEnd
          ? "expected a quoted key, found \(describe(position))"
          : "expected a quoted key, found the end of the line")
    }
    let slice = try string()
    try expect(UInt8(ascii: ":"), "':' after the key")
    return slice
  }

  // MARK: - Values

  mutating func value() throws(Failure) -> Value {
    skipWhitespace()
    guard position < lineEnd else { throw failure("expected a value, found the end of the line") }
    switch bytes[position] {
    case UInt8(ascii: "\""):
      return .string(try string())
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return try number()
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    case UInt8(ascii: "{"):
      try skipContainer()
      return .other(.object)
    case UInt8(ascii: "["):
      try skipContainer()
      return .other(.array)
    default:
      throw failure("expected a value, found \(describe(position))")
    }
  }

  private mutating func literal(_ word: StaticString) throws(Failure) {
    let start = position
    let length = word.utf8CodeUnitCount
    let matches =
      position + length <= lineEnd
      && word.withUTF8Buffer { word in
        (0..<length).allSatisfy { bytes[start + $0] == word[$0] }
      }
    guard matches else { throw failure("expected a value, found \(describe(start))") }
    position += length
  }

  private mutating func number() throws(Failure) -> Value {
    let start = position
    var negative = false
    if bytes[position] == UInt8(ascii: "-") {
      negative = true
      position += 1
    }
    guard position < lineEnd, isDigit(bytes[position]) else {
      throw failure("invalid number: expected a digit after '-'")
    }
    if bytes[position] == UInt8(ascii: "0"), position + 1 < lineEnd, isDigit(bytes[position + 1]) {
      throw failure("invalid number: leading zeros are not allowed", at: start)
    }
    var magnitude: UInt64 = 0
    var overflow = false
    while position < lineEnd, isDigit(bytes[position]) {
      let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[position] &- 0x30))
      magnitude = sum
      overflow = overflow || o1 || o2
      position += 1
    }
    var isInteger = true
    if position < lineEnd, bytes[position] == UInt8(ascii: ".") {
      isInteger = false
      position += 1
      guard position < lineEnd, isDigit(bytes[position]) else {
        throw failure("invalid number: expected a digit after '.'")
      }
      while position < lineEnd, isDigit(bytes[position]) { position += 1 }
    }
    if position < lineEnd, bytes[position] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      position += 1
      if position < lineEnd,
        bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")
      {
        position += 1
      }
      guard position < lineEnd, isDigit(bytes[position]) else {
        throw failure("invalid number: expected a digit in the exponent")
      }
      while position < lineEnd, isDigit(bytes[position]) { position += 1 }
    }
    guard isInteger else { return .other(.fraction) }
    let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
    if overflow || magnitude > limit {
      throw failure("number too large: integers must fit in 64 bits", at: start)
    }
    return .integer(negative ? Int64(bitPattern: 0 &- magnitude) : Int64(magnitude))
  }

  @inline(__always)
  private func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

  /// Scans a string starting at its opening quote, validating escapes and UTF-8.
  mutating func string() throws(Failure) -> StringSlice {
    let open = position
    position += 1
    let start = position
    var hasEscapes = false
    while position < lineEnd {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\"") {
        let range = start..<position
        position += 1
        return StringSlice(range: range, hasEscapes: hasEscapes)
      }
      if byte == UInt8(ascii: "\\") {
        hasEscapes = true
        try escape()
      } else if byte < 0x20 {
        throw failure("control character \(hexByte(byte)) inside a string (escape it as \\u00XX)")
      } else if byte >= 0x80 {
        try utf8Sequence()
      } else {
        position += 1
      }
    }
    throw failure("unterminated string (opened at column \(open - lineStart + 1))")
  }

  private mutating func escape() throws(Failure) {
    let start = position
    position += 1
    guard position < lineEnd else { throw failure("unterminated escape sequence", at: start) }
    switch bytes[position] {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
      UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      position += 1
    case UInt8(ascii: "u"):
      position += 1
      for _ in 0..<4 {
        guard position < lineEnd, hexValue(bytes[position]) != nil else {
          throw failure("invalid \\u escape: expected four hex digits", at: start)
        }
        position += 1
      }
    default:
      throw failure("invalid escape sequence '\\\(printable(bytes[position]))'", at: start)
    }
  }

  /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates).
  private mutating func utf8Sequence() throws(Failure) {
    let lead = bytes[position]
    let (count, low, high): (Int, UInt8, UInt8) =
      switch lead {
      case 0xC2...0xDF: (1, 0x80, 0xBF)
      case 0xE0: (2, 0xA0, 0xBF)
      case 0xE1...0xEC, 0xEE...0xEF: (2, 0x80, 0xBF)
      case 0xED: (2, 0x80, 0x9F)
      case 0xF0: (3, 0x90, 0xBF)
      case 0xF1...0xF3: (3, 0x80, 0xBF)
      case 0xF4: (3, 0x80, 0x8F)
      default: (0, 0, 0)
      }
    guard count > 0 else { throw failure("invalid UTF-8: unexpected byte \(hexByte(lead))") }
    guard position + count < lineEnd else { throw failure("invalid UTF-8: truncated sequence") }
    let second = bytes[position + 1]
    guard second >= low, second <= high else {
      throw failure("invalid UTF-8: bad continuation byte \(hexByte(second))", at: position + 1)
    }
    for offset in stride(from: 2, through: count, by: 1)
    where bytes[position + offset] & 0xC0 != 0x80 {
      throw failure(
        "invalid UTF-8: bad continuation byte \(hexByte(bytes[position + offset]))",
        at: position + offset)
    }
    position += count + 1
  }

  /// Skips a nested object or array, validating what is inside.
  private mutating func skipContainer() throws(Failure) {
    var depth = 0
    var expectingValue = true
    repeat {
      skipWhitespace()
      guard position < lineEnd else { throw failure("unterminated object or array") }
      let byte = bytes[position]
      switch byte {
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        depth += 1
        position += 1
        guard depth <= 64 else { throw failure("nesting deeper than 64 levels") }
        expectingValue = true
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        position += 1
        expectingValue = false
      case UInt8(ascii: ","), UInt8(ascii: ":"):
        position += 1
        expectingValue = true
      default:
        guard expectingValue else {
          throw failure("expected ',' or a closing bracket, found \(describe(position))")
        }
        _ = try value()
        expectingValue = false
      }
    } while depth > 0
  }

  // MARK: - Strings out

  /// The string's text, unescaped.
  func text(_ slice: StringSlice) -> String {
    let raw = UnsafeBufferPointer(rebasing: bytes[slice.range])
    guard slice.hasEscapes else { return String(decoding: raw, as: UTF8.self) }
    var scalars = String.UnicodeScalarView()
    var utf8: [UInt8] = []
    var index = raw.startIndex
    func flush() {
      scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
      utf8.removeAll(keepingCapacity: true)
    }
    while index < raw.endIndex {
      let byte = raw[index]
      guard byte == UInt8(ascii: "\\") else {
        utf8.append(byte)
        index += 1
        continue
      }
      let code = raw[index + 1]
      index += 2
      switch code {
      case UInt8(ascii: "b"): utf8.append(0x08)
      case UInt8(ascii: "f"): utf8.append(0x0C)
      case UInt8(ascii: "n"): utf8.append(0x0A)
      case UInt8(ascii: "r"): utf8.append(0x0D)
      case UInt8(ascii: "t"): utf8.append(0x09)
      case UInt8(ascii: "u"):
        var unit = hex4(raw, index)
        index += 4
        if (0xD800..<0xDC00).contains(unit), index + 5 < raw.endIndex,
          raw[index] == UInt8(ascii: "\\"),
          raw[index + 1] == UInt8(ascii: "u")
        {
          let low = hex4(raw, index + 2)
          if (0xDC00..<0xE000).contains(low) {
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            index += 6
          }
        }
        flush()
        scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
      default: utf8.append(code)
      }
    }
    flush()
    return String(scalars)
  }

  /// Compares a string's raw bytes with `literal` (which has no escapes).
  func equals(_ slice: StringSlice, _ literal: StaticString) -> Bool {
    guard !slice.hasEscapes, slice.range.count == literal.utf8CodeUnitCount else { return false }
    return literal.withUTF8Buffer { literal in
      var index = 0
      for position in slice.range {
        if bytes[position] != literal[index] { return false }
        index += 1
      }
      return true
    }
  }

  private func hex4(_ raw: UnsafeBufferPointer<UInt8>, _ index: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 << 4 | UInt32(hexValue(raw[index + $1]) ?? 0) }
  }

  private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  // MARK: - Describing bytes in messages

  /// `'x'`, or `byte 0x1B` for anything not printable ASCII: never the raw byte.
  func describe(_ position: Int) -> String {
    let byte = bytes[position]
    return (0x21..<0x7F).contains(byte) ? "'\(printable(byte))'" : "byte \(hexByte(byte))"
  }

  private func printable(_ byte: UInt8) -> String {
    (0x21..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : hexByte(byte)
  }

  private func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x\(digits[Int(byte >> 4)])\(digits[Int(byte & 0xF)])"
  }
}
