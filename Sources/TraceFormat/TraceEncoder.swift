/// Writes trace lines (JSON Lines, format version 1) into a byte buffer.
///
/// Each call appends one complete line ending in `\n`. The writer in the `Recording` module uses
/// it on its background thread; tests and the CLI use ``encode(_:)`` for whole traces.
///
/// - Complexity: O(length of the line) per call, with no intermediate strings for numbers.
public struct TraceEncoder: Sendable {
  /// The encoded lines so far.
  public var bytes: [UInt8] = []

  /// Makes an empty encoder.
  public init() {}

  /// Encodes a whole trace: header, then the tables, then the events, then the end marker.
  public static func encode(_ trace: Trace) -> [UInt8] {
    var encoder = TraceEncoder()
    encoder.header(trace.header)
    for scheduler in trace.schedulers.values.sorted(by: { $0.id < $1.id }) {
      encoder.scheduler(scheduler)
    }
    for (id, name) in trace.threadNames.sorted(by: { $0.key < $1.key }) {
      encoder.thread(id: id, name: name, time: 0)
    }
    for site in trace.callSites.values.sorted(by: { $0.id < $1.id }) {
      encoder.callSite(site, time: 0)
    }
    for event in trace.events {
      encoder.event(
        event,
        mark: event.markIndex.flatMap { trace.marks.indices.contains($0) ? trace.marks[$0] : nil })
    }
    if trace.droppedEvents > 0 {
      encoder.dropped(time: trace.span, count: trace.droppedEvents)
    }
    if let closing = trace.closing {
      encoder.closing(time: trace.span, closing)
    }
    return encoder.bytes
  }

  /// The header line.
  public mutating func header(_ header: TraceHeader) {
    raw("{\"format\":\"chronoscope-trace\",\"version\":")
    integer(Int64(header.version))
    raw(",\"clock\":")
    string(header.clock.rawValue)
    raw(",\"start\":")
    string(header.start)
    raw(",\"process\":")
    string(header.process)
    raw(",\"pid\":")
    integer(header.pid)
    raw(",\"metadata\":")
    object(header.metadata)
    raw("}\n")
  }

  /// A scheduler definition.
  public mutating func scheduler(_ scheduler: SchedulerRecord) {
    begin(scheduler.time, "scheduler")
    field("q", Int64(scheduler.id))
    raw(",\"label\":")
    string(scheduler.label)
    raw(",\"kind\":")
    string(scheduler.kind)
    raw(",\"family\":")
    string(scheduler.family)
    raw("}\n")
  }

  /// A thread's name.
  public mutating func thread(id: UInt32, name: String, time: Int64) {
    begin(time, "thread")
    field("th", Int64(id))
    raw(",\"name\":")
    string(name)
    raw("}\n")
  }

  /// A call site definition.
  public mutating func callSite(_ site: CallSiteRecord, time: Int64) {
    begin(time, "site")
    field("site", Int64(site.id))
    raw(",\"file\":")
    string(site.file)
    field("line", Int64(site.line))
    raw(",\"func\":")
    string(site.function)
    raw("}\n")
  }

  /// A runtime event; `mark` gives a ``TraceEvent/Kind/mark`` its text.
  public mutating func event(_ event: TraceEvent, mark: MarkRecord? = nil) {
    begin(event.time, Self.kindNames[Int(event.kind.rawValue)])
    switch event.kind {
    case .schedule:
      field("a", Int64(event.action))
      field("q", Int64(event.scheduler))
      raw(Self.modeFields[Int(event.mode.rawValue)])
      if event.mode == .after || event.mode == .repeating { field("delay", event.delay) }
      field("due", event.due)
      field("th", Int64(event.thread))
      if let parent = event.parent { field("parent", Int64(parent)) }
      if event.site != 0 { field("site", Int64(event.site)) }
    case .begin:
      field("a", Int64(event.action))
      field("th", Int64(event.thread))
      field("run", Int64(event.run))
    case .end:
      field("a", Int64(event.action))
      field("th", Int64(event.thread))
      field("run", Int64(event.run))
      field("dur", event.duration)
    case .hop:
      field("a", Int64(event.action))
      field("from", Int64(event.fromThread))
      field("to", Int64(event.thread))
    case .cancel:
      field("a", Int64(event.action))
      field("th", Int64(event.thread))
      if let by = event.parent { field("by", Int64(by)) }
      raw(event.started ? ",\"started\":true" : ",\"started\":false")
    case .mark:
      field("th", Int64(event.thread))
      raw(",\"name\":")
      string(mark?.name ?? "")
      if let fields = mark?.fields, !fields.isEmpty {
        raw(",\"fields\":")
        object(fields)
      }
    }
    raw("}\n")
  }

