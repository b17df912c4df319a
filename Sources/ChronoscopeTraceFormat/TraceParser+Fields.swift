/// The keys the schema knows; others are skipped.
enum Key: UInt8, CaseIterable {
  case t, e, a, q, th, to, by, due, run, dur, pid, mode, site, from, name, kind, file, line
  case function, delay, label, start, clock, parent, family, events, format, fields, started
  case dropped, version, process, metadata, count, signal, inline, cores, startNanoseconds, task
  case failed, module, offset, buildID, caller, on

  /// The key as written in files.
  var name: String { Self.names[Int(rawValue)] }

  /// The names, by raw value, made once: `"\(self)"` finds a case's name by reflection, which
  /// took most of the time of reading a file whose every line lacks a field (a message names
  /// the field on each line, even past the diagnostics shown).
  private static let names: [String] = allCases.map { key in
    switch key {
    case .function: "func"
    case .startNanoseconds: "start_ns"
    case .buildID: "build-id"
    default: "\(key)"
    }
  }

  /// Every key fits in eight bytes, so its bytes packed into a `UInt64` identify it.
  private static let table: [(packed: UInt64, key: Key)?] = {
    var table = [(packed: UInt64, key: Key)?](repeating: nil, count: 128)
    for key in Key.allCases {
      let packed = pack(Array(key.name.utf8)[...])
      var slot = slotIndex(packed)
      while table[slot] != nil { slot = (slot + 1) & 127 }
      table[slot] = (packed, key)
    }
    return table
  }()

  private static func pack(_ bytes: some Collection<UInt8>) -> UInt64 {
    var packed: UInt64 = 0
    for (index, byte) in bytes.enumerated() { packed |= UInt64(byte) << (8 * UInt64(index)) }
    return packed
  }

  private static func slotIndex(_ packed: UInt64) -> Int {
    Int(truncatingIfNeeded: (packed &* 0x9E37_79B9_7F4A_7C15) >> 57)
  }

  /// The key whose name is the slice's bytes, if any.
  static func lookup(_ scanner: JSONLineScanner, _ slice: JSONLineScanner.StringSlice) -> Key? {
    guard !slice.hasEscapes, (1...8).contains(slice.range.count) else { return nil }
    var packed: UInt64 = 0
    var shift: UInt64 = 0
    for position in slice.range {
      packed |= UInt64(scanner.bytes[position]) << shift
      shift += 8
    }
    var slot = slotIndex(packed)
    while let entry = table[slot] {
      if entry.packed == packed { return entry.key }
      slot = (slot + 1) & 127
    }
    return nil
  }
}

/// The line types of format version 1: the runtime events, named by ``TraceEvent/Kind``'s table,
/// and the lines that define, count or close.
enum EventName: Equatable {
  case event(TraceEvent.Kind)
  case scheduler, thread, site, close, dropped, crash, unknown

  /// Every event kind, looked up by name on each line (kept here so that `allCases` is not
  /// rebuilt per line).
  static let kinds = TraceEvent.Kind.allCases

  /// The name in messages.
  var label: String {
    switch self {
    case .event(let kind): kind.name
    case .scheduler: "scheduler"
    case .thread: "thread"
    case .site: "site"
    case .close: "close"
    case .dropped: "dropped"
    case .crash: "crash"
    case .unknown: "unknown"
    }
  }
}

/// One known field's value on the current line.
struct FieldSlot {
  var value: JSONLineScanner.Value
  var column: Int
}

/// One line's known fields: trivial slots in memory the reader owns, and a bit per key for
/// presence, so that filling, copying and reading them never touches a reference count.
struct FieldSlots {
  /// Room for one slot per key, allocated (and freed) by the reader around the parse.
  private let values: UnsafeMutablePointer<FieldSlot>
  private var present: UInt64 = 0

  init(storage: UnsafeMutablePointer<FieldSlot>) { values = storage }

  mutating func clear() { present = 0 }

  mutating func store(_ key: Key, _ slot: FieldSlot) {
    values[Int(key.rawValue)] = slot
    present |= 1 << UInt64(key.rawValue)
  }

