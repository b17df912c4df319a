/// The recorder's spool: what `chronoscope record` writes while the program runs, converted to
/// the JSON Lines trace when the program ends (by `record`, or by any `chronoscope` command that
/// reads one left behind).
///
/// Encoding a JSON line costs the recorder's writer about 400 instructions an event and merging
/// the threads' rings by time about 220 more (Benchmarks/README.md, "Where the instructions
/// go"): beside a program that keeps both cores busy, the writer fell behind and dropped events.
/// The spool writes each thread's events as they come out of its ring, 48 bytes each, and
/// leaves the merge, the dense action ids and the definitions' placement to the conversion,
/// which runs the same writer over the same calls afterwards. So a trace converted from a spool
/// is the trace the writer would have written, line for line.
///
/// The layout: the line `CHRONOSCOPE-SPOOL 1`, the trace's JSON header line, then records. An
/// event is 48 bytes, tag `E` first; every other record is a tag, a 32-bit length and that many
/// bytes (numbers little-endian, strings a 32-bit length and UTF-8):
///
/// | tag | record | payload |
/// | --- | --- | --- |
/// | `R` | a thread's run of events starts | — |
/// | `E` | an event | kind, mode, flag, action, time, scheduler, thread, site, aux, two 64-bit values |
/// | `W` | the writer's flush ends: its cut and the events dropped since the last | time, count |
/// | `D` | definitions: schedulers, call sites, marks, named work, task names | see ``Definitions`` |
/// | `T` | a thread's name | id, name |
/// | `C` | the recording closed | time |
/// | `X` | the process crashed | time, thread, signal |
/// | `F` | a write failed, and the recording stopped | time, events lost, reason |
///
/// A spool cut short (a process killed, a full disk) ends at its last whole record.
package enum TraceSpool {
  /// The first line of every spool.
  package static let magic: [UInt8] = Array("CHRONOSCOPE-SPOOL 1\n".utf8)

  /// Whether `bytes` start as a spool does.
  package static func isSpool(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.count >= magic.count && zip(bytes, magic).allSatisfy { $0 == $1 }
  }

  /// The size of an event record.
  package static let eventSize = 48

  enum Tag: UInt8 {
    case run = 0x52  // R
    case event = 0x45  // E
    case batchEnd = 0x57  // W
    case definitions = 0x44  // D
    case thread = 0x54  // T
    case close = 0x43  // C
    case crash = 0x58  // X
    case writeFailed = 0x46  // F
  }

  /// The definitions of one `D` record.
  package struct Definitions: Sendable, Equatable {
    package var schedulers: [SchedulerRecord] = []
    package var sites: [CallSiteRecord] = []
    package var marks: [Indexed<MarkRecord>] = []
    package var works: [Indexed<WorkRecord>] = []
    package var taskNames: [Indexed<String>] = []

    package init() {}

    package var isEmpty: Bool {
      schedulers.isEmpty && sites.isEmpty && marks.isEmpty && works.isEmpty && taskNames.isEmpty
    }
  }

  /// A mark's, a named work's or a task name's record, by the index its event carries.
  package struct Indexed<Value: Sendable & Equatable>: Sendable, Equatable {
    package var index: UInt32
    package var value: Value

    package init(_ index: UInt32, _ value: Value) {
      self.index = index
      self.value = value
    }
  }

  /// One record read back.
  package enum Record: Equatable {
    case run
    case event(TraceEvent)
    case batchEnd(cut: Int64, dropped: Int64)
    case definitions(Definitions)
    case thread(id: UInt32, name: String)
    case close(time: Int64)
    case crash(time: Int64, thread: UInt32, signal: String)
    case writeFailed(time: Int64, dropped: Int64, reason: String)
  }
}

// MARK: - Writing

extension TraceSpool {
  /// Appends the spool's first line and the trace's header line.
  package static func appendStart(_ header: TraceHeader, to bytes: inout [UInt8]) {
    bytes.append(contentsOf: magic)
    var encoder = TraceEncoder()
    encoder.header(header)
    bytes.append(contentsOf: encoder.bytes)
  }

  /// Appends a run's start.
  @inline(__always)
  package static func appendRunStart(to bytes: inout [UInt8]) {
    appendFramed(.run, to: &bytes) { _ in }
  }

