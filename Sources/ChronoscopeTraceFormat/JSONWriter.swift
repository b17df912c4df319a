/// JSON written straight into a buffer and handed to a sink a chunk at a time: no `String` per
/// value, no tree of the document. The one JSON byte writer of the package: the Perfetto export
/// and the `check`, `stats` and `diff` reports write through it, and it shares its string
/// escapes (``JSONEscaping``) and its integer digits (`LineBuffer`) with ``TraceEncoder``.
///
/// Two layers. The raw one (``raw(_:)``, ``string(_:)``, ``integer(_:)``) writes exactly what it
/// is given: a caller that lays out its own punctuation (the export) uses it. The structured
/// one (``key(_:)``, ``value(_:)-…``, ``objectStart()``…) puts the commas between members and
/// elements itself, so a report writes its keys and values in order and nothing else:
///
/// ```swift
/// let writer = JSONWriter { chunk in fwrite(chunk.baseAddress, 1, chunk.count, stdout) }
/// writer.objectStart()
/// writer.key("count")
/// writer.value(3)
/// writer.objectEnd()
/// writer.flush()  // {"count":3}
/// ```
///
/// Numbers read as `JSONSerialization` writes them (doubles in Swift's shortest round-trip form,
/// without a `.0`), so documents it wrote before read the same byte for byte.
///
/// - Complexity: O(bytes written); memory is the chunk, whatever the document's length.
///   (A raw buffer rather than `[UInt8]`: appending to an array byte by byte was a third of the
///   export's time, in its uniqueness and capacity checks.)
package final class JSONWriter {
  /// The default number of bytes gathered before they go to the sink.
  package static let defaultChunk = 4 << 20
  /// Room past the chunk for the largest piece written without a check (a number).
  private static let slack = 65_536

  private let chunk: Int
  private let capacity: Int
  private let buffer: UnsafeMutablePointer<UInt8>
  private var count = 0
  private let sink: (UnsafeBufferPointer<UInt8>) -> Void
  /// Whether the next member or element needs a comma before it (the structured layer's one
  /// piece of state: a value just ended).
  package var needsComma = false

  /// - Parameters:
  ///   - chunk: bytes gathered before they are handed to `sink`.
  ///   - sink: takes each chunk; the bytes are valid only during the call.
  package init(
    chunk: Int = JSONWriter.defaultChunk, sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    self.chunk = max(chunk, 1)
    self.capacity = self.chunk + Self.slack
    self.sink = sink
    buffer = .allocate(capacity: capacity)
  }

  deinit { buffer.deallocate() }

  /// What is written and not yet handed to the sink.
  package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: buffer, count: count)) }

  /// Whether a chunk has gathered: a caller writing many small records may ``flush()`` here.
  package var chunkIsFull: Bool { count >= chunk }

  /// `text` as JSON string bytes, quotes included, to append many times.
  package static func encoded(_ text: String) -> [UInt8] {
    let writer = JSONWriter(chunk: 256) { _ in }
    writer.string(text)
    return writer.bytes
  }

  /// Hands what is written so far to the sink.
  package func flush() {
    if count > 0 { sink(UnsafeBufferPointer(start: buffer, count: count)) }
    count = 0
  }

  // MARK: - Raw

  @inline(__always)
  package func byte(_ value: UInt8) {
    if count == capacity { flush() }
    buffer[count] = value
    count += 1
  }

  package func append(_ source: UnsafePointer<UInt8>, _ length: Int) {
    if count + length > capacity { flush() }
    if length > capacity {
      sink(UnsafeBufferPointer(start: source, count: length))
      return
    }
    (buffer + count).update(from: source, count: length)
    count += length
  }

  /// Appends bytes prepared beforehand (a name already escaped, say).
  package func append(_ prepared: [UInt8]) {
    prepared.withUnsafeBufferPointer { if let base = $0.baseAddress { append(base, $0.count) } }
  }

  package func raw(_ text: StaticString) {
    guard text.hasPointerRepresentation else {
      return text.withUTF8Buffer { for value in $0 { byte(value) } }
    }
    append(text.utf8Start, text.utf8CodeUnitCount)
  }

  /// Writes up to `length` bytes in place: `body` gets room for them and returns how many it
  /// wrote.
  package func withSpace(_ length: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
    precondition(length <= Self.slack, "a piece written in place fits the slack")
    if count + length > capacity { flush() }
    count += body(buffer + count)
  }

  /// `value` in decimal, with the trace encoder's digits.
  package func integer(_ value: Int64) {
    withSpace(21) { base in
      var line = LineBuffer(base: base)
      line.integer(value)
      return line.count
    }
  }

  /// `value` as `JSONSerialization` writes a double: Swift's shortest form that reads back the
  /// same (`1e-05`, `0.25`, `1e+16`) without a `.0` (`3`, not `3.0`); `null` for a value JSON
  /// cannot hold (NaN, infinity).
  package func double(_ value: Double) {
    guard value.isFinite else { return raw("null") }
    var text = value.description
    text.withUTF8 { utf8 in
      guard let base = utf8.baseAddress else { return }
      let integral =
        utf8.count > 2 && utf8[utf8.count - 2] == UInt8(ascii: ".")
        && utf8[utf8.count - 1] == UInt8(ascii: "0")
      append(base, integral ? utf8.count - 2 : utf8.count)
    }
  }

  /// `text` as a JSON string, escaped by the rule all the package's JSON shares
  /// (``JSONEscaping``): quotes, backslashes, controls, separators and bidi/format characters,
  /// so that JSON printed to a terminal holds nothing it would act on.
  package func string(_ text: String) {
    var contiguous = text
    contiguous.withUTF8 { utf8 in
      // Most strings need no escape: copy them whole.
      if let base = utf8.baseAddress, !JSONEscaping.mayNeedEscape(utf8) {
        byte(UInt8(ascii: "\""))
        append(base, utf8.count)
        byte(UInt8(ascii: "\""))
        return
      }
      var quoted: [UInt8] = []
      JSONEscaping.appendQuoted(text, to: &quoted)
      append(quoted)
    }
  }

  // MARK: - Structured

  @inline(__always)
  private func separate() {
    if needsComma { byte(UInt8(ascii: ",")) }
  }

  /// `"name":`, after a comma when a member came before.
  package func key(_ name: StaticString) {
    separate()
    byte(UInt8(ascii: "\""))
    raw(name)
    raw("\":")
    needsComma = false
  }

  /// `"name":` for a key that is data (a histogram's bucket name): escaped.
  package func key(_ name: String) {
    separate()
    string(name)
    byte(UInt8(ascii: ":"))
    needsComma = false
  }

  package func objectStart() {
    separate()
    byte(UInt8(ascii: "{"))
    needsComma = false
  }

  package func objectEnd() {
    byte(UInt8(ascii: "}"))
    needsComma = true
  }

  package func arrayStart() {
    separate()
    byte(UInt8(ascii: "["))
    needsComma = false
  }

  package func arrayEnd() {
    byte(UInt8(ascii: "]"))
    needsComma = true
  }

  package func value(_ value: Int64) {
    separate()
    integer(value)
    needsComma = true
  }

  package func value(_ value: Int) { self.value(Int64(value)) }

  package func value(_ value: Double) {
    separate()
    double(value)
    needsComma = true
  }

  /// `null`.
  package func null() {
    separate()
    raw("null")
    needsComma = true
  }

  package func value(_ value: Bool) {
    separate()
    raw(value ? "true" : "false")
    needsComma = true
  }

  package func value(_ value: String) {
    separate()
    string(value)
    needsComma = true
  }

  /// `"name":value`, after a comma when a member came before: ``key(_:)`` then the value.
  package func member(_ name: StaticString, _ value: Int64) {
    key(name)
    self.value(value)
  }

  package func member(_ name: StaticString, _ value: Int) { member(name, Int64(value)) }

  package func member(_ name: StaticString, _ value: String) {
    key(name)
    self.value(value)
  }

  package func member(_ name: StaticString, _ value: Double) {
    key(name)
    self.value(value)
  }

  package func member(_ name: StaticString, _ value: Bool) {
    key(name)
    self.value(value)
  }

  /// The member, or nothing when `value` is nil (an absent field).
  package func member(_ name: StaticString, _ value: Int64?) {
    if let value { member(name, value) }
  }

  package func member(_ name: StaticString, _ value: Int?) {
    if let value { member(name, Int64(value)) }
  }

  package func member(_ name: StaticString, _ value: String?) {
    if let value { member(name, value) }
  }

  /// `[a,b,…]` of integers.
  package func array(_ values: some Sequence<Int>) {
    arrayStart()
    for element in values { value(element) }
    arrayEnd()
  }

  /// A report's document, `{"files":[…],"schema":…,"version":…}` (keys sorted): the files'
  /// objects written by `files`, one after another.
  package func report(schema: String, version: Int, files: () -> Void) {
    objectStart()
    key("files")
    arrayStart()
    files()
    arrayEnd()
    key("schema")
    value(schema)
    key("version")
    value(version)
    objectEnd()
  }
}