  func has(_ key: Key) -> Bool { present & (1 << UInt64(key.rawValue)) != 0 }

  subscript(key: Key) -> FieldSlot? { has(key) ? values[Int(key.rawValue)] : nil }
}

/// Typed access to one line's slots, with messages that name the field and the event.
struct Fields {
  typealias Slot = FieldSlot
  let slots: FieldSlots
  let scanner: JSONLineScanner
  /// The line's `metadata` or `fields` object.
  let object: [String: String]?

  func failure(_ key: Key, _ message: @autoclosure () -> String) -> JSONLineScanner.Failure {
    failure(column: slots[key]?.column ?? 1, message())
  }

  private func failure(column: Int, _ message: @autoclosure () -> String)
    -> JSONLineScanner.Failure
  {
    // Without a message when the scanner makes none (see `JSONLineScanner.describing`).
    JSONLineScanner.Failure(column: column, message: scanner.describing ? message() : "")
  }

  private func required(_ key: Key, in event: @autoclosure () -> String) throws(JSONLineScanner
    .Failure) -> Slot
  {
    guard let slot = slots[key] else {
      throw failure(column: 1, "missing field \"\(key.name)\" in a \(event()) line")
    }
    return slot
  }

  private func wrongType(_ key: Key, _ expected: String, _ slot: Slot) -> JSONLineScanner.Failure {
    failure(
      column: slot.column,
      "field \"\(key.name)\" must be \(expected), found \(slot.value.typeName)")
  }

  func integer(_ key: Key, in event: @autoclosure () -> String) throws(JSONLineScanner.Failure)
    -> Int64
  {
    let slot = try required(key, in: event())
    guard case .integer(let value) = slot.value else { throw wrongType(key, "an integer", slot) }
    return value
  }

  /// An integer in `range`; outside it, an error that names the range.
  func integer(
    _ key: Key, in event: @autoclosure () -> String, range: ClosedRange<Int64>, unit: String = ""
  )
    throws(JSONLineScanner.Failure) -> Int64
  {
    let value = try integer(key, in: event())
    guard range.contains(value) else { throw outOfRange(key, range, unit: unit, found: value) }
    return value
  }

  /// A time or a span in nanoseconds: 0 ≤ value ≤ ``TraceLimits/maximumTime``.
  func time(_ key: Key, in event: @autoclosure () -> String) throws(JSONLineScanner.Failure)
    -> Int64
  {
    try integer(key, in: event(), range: 0...TraceLimits.maximumTime, unit: " (2^62 - 1 ns)")
  }

  /// A count: 0 ≤ value ≤ ``TraceLimits/maximumCount``.
  func count(_ key: Key, in event: @autoclosure () -> String) throws(JSONLineScanner.Failure)
    -> Int64
  {
    try integer(key, in: event(), range: 0...TraceLimits.maximumCount, unit: " (2^62 - 1)")
  }

  /// A run number, 1 when the field is absent: 1 ≤ value ≤ ``TraceLimits/maximumRun``.
  func run() throws(JSONLineScanner.Failure) -> UInt32 {
    guard let slot = slots[.run] else { return 1 }
    guard case .integer(let value) = slot.value else { throw wrongType(.run, "an integer", slot) }
    guard let run = UInt32(exactly: value), run >= 1 else {
      throw outOfRange(.run, 1...Int64(TraceLimits.maximumRun), unit: "", found: value)
    }
    return run
  }

  private func outOfRange(_ key: Key, _ range: ClosedRange<Int64>, unit: String, found: Int64)
    -> JSONLineScanner.Failure
  {
    failure(
      key,
      "field \"\(key.name)\" must be between \(range.lowerBound) and \(range.upperBound)\(unit), found \(found)"
    )
  }

  func optionalInteger(_ key: Key) throws(JSONLineScanner.Failure) -> Int64? {
    guard let slot = slots[key] else { return nil }
    guard case .integer(let value) = slot.value else { throw wrongType(key, "an integer", slot) }
    return value
  }