  /// Appends an event: six words stored as they are, in no more time than a copy takes.
  @inline(__always)
  package static func appendEvent(_ event: TraceEvent, to bytes: inout [UInt8]) {
    var words = (
      (UInt64(Tag.event.rawValue) | UInt64(event.kind.rawValue) << 8
        | UInt64(event.mode.rawValue) << 16 | UInt64(event.flag ? 1 : 0) << 24
        | UInt64(event.action) << 32).littleEndian,
      UInt64(bitPattern: event.time).littleEndian,
      (UInt64(event.scheduler) | UInt64(event.thread) << 32).littleEndian,
      (UInt64(event.site) | UInt64(event.aux) << 32).littleEndian,
      UInt64(bitPattern: event.first).littleEndian,
      UInt64(bitPattern: event.second).littleEndian
    )
    withUnsafeBytes(of: &words) { bytes.append(contentsOf: $0) }
  }

  /// Appends the end of a flush: its cut and the events dropped since the last one.
  package static func appendBatchEnd(cut: Int64, dropped: Int64, to bytes: inout [UInt8]) {
    appendFramed(.batchEnd, to: &bytes) {
      $0.integer(cut)
      $0.integer(dropped)
    }
  }

  /// Appends a thread's name.
  package static func appendThread(id: UInt32, name: String, to bytes: inout [UInt8]) {
    appendFramed(.thread, to: &bytes) {
      $0.integer(id)
      $0.string(name)
    }
  }

  /// Appends the close record.
  package static func appendClose(time: Int64, to bytes: inout [UInt8]) {
    appendFramed(.close, to: &bytes) { $0.integer(time) }
  }

  /// Appends the crash record. Allocates nothing when `bytes` has room for it (the crash path).
  package static func appendCrash(
    time: Int64, thread: UInt32, signal: StaticString, to bytes: inout [UInt8]
  ) {
    appendFramed(.crash, to: &bytes) {
      $0.integer(time)
      $0.integer(thread)
      $0.integer(UInt32(signal.utf8CodeUnitCount))
      $0.bytes.append(
        contentsOf: UnsafeBufferPointer(start: signal.utf8Start, count: signal.utf8CodeUnitCount))
    }
  }

  /// Appends the record of a write that failed, which ends the spool.
  package static func appendWriteFailed(
    time: Int64, dropped: Int64, reason: String, to bytes: inout [UInt8]
  ) {
    appendFramed(.writeFailed, to: &bytes) {
      $0.integer(time)
      $0.integer(dropped)
      $0.string(reason)
    }
  }

  /// The bytes a definitions record of these takes, counted without allocating (the crash path
  /// checks its room with it).
  package static func definitionsSize(
    schedulers: [SchedulerRecord], sites: [CallSiteRecord],
    marks: [(index: UInt32, record: MarkRecord)], works: [(index: UInt32, record: WorkRecord)],
    taskNames: [(index: UInt32, name: String)]
  ) -> Int {
    var size = 5 + 20
    var index = 0
    while index < schedulers.count {
      let scheduler = schedulers[index]
      size &+=
        24 &+ scheduler.label.utf8.count &+ scheduler.kind.utf8.count
        &+ scheduler.family.utf8.count
      index += 1
    }
    index = 0
    while index < sites.count {
      let site = sites[index]
      size &+= 30 &+ site.file.utf8.count &+ site.function.utf8.count
      if let code = site.code { size &+= 30 &+ code.module.utf8.count &+ code.buildID.utf8.count }
      index += 1
    }
    index = 0
    while index < marks.count {
      size &+= fieldsSize(marks[index].record.name, marks[index].record.fields)
      index += 1
    }
    index = 0
    while index < works.count {
      size &+= fieldsSize(works[index].record.name, works[index].record.fields)
      index += 1
    }
    index = 0
    while index < taskNames.count {
      size &+= 8 &+ taskNames[index].name.utf8.count
      index += 1
    }
    return size
  }

  private static func fieldsSize(_ name: String, _ fields: [String: String]) -> Int {
    var size = 12 &+ name.utf8.count
    for (key, value) in fields { size &+= 8 &+ key.utf8.count &+ value.utf8.count }
    return size
  }