  /// A note that the recorder dropped `count` events since its last flush.
  public mutating func dropped(time: Int64, count: Int64) {
    begin(time, "dropped")
    field("count", count)
    raw("}\n")
  }

  /// The end marker of a cleanly closed trace.
  public mutating func closing(time: Int64, _ closing: Trace.Closing) {
    begin(time, "close")
    field("events", closing.written)
    field("dropped", closing.dropped)
    raw("}\n")
  }

  // MARK: - Pieces

  /// Event names and mode fields as static bytes, indexed by raw value: no `String` per line.
  private static let kindNames: [StaticString] = [
    "schedule", "begin", "end", "hop", "cancel", "mark",
  ]
  private static let modeFields: [StaticString] = [
    ",\"mode\":\"async\"", ",\"mode\":\"sync\"", ",\"mode\":\"after\"",
    ",\"mode\":\"repeating\"",
  ]

  private mutating func begin(_ time: Int64, _ name: StaticString) {
    raw("{\"t\":")
    integer(time)
    raw(",\"e\":\"")
    raw(name)
    raw("\"")
  }

  private mutating func field(_ key: StaticString, _ value: Int64) {
    bytes.append(UInt8(ascii: ","))
    bytes.append(UInt8(ascii: "\""))
    key.withUTF8Buffer { key in
      for byte in key { bytes.append(byte) }
    }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
    integer(value)
  }

  private mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { text in
      for byte in text { bytes.append(byte) }
    }
  }

  private mutating func integer(_ value: Int64) {
    if value < 0 {
      bytes.append(UInt8(ascii: "-"))
      unsigned(value == .min ? UInt64(Int64.max) + 1 : UInt64(-value))
    } else {
      unsigned(UInt64(value))
    }
  }

  private mutating func unsigned(_ value: UInt64) {
    if value < 10 {
      bytes.append(UInt8(truncatingIfNeeded: value) &+ 0x30)
      return
    }
    // Digits land in a fixed-size tuple, then go out one byte at a time: no allocation and no
    // call into memmove for a handful of bytes.
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var count = 0
    var rest = value
    withUnsafeMutableBytes(of: &digits) { slots in
      while rest > 0 {
        slots[count] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
        rest /= 10
        count += 1
      }
      var index = count - 1
      while index >= 0 {
        bytes.append(slots[index])
        index -= 1
      }
    }
  }

  /// A JSON string with every control character, quote and backslash escaped.
  private mutating func string(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): raw("\\\"")
      case UInt8(ascii: "\\"): raw("\\\\")
      case UInt8(ascii: "\n"): raw("\\n")
      case UInt8(ascii: "\r"): raw("\\r")
      case UInt8(ascii: "\t"): raw("\\t")
      case 0..<0x20, 0x7F:
        raw("\\u00")
        bytes.append(Self.hex[Int(byte >> 4)])
        bytes.append(Self.hex[Int(byte & 0xF)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func object(_ pairs: [String: String]) {
    bytes.append(UInt8(ascii: "{"))
    for (index, (key, value)) in pairs.sorted(by: { $0.key < $1.key }).enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      string(key)
      bytes.append(UInt8(ascii: ":"))
      string(value)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
}
