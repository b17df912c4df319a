/// A fast path for the lines recorders write most: the five runtime events exactly as
/// ``TraceEncoder`` writes them (its key order, no whitespace, plain integers).
///
/// It only *scans*: it fills the same field slots the general scanner would, and the parser then
/// checks ranges, ids and types as for any line, so both paths accept and reject the same values.
/// Any byte that does not fit the expected shape — another key order, whitespace, an unknown
/// field, an escape, a leading zero, a number of 19 digits or more — makes it give up, and the
/// general scanner reads the line (and words any error). Measured: the general scanner's key
/// hashing and value dispatch were about 40% of reading a 10M-event trace.
enum CanonicalLine {
  /// A field of a kind's template, in the encoder's order.
  private struct Field {
    enum Value { case integer, string, boolean }
    let key: Key
    /// `,"key":` as written.
    let prefix: StaticString
    let value: Value
    let optional: Bool
  }

  private static func template(_ kind: TraceEvent.Kind) -> [Field] {
    switch kind {
    case .schedule: scheduleFields
    case .begin: beginFields
    case .end: endFields
    case .hop: hopFields
    case .cancel: cancelFields
    case .mark: []
    case .task: taskFields
    }
  }

  private static let scheduleFields: [Field] = [
    Field(key: .a, prefix: ",\"a\":", value: .integer, optional: false),
    Field(key: .q, prefix: ",\"q\":", value: .integer, optional: false),
    Field(key: .mode, prefix: ",\"mode\":", value: .string, optional: false),
    Field(key: .delay, prefix: ",\"delay\":", value: .integer, optional: true),
    Field(key: .due, prefix: ",\"due\":", value: .integer, optional: false),
    Field(key: .th, prefix: ",\"th\":", value: .integer, optional: false),
    Field(key: .parent, prefix: ",\"parent\":", value: .integer, optional: true),
    Field(key: .site, prefix: ",\"site\":", value: .integer, optional: true),
    Field(key: .inline, prefix: ",\"inline\":", value: .boolean, optional: true),
  ]
  private static let beginFields: [Field] = [
    Field(key: .a, prefix: ",\"a\":", value: .integer, optional: false),
    Field(key: .th, prefix: ",\"th\":", value: .integer, optional: false),
    Field(key: .run, prefix: ",\"run\":", value: .integer, optional: false),
  ]
  private static let endFields: [Field] =
    beginFields + [Field(key: .dur, prefix: ",\"dur\":", value: .integer, optional: false)]
  private static let hopFields: [Field] = [
    Field(key: .a, prefix: ",\"a\":", value: .integer, optional: false),
    Field(key: .from, prefix: ",\"from\":", value: .integer, optional: false),
    Field(key: .to, prefix: ",\"to\":", value: .integer, optional: false),
  ]
  private static let taskFields: [Field] = [
    Field(key: .a, prefix: ",\"a\":", value: .integer, optional: false),
    Field(key: .task, prefix: ",\"task\":", value: .integer, optional: false),
  ]
  private static let cancelFields: [Field] = [
    Field(key: .a, prefix: ",\"a\":", value: .integer, optional: false),
    Field(key: .th, prefix: ",\"th\":", value: .integer, optional: false),
    Field(key: .by, prefix: ",\"by\":", value: .integer, optional: true),
    Field(key: .started, prefix: ",\"started\":", value: .boolean, optional: false),
  ]
  /// The event names, with the quote that closes them, in the order they are tried.
  private static let kinds: [(name: StaticString, kind: TraceEvent.Kind)] = [
    ("begin\"", .begin), ("end\"", .end), ("schedule\"", .schedule), ("hop\"", .hop),
    ("cancel\"", .cancel),
  ]