  /// Appends a definitions record. It allocates nothing when `bytes` has
  /// ``definitionsSize(schedulers:sites:marks:works:taskNames:)`` to spare: plain loops over
  /// the arrays, dictionaries iterated in place (their order is the conversion's to fix).
  package static func appendDefinitions(
    schedulers: [SchedulerRecord], sites: [CallSiteRecord],
    marks: [(index: UInt32, record: MarkRecord)], works: [(index: UInt32, record: WorkRecord)],
    taskNames: [(index: UInt32, name: String)], to bytes: inout [UInt8]
  ) {
    appendFramed(.definitions, to: &bytes) { out in
      out.integer(UInt32(truncatingIfNeeded: schedulers.count))
      var index = 0
      while index < schedulers.count {
        let scheduler = schedulers[index]
        out.integer(scheduler.id)
        out.integer(scheduler.time)
        out.string(scheduler.label)
        out.string(scheduler.kind)
        out.string(scheduler.family)
        index += 1
      }
      out.integer(UInt32(truncatingIfNeeded: sites.count))
      index = 0
      while index < sites.count {
        let site = sites[index]
        out.integer(site.id)
        out.integer(Int64(site.line))
        out.string(site.file)
        out.string(site.function)
        if let code = site.code {
          out.integer(UInt32(code.callerOffset == nil ? 1 : 2))
          out.string(code.module)
          out.integer(Int64(bitPattern: code.offset))
          out.string(code.buildID)
          out.integer(Int64(bitPattern: code.callerOffset ?? 0))
        } else {
          out.integer(UInt32(0))
        }
        index += 1
      }
      out.integer(UInt32(truncatingIfNeeded: marks.count))
      index = 0
      while index < marks.count {
        out.named(marks[index].index, marks[index].record.name, marks[index].record.fields)
        index += 1
      }
      out.integer(UInt32(truncatingIfNeeded: works.count))
      index = 0
      while index < works.count {
        out.named(works[index].index, works[index].record.name, works[index].record.fields)
        index += 1
      }
      out.integer(UInt32(truncatingIfNeeded: taskNames.count))
      index = 0
      while index < taskNames.count {
        out.integer(taskNames[index].index)
        out.string(taskNames[index].name)
        index += 1
      }
    }
  }

  /// Appends a record of `tag`: the tag, the payload's length, then the payload `body` writes.
  @inline(__always)
  private static func appendFramed(
    _ tag: Tag, to bytes: inout [UInt8], _ body: (inout Payload) -> Void
  ) {
    var payload = Payload(bytes: [])
    swap(&payload.bytes, &bytes)
    payload.bytes.append(tag.rawValue)
    let lengthAt = payload.bytes.count
    payload.integer(UInt32(0))
    body(&payload)
    let length = UInt32(truncatingIfNeeded: payload.bytes.count - lengthAt - 4)
    payload.bytes.withUnsafeMutableBytes {
      $0.storeBytes(of: length.littleEndian, toByteOffset: lengthAt, as: UInt32.self)
    }
    swap(&payload.bytes, &bytes)
  }

  /// A record's payload as it is written.
  private struct Payload {
    var bytes: [UInt8]

    mutating func integer(_ value: UInt32) {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func integer(_ value: Int64) {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ text: String) {
      var text = text
      text.withUTF8 { utf8 in
        integer(UInt32(truncatingIfNeeded: utf8.count))
        bytes.append(contentsOf: utf8)
      }
    }

    mutating func named(_ index: UInt32, _ name: String, _ fields: [String: String]) {
      integer(index)
      string(name)
      integer(UInt32(truncatingIfNeeded: fields.count))
      for (key, value) in fields {
        string(key)
        string(value)
      }
    }
  }
}

// MARK: - Reading

extension TraceSpool {
  /// Why a spool cannot be read on from some byte.
  package struct ReadError: Error, Equatable, CustomStringConvertible {
    /// Where the record that cannot be read starts.
    package var offset: Int
    package var reason: String
    /// Whether the spool only ends there, cut short in the middle of a record (a process killed
    /// while it wrote), rather than holding something no recorder writes.
    package var isCutShort: Bool

    package var description: String { "at byte \(offset): \(reason)" }
  }