  func uint32(_ key: Key, in event: @autoclosure () -> String) throws(JSONLineScanner.Failure)
    -> UInt32
  {
    let value = try integer(key, in: event())
    guard let narrow = UInt32(exactly: value) else {
      throw failure(
        key, "field \"\(key.name)\" must be between 0 and \(UInt32.max), found \(value)")
    }
    return narrow
  }

  /// An id: a positive 32-bit integer.
  func id(_ key: Key, in event: @autoclosure () -> String) throws(JSONLineScanner.Failure) -> UInt32
  {
    let value = try uint32(key, in: event())
    guard value > 0 else {
      throw failure(key, "field \"\(key.name)\" must be a positive id, found 0")
    }
    return value
  }

  func optionalUInt32(_ key: Key) throws(JSONLineScanner.Failure) -> UInt32? {
    guard slots.has(key) else { return nil }
    return try uint32(key, in: "")
  }

  func optionalBool(_ key: Key) throws(JSONLineScanner.Failure) -> Bool? {
    guard slots.has(key) else { return nil }
    return try bool(key, in: "")
  }

  func bool(_ key: Key, in event: @autoclosure () -> String) throws(JSONLineScanner.Failure) -> Bool
  {
    let slot = try required(key, in: event())
    guard case .bool(let value) = slot.value else { throw wrongType(key, "true or false", slot) }
    return value
  }

  func string(_ key: Key, in event: @autoclosure () -> String) throws(JSONLineScanner.Failure)
    -> String
  {
    let slot = try required(key, in: event())
    guard case .string(let slice) = slot.value else { throw wrongType(key, "a string", slot) }
    let text = scanner.text(slice)
    guard text.utf8.count <= TraceLimits.maximumStringLength else {
      throw failure(
        key,
        "field \"\(key.name)\" is \(text.utf8.count) bytes long; strings longer than \(TraceLimits.maximumStringLength) bytes are not read"
      )
    }
    return text
  }

  func optionalString(_ key: Key) throws(JSONLineScanner.Failure) -> String? {
    guard slots.has(key) else { return nil }
    return try string(key, in: "")
  }

  func object(_ key: Key) -> [String: String]? { slots.has(key) ? object : nil }

  func mode() throws(JSONLineScanner.Failure) -> TraceEvent.ScheduleMode {
    let slot = try required(.mode, in: "schedule")
    guard case .string(let slice) = slot.value else { throw wrongType(.mode, "a string", slot) }
    for mode in TraceEvent.ScheduleMode.allCases where scanner.equals(slice, mode.staticName) {
      return mode
    }
    throw failure(
      .mode,
      "unknown mode \"\(scanner.text(slice).escapedForMessage)\" (expected async, sync, after or repeating)"
    )
  }

  /// What a `wait` line waited on.
  func waitObject() throws(JSONLineScanner.Failure) -> TraceEvent.WaitObject {
    let slot = try required(.on, in: "wait")
    guard case .string(let slice) = slot.value else { throw wrongType(.on, "a string", slot) }
    for object in TraceEvent.WaitObject.allCases where scanner.equals(slice, object.staticName) {
      return object
    }
    throw failure(
      .on, "unknown wait \"\(scanner.text(slice).escapedForMessage)\" (expected semaphore or group)"
    )
  }

  func eventName() throws(JSONLineScanner.Failure) -> EventName {
    let slot = try required(.e, in: "trace")
    guard case .string(let name) = slot.value else { throw wrongType(.e, "a string", slot) }
    for kind in EventName.kinds where scanner.equals(name, kind.staticName) {
      return .event(kind)
    }
    if scanner.equals(name, "scheduler") { return .scheduler }
    if scanner.equals(name, "thread") { return .thread }
    if scanner.equals(name, "site") { return .site }
    if scanner.equals(name, "close") { return .close }
    if scanner.equals(name, "dropped") { return .dropped }
    if scanner.equals(name, "crash") { return .crash }
    return .unknown
  }
}