  /// Scans the line `scanner` is at into `slots` if it has the encoder's shape for a runtime
  /// event, and returns its kind; nil (with `slots` in any state) if the general scanner must
  /// read it.
  static func scan(_ scanner: JSONLineScanner, into slots: inout FieldSlots) -> TraceEvent.Kind? {
    var cursor = Cursor(bytes: scanner.bytes, position: scanner.lineStart, end: scanner.lineEnd)
    slots.clear()
    guard cursor.take("{\"t\":"), cursor.integer(.t, into: &slots, lineStart: scanner.lineStart),
      cursor.take(",\"e\":\"")
    else { return nil }
    let nameStart = cursor.position
    guard let (name, kind) = kinds.first(where: { cursor.take($0.name) }) else { return nil }
    slots.store(
      .e,
      FieldSlot(
        value: .string(
          .init(range: nameStart..<nameStart + name.utf8CodeUnitCount - 1, hasEscapes: false)),
        column: nameStart - 1 - scanner.lineStart + 1))
    for field in template(kind) {
      guard cursor.take(field.prefix) else {
        if field.optional { continue }
        return nil
      }
      let matched =
        switch field.value {
        case .integer: cursor.integer(field.key, into: &slots, lineStart: scanner.lineStart)
        case .string: cursor.string(field.key, into: &slots, lineStart: scanner.lineStart)
        case .boolean: cursor.boolean(field.key, into: &slots, lineStart: scanner.lineStart)
        }
      guard matched else { return nil }
    }
    guard cursor.take("}"), cursor.position == cursor.end else { return nil }
    return kind
  }

  /// A position in the line's bytes that only moves forward over what it recognizes.
  private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    let end: Int

    /// Consumes `literal` if the line continues with it. (A byte loop: the literals are a few
    /// bytes long, and calling `memcmp` for each cost more than comparing.)
    @inline(__always)
    mutating func take(_ literal: StaticString) -> Bool {
      let count = literal.utf8CodeUnitCount
      guard end - position >= count else { return false }
      let expected = literal.utf8Start
      for index in 0..<count where bytes[position + index] != expected[index] { return false }
      position += count
      return true
    }

    /// A non-negative integer of at most 18 digits (so it cannot overflow), without leading
    /// zeros, followed by `,` or `}`.
    mutating func integer(_ key: Key, into slots: inout FieldSlots, lineStart: Int) -> Bool {
      let start = position
      var value: Int64 = 0
      while position < end, position - start < 19 {
        let digit = bytes[position] &- 0x30
        guard digit < 10 else { break }
        value = value &* 10 &+ Int64(digit)
        position += 1
      }
      let digits = position - start
      guard digits > 0, digits <= 18, position < end else { return false }
      guard digits == 1 || bytes[start] != UInt8(ascii: "0") else { return false }
      guard bytes[position] == UInt8(ascii: ",") || bytes[position] == UInt8(ascii: "}") else {
        return false
      }
      slots.store(key, FieldSlot(value: .integer(value), column: start - lineStart + 1))
      return true
    }

    /// A string of printable ASCII without escapes.
    mutating func string(_ key: Key, into slots: inout FieldSlots, lineStart: Int) -> Bool {
      guard position < end, bytes[position] == UInt8(ascii: "\"") else { return false }
      let open = position
      position += 1
      while position < end {
        let byte = bytes[position]
        if byte == UInt8(ascii: "\"") { break }
        guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return false }
        position += 1
      }
      guard position < end else { return false }
      slots.store(
        key,
        FieldSlot(
          value: .string(.init(range: open + 1..<position, hasEscapes: false)),
          column: open - lineStart + 1))
      position += 1
      return true
    }

    mutating func boolean(_ key: Key, into slots: inout FieldSlots, lineStart: Int) -> Bool {
      let start = position
      let value: Bool
      if take("true") {
        value = true
      } else if take("false") {
        value = false
      } else {
        return false
      }
      slots.store(key, FieldSlot(value: .bool(value), column: start - lineStart + 1))
      return true
    }
  }
}