  /// Reads a spool's records one by one, trusting nothing in it: every length is checked
  /// against what is left, every kind against the kinds there are, every string is UTF-8 no
  /// longer than a trace line may be.
  package struct Reader {
    private let bytes: UnsafeRawBufferPointer
    /// Where the next record starts.
    package private(set) var offset: Int
    /// The header, read by ``init(_:)``.
    package let headerLine: UnsafeRawBufferPointer

    /// Starts reading `bytes`, which hold a spool (see ``isSpool(_:)``); throws when its header
    /// line is missing or longer than a trace line may be.
    package init(_ bytes: UnsafeRawBufferPointer) throws(ReadError) {
      self.bytes = bytes
      let start = magic.count
      guard isSpool(bytes) else {
        throw ReadError(offset: 0, reason: "not a spool", isCutShort: false)
      }
      let limit = min(bytes.count, start + TraceReader.maximumLineLength + 1)
      guard let newline = bytes[start..<limit].firstIndex(of: UInt8(ascii: "\n")) else {
        throw ReadError(
          offset: start,
          reason: limit == bytes.count
            ? "the header line is cut short" : "the header line is longer than a trace line may be",
          isCutShort: limit == bytes.count)
      }
      headerLine = UnsafeRawBufferPointer(rebasing: bytes[start...newline])
      offset = newline + 1
    }

    /// The next record, or nil at the end.
    package mutating func next() throws(ReadError) -> Record? {
      guard offset < bytes.count else { return nil }
      let start = offset
      guard let tag = Tag(rawValue: bytes[start]) else {
        throw ReadError(
          offset: start, reason: "unknown record type \(bytes[start])", isCutShort: false)
      }
      if tag == .event {
        guard bytes.count - start >= eventSize else {
          throw ReadError(offset: start, reason: "an event cut short", isCutShort: true)
        }
        let event = try decodeEvent(at: start)
        offset = start + eventSize
        return .event(event)
      }
      guard bytes.count - start >= 5 else {
        throw ReadError(offset: start, reason: "a record cut short", isCutShort: true)
      }
      let length = Int(
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 1, as: UInt32.self)))
      guard length <= bytes.count - start - 5 else {
        throw ReadError(
          offset: start, reason: "a record of \(length) bytes, cut short", isCutShort: true)
      }
      var payload = PayloadReader(
        bytes: UnsafeRawBufferPointer(rebasing: bytes[(start + 5)..<(start + 5 + length)]),
        start: start + 5)
      let record: Record
      switch tag {
      case .run: record = .run
      case .event: fatalError("handled above")
      case .batchEnd:
        record = .batchEnd(cut: try payload.int64(), dropped: try payload.count("dropped"))
      case .definitions: record = .definitions(try payload.definitions())
      case .thread: record = .thread(id: try payload.uint32(), name: try payload.string())
      case .close: record = .close(time: try payload.int64())
      case .crash:
        record = .crash(
          time: try payload.int64(), thread: try payload.uint32(), signal: try payload.string())
      case .writeFailed:
        record = .writeFailed(
          time: try payload.int64(), dropped: try payload.count("lost"),
          reason: try payload.string())
      }
      offset = start + 5 + length
      return record
    }

    private func decodeEvent(at start: Int) throws(ReadError) -> TraceEvent {
      func word(_ index: Int) -> UInt64 {
        UInt64(
          littleEndian: bytes.loadUnaligned(fromByteOffset: start + 8 * index, as: UInt64.self))
      }
      let head = word(0)
      guard let kind = TraceEvent.Kind(rawValue: UInt8(truncatingIfNeeded: head >> 8)) else {
        throw ReadError(
          offset: start, reason: "an event of unknown kind \(UInt8(truncatingIfNeeded: head >> 8))",
          isCutShort: false)
      }
      guard let mode = TraceEvent.ScheduleMode(rawValue: UInt8(truncatingIfNeeded: head >> 16))
      else {
        throw ReadError(
          offset: start,
          reason: "an event of unknown scheduling mode \(UInt8(truncatingIfNeeded: head >> 16))",
          isCutShort: false)
      }
      let flag = UInt8(truncatingIfNeeded: head >> 24)
      guard flag <= 1 else {
        throw ReadError(offset: start, reason: "an event whose flag is \(flag)", isCutShort: false)
      }
      var event = TraceEvent(
        time: Int64(bitPattern: word(1)), kind: kind,
        action: UInt32(truncatingIfNeeded: head >> 32),
        thread: UInt32(truncatingIfNeeded: word(2) >> 32))
      event.mode = mode
      event.flag = flag == 1
      event.scheduler = UInt32(truncatingIfNeeded: word(2))
      event.site = UInt32(truncatingIfNeeded: word(3))
      event.aux = UInt32(truncatingIfNeeded: word(3) >> 32)
      event.first = Int64(bitPattern: word(4))
      event.second = Int64(bitPattern: word(5))
      return event
    }
  }

  /// Reads a record's payload, every read checked against its length.
  private struct PayloadReader {
    let bytes: UnsafeRawBufferPointer
    /// The payload's offset in the spool, for errors.
    let start: Int
    var offset = 0

    private func fail(_ reason: String) -> ReadError {
      ReadError(offset: start + offset, reason: reason, isCutShort: false)
    }

    mutating func uint32() throws(ReadError) -> UInt32 {
      guard bytes.count - offset >= 4 else { throw fail("a record shorter than its fields") }
      defer { offset += 4 }
      return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func int64() throws(ReadError) -> Int64 {
      guard bytes.count - offset >= 8 else { throw fail("a record shorter than its fields") }
      defer { offset += 8 }
      return Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    }

    /// A count of events, which is never negative.
    mutating func count(_ what: String) throws(ReadError) -> Int64 {
      let value = try int64()
      guard value >= 0 else { throw fail("a negative count of \(what) events (\(value))") }
      return value
    }

    mutating func string() throws(ReadError) -> String {
      let length = Int(try uint32())
      guard length <= bytes.count - offset else { throw fail("a string longer than its record") }
      guard length <= TraceReader.maximumLineLength else {
        throw fail("a string of \(length) bytes, longer than a trace line may be")
      }
      let utf8 = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
      guard let text = String(validating: utf8.bindMemory(to: UInt8.self), as: UTF8.self) else {
        throw fail("a string that is not UTF-8")
      }
      offset += length
      return text
    }

    /// A count of items that follow, each taking at least `least` bytes: a count the record
    /// cannot hold is refused before anything is made for it.
    mutating func items(least: Int) throws(ReadError) -> Int {
      let count = Int(try uint32())
      guard count <= (bytes.count - offset) / least else {
        throw fail("\(count) items, more than the record holds")
      }
      return count
    }

    mutating func fields() throws(ReadError) -> [String: String] {
      var fields: [String: String] = [:]
      for _ in 0..<(try items(least: 8)) {
        let key = try string()
        fields[key] = try string()
      }
      return fields
    }

    mutating func definitions() throws(ReadError) -> Definitions {
      var definitions = Definitions()
      for _ in 0..<(try items(least: 24)) {
        let id = try uint32()
        let time = try int64()
        definitions.schedulers.append(
          SchedulerRecord(
            id: id, label: try string(), kind: try string(), family: try string(), time: time))
      }
      for _ in 0..<(try items(least: 24)) {
        let id = try uint32()
        let line = try int64()
        let file = try string()
        let function = try string()
        let code: CodeLocation?
        switch try uint32() {
        case 0: code = nil
        case let parts where parts <= 2:
          let module = try string()
          let offset = UInt64(bitPattern: try int64())
          let buildID = try string()
          let caller = UInt64(bitPattern: try int64())
          code = CodeLocation(
            module: module, offset: offset, buildID: buildID,
            callerOffset: parts == 2 ? caller : nil)
        case let parts: throw fail("a call site's code in \(parts) parts")
        }
        guard let line = Int(exactly: line) else { throw fail("a line number out of range") }
        definitions.sites.append(
          CallSiteRecord(id: id, file: file, line: line, function: function, code: code))
      }
      for _ in 0..<(try items(least: 12)) {
        let index = try uint32()
        let name = try string()
        definitions.marks.append(Indexed(index, MarkRecord(name: name, fields: try fields())))
      }
      for _ in 0..<(try items(least: 12)) {
        let index = try uint32()
        let name = try string()
        definitions.works.append(Indexed(index, WorkRecord(name: name, fields: try fields())))
      }
      for _ in 0..<(try items(least: 8)) {
        let index = try uint32()
        definitions.taskNames.append(Indexed(index, try string()))
      }
      guard offset == bytes.count else { throw fail("a definitions record longer than its parts") }
      return definitions
    }
  }
}
