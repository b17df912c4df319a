/// Writes trace lines (JSON Lines, format version 1) into a byte buffer.
///
/// Each call appends one complete line ending in `\n`. The writer in the `ChronoscopeRecording` module uses
/// it on its background thread; tests and the CLI use ``encode(_:)`` for whole traces.
///
/// - Complexity: O(length of the line) per call, with no intermediate strings for numbers.
public struct TraceEncoder: Sendable {
  /// The encoded lines so far.
  public var bytes: [UInt8] = []

  /// Makes an empty encoder.
  public init() {}

  /// Encodes a whole trace as a file, laid out as the recorder lays one out (docs/TraceFormat.md):
  /// the header; each `thread`, `scheduler` and `site` line just before the first line that
  /// refers to it, with that line's `t`; the events in their order; then the definitions nothing
  /// used, the `dropped` count, the `crash` line and the end marker. So a recording read and
  /// written back is the same file, byte for byte, and a redacted, sliced or merged trace reads
  /// like one the recorder wrote.
  ///
  /// What a ``Trace`` does not hold cannot be written back: lines of event types this version
  /// does not know (a newer writer's), and where `dropped` lines stood (their total is written
  /// once, before the end).
  ///
  /// - Complexity: O(events + the length of the strings).
  public static func encode(_ trace: Trace) -> [UInt8] {
    var encoder = TraceEncoder()
    encoder.bytes.reserveCapacity(trace.events.count * 64 + 4096)
    encoder.header(trace.header)
    var threadsLeft = trace.threadNames
    var schedulersLeft = trace.schedulers
    var sitesLeft = trace.callSites
    var lastThread: UInt32?
    var lastTime: Int64 = 0
    for event in trace.events {
      if event.thread != lastThread {
        lastThread = event.thread
        if let name = threadsLeft.removeValue(forKey: event.thread) {
          encoder.thread(id: event.thread, name: name, time: event.time)
        }
      }
      if event.kind == .hop, let name = threadsLeft.removeValue(forKey: event.fromThread) {
        encoder.thread(id: event.fromThread, name: name, time: event.time)
      }
      if event.kind == .schedule {
        if var scheduler = schedulersLeft.removeValue(forKey: event.scheduler) {
          scheduler.time = event.time
          encoder.scheduler(scheduler)
        }
        if event.site != 0, let site = sitesLeft.removeValue(forKey: event.site) {
          encoder.callSite(site, time: event.time)
        }
      }
      let mark = event.markIndex.flatMap {
        trace.marks.indices.contains($0) ? trace.marks[$0] : nil
      }
      let work = event.workIndex.flatMap {
        trace.works.indices.contains($0) ? trace.works[$0] : nil
      }
      // A task's name goes on each of its lines, as a recorder writes them.
      let taskName = event.task.flatMap { trace.taskNames[$0] }
      encoder.event(event, mark: mark, work: work, taskName: taskName)
      lastTime = max(lastTime, event.time)
    }
    if let failure = trace.writeFailure {
      encoder.writeFailed(time: lastTime, dropped: trace.droppedEvents, reason: failure)
    } else if trace.droppedEvents > 0 {
      encoder.dropped(time: lastTime, count: trace.droppedEvents)
    }
    // Definitions nothing used, so that every scheduler still shows as a lane.
    let end = max(lastTime, trace.closedAt ?? lastTime)
    for (id, name) in threadsLeft.sorted(by: { $0.key < $1.key }) {
      encoder.thread(id: id, name: name, time: end)
    }
    for var scheduler in schedulersLeft.values.sorted(by: { $0.id < $1.id }) {
      scheduler.time = end
      encoder.scheduler(scheduler)
    }
    for site in sitesLeft.values.sorted(by: { $0.id < $1.id }) {
      encoder.callSite(site, time: end)
    }
    if let crash = trace.crash {
      encoder.crash(time: crash.time, signalName: crash.signal, thread: crash.thread)
    }
    if let closing = trace.closing {
      encoder.closing(time: trace.closedAt ?? lastTime, closing)
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
    if let cores = header.cores {
      raw(",\"cores\":")
      integer(Int64(cores))
    }
    if let start = header.startNanoseconds {
      raw(",\"start_ns\":")
      integer(start)
    }
    raw(",\"metadata\":")
    object(header.metadata)
    raw("}\n")
  }

  /// A scheduler definition.
  public mutating func scheduler(_ scheduler: SchedulerRecord) {
    begin(scheduler.time, "scheduler")
    member(",\"q\":", Int64(scheduler.id))
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
    member(",\"th\":", Int64(id))
    raw(",\"name\":")
    string(name)
    raw("}\n")
  }

  /// A call site definition.
  public mutating func callSite(_ site: CallSiteRecord, time: Int64) {
    begin(time, "site")
    member(",\"site\":", Int64(site.id))
    raw(",\"file\":")
    string(site.file)
    member(",\"line\":", Int64(site.line))
    raw(",\"func\":")
    string(site.function)
    if let code = site.code {
      raw(",\"module\":")
      string(code.module)
      member(",\"offset\":", Int64(truncatingIfNeeded: code.offset))
      raw(",\"build-id\":")
      string(code.buildID)
      if let caller = code.callerOffset {
        member(",\"caller\":", Int64(truncatingIfNeeded: caller))
      }
    }
    raw("}\n")
  }

  /// A runtime event; `mark` gives a ``TraceEvent/Kind/mark`` its text, `work` a
  /// ``TraceEvent/Kind/work`` its name and values, `taskName` a ``TraceEvent/Kind/task`` the
  /// task's name.
  public mutating func event(
    _ event: TraceEvent, mark: MarkRecord? = nil, work: WorkRecord? = nil, taskName: String? = nil
  ) {
    if event.kind == .task, let taskName {
      line {
        $0.begin(event.time, "task")
        $0.member(",\"a\":", Int64(event.action))
        $0.member(",\"task\":", Int64(truncatingIfNeeded: event.task ?? 0))
      }
      raw(",\"name\":")
      string(taskName)
      raw("}\n")
      return
    }
    if event.kind == .work {
      line {
        $0.begin(event.time, "work")
        $0.member(",\"a\":", Int64(event.action))
      }
      if let name = work?.name, !name.isEmpty {
        raw(",\"name\":")
        string(name)
      }
      if let fields = work?.fields, !fields.isEmpty {
        raw(",\"fields\":")
        object(fields)
      }
      raw("}\n")
      return
    }
    guard event.kind != .mark else {
      line {
        $0.begin(event.time, "mark")
        $0.member(",\"th\":", Int64(event.thread))
      }
      raw(",\"name\":")
      string(mark?.name ?? "")
      if let fields = mark?.fields, !fields.isEmpty {
        raw(",\"fields\":")
        object(fields)
      }
      raw("}\n")
      return
    }
    // Every other event is numbers and fixed text: built in place in one go (see `line`).
    line { line in
      line.begin(event.time, event.kind.staticName)
      switch event.kind {
      case .schedule:
        line.member(",\"a\":", Int64(event.action))
        line.member(",\"q\":", Int64(event.scheduler))
        line.raw(",\"mode\":\"")
        line.raw(event.mode.staticName)
        line.byte(UInt8(ascii: "\""))
        if event.mode == .after || event.mode == .repeating {
          line.member(",\"delay\":", event.delay)
        }
        line.member(",\"due\":", event.due)
        line.member(",\"th\":", Int64(event.thread))
        if let parent = event.parent { line.member(",\"parent\":", Int64(parent)) }
        if event.site != 0 { line.member(",\"site\":", Int64(event.site)) }
        if event.ranInline { line.raw(",\"inline\":true") }
      case .begin:
        line.member(",\"a\":", Int64(event.action))
        line.member(",\"th\":", Int64(event.thread))
        line.member(",\"run\":", Int64(event.run))
      case .end:
        line.member(",\"a\":", Int64(event.action))
        line.member(",\"th\":", Int64(event.thread))
        line.member(",\"run\":", Int64(event.run))
        line.member(",\"dur\":", event.duration)
      case .hop:
        line.member(",\"a\":", Int64(event.action))
        line.member(",\"from\":", Int64(event.fromThread))
        line.member(",\"to\":", Int64(event.thread))
      case .cancel:
        line.member(",\"a\":", Int64(event.action))
        line.member(",\"th\":", Int64(event.thread))
        if let by = event.parent { line.member(",\"by\":", Int64(by)) }
        line.raw(event.started ? ",\"started\":true" : ",\"started\":false")
      case .task:
        line.member(",\"a\":", Int64(event.action))
        line.member(",\"task\":", Int64(truncatingIfNeeded: event.task ?? 0))
      case .wait:
        line.member(",\"th\":", Int64(event.thread))
        if event.scheduler != 0 { line.member(",\"q\":", Int64(event.scheduler)) }
        line.member(",\"dur\":", event.duration)
        line.raw(",\"on\":\"")
        line.raw(event.waitObject?.staticName ?? "semaphore")
        line.byte(UInt8(ascii: "\""))
        if let by = event.endedBy { line.member(",\"by\":", Int64(by)) }
        if event.site != 0 { line.member(",\"site\":", Int64(event.site)) }
      case .mark, .work:
        break
      }
      line.raw("}\n")
    }
  }

  /// A note that the recorder dropped `count` events since its last flush.
  public mutating func dropped(time: Int64, count: Int64) {
    begin(time, "dropped")
    member(",\"count\":", count)
    raw("}\n")
  }

  /// The last line of a trace whose recorder could not write any more (a full disk): the events
  /// dropped since the last `dropped` line, and why.
  public mutating func writeFailed(time: Int64, dropped count: Int64, reason: String) {
    begin(time, "dropped")
    member(",\"count\":", count)
    raw(",\"failed\":")
    string(reason)
    raw("}\n")
  }

  /// The last line of a trace whose process crashed: the signal (`SIGSEGV`…) and the thread it
  /// hit. Written from a signal handler: it allocates nothing when `bytes` has a kilobyte of
  /// spare capacity (each piece is built in place, in up to 320 bytes of it), which the
  /// recorder's writer keeps reserved.
  public mutating func crash(time: Int64, signal: StaticString, thread: UInt32) {
    begin(time, "crash")
    raw(",\"signal\":\"")
    raw(signal)
    raw("\"")
    member(",\"th\":", Int64(thread))
    raw("}\n")
  }

  /// A `crash` line read from a file, for writing a trace back out: the signal is escaped as any
  /// string. (The recorder's own crash path uses ``crash(time:signal:thread:)``, which only copies
  /// static text.)
  public mutating func crash(time: Int64, signalName: String, thread: UInt32) {
    begin(time, "crash")
    raw(",\"signal\":")
    string(signalName)
    member(",\"th\":", Int64(thread))
    raw("}\n")
  }

  /// The end marker of a cleanly closed trace.
  public mutating func closing(time: Int64, _ closing: Trace.Closing) {
    begin(time, "close")
    member(",\"events\":", closing.written)
    member(",\"dropped\":", closing.dropped)
    raw("}\n")
  }

  // MARK: - Pieces

  private mutating func begin(_ time: Int64, _ name: StaticString) {
    line { $0.begin(time, name) }
  }

  /// A member `,"key":value`, its text before the value given as one literal.
  private mutating func member(_ prefix: StaticString, _ value: Int64) {
    line { $0.member(prefix, value) }
  }

  private mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { text in
      for byte in text { bytes.append(byte) }
    }
  }

  private mutating func integer(_ value: Int64) {
    line { $0.integer(value) }
  }

  /// Builds up to ``LineBuffer/capacity`` bytes straight into `bytes`' spare capacity (growing
  /// it first only if less than that is spare), and counts in what was written.
  ///
  /// Writing in place spares each line a copy from a stack buffer: `append(contentsOf:)` and its
  /// `memcpy` were a ninth of the recorder's writer (Benchmarks/README.md, "Figures behind the
  /// code"). A buffer with that much spare capacity reserved takes a line without allocating (the crash
  /// path's case).
  private mutating func line(_ build: (inout LineBuffer) -> Void) {
    #if compiler(>=6.2)
      bytes.append(addingCapacity: LineBuffer.capacity) { span in
        span.withUnsafeMutableBufferPointer { spare, written in
          guard let base = spare.baseAddress else { return }
          var line = LineBuffer(base: base + written)
          build(&line)
          written &+= line.count
        }
      }
    #else
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: LineBuffer.capacity) { scratch in
        guard let base = scratch.baseAddress else { return }
        var line = LineBuffer(base: base)
        build(&line)
        bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: line.count))
      }
    #endif
  }

  /// A JSON string, escaped by the rule all the package's JSON shares (``JSONEscaping``).
  private mutating func string(_ text: String) { JSONEscaping.appendQuoted(text, to: &bytes) }

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
}

/// Fixed text and numbers written straight into memory: no capacity checks per byte. The
/// encoder builds its lines in it; ``JSONWriter`` writes its integers with it.
///
/// The longest line built here (a schedule with every field at its largest) is under 260 bytes.
struct LineBuffer {
  static let capacity = 320
  let base: UnsafeMutablePointer<UInt8>
  var count = 0

  init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

  @inline(__always)
  mutating func byte(_ value: UInt8) {
    base[count] = value
    count += 1
  }

  @inline(__always)
  mutating func raw(_ text: StaticString) {
    guard text.hasPointerRepresentation else {
      return text.withUTF8Buffer { text in
        for value in text { byte(value) }
      }
    }
    // Inlined with a literal, the length is a constant and the copy a few moves.
    let length = text.utf8CodeUnitCount
    (base + count).update(from: text.utf8Start, count: length)
    count &+= length
  }

  @inline(__always)
  mutating func begin(_ time: Int64, _ name: StaticString) {
    raw("{\"t\":")
    integer(time)
    raw(",\"e\":\"")
    raw(name)
    byte(UInt8(ascii: "\""))
  }

  /// A member whose text before the value, `,"key":`, is one literal: one copy, not the
  /// punctuation a byte at a time around the key.
  @inline(__always)
  mutating func member(_ prefix: StaticString, _ value: Int64) {
    raw(prefix)
    integer(value)
  }

  /// Writes `value` in decimal.
  ///
  /// In chunks of eight digits, each split into pairs with 32-bit arithmetic and written two
  /// bytes at a time from a table: a timestamp of nine or ten digits takes two divisions of a
  /// 64-bit number and six of a 32-bit one, where one pair at a time from the end took five
  /// 64-bit divisions and a chain of comparisons to count the digits first (a quarter of the
  /// recorder's writer: Benchmarks/README.md, "Figures behind the code").
  mutating func integer(_ value: Int64) {
    if value < 0 { byte(UInt8(ascii: "-")) }
    let magnitude = value.magnitude
    if magnitude < 100_000_000 { return upToEightDigits(UInt32(truncatingIfNeeded: magnitude)) }
    let high = magnitude / 100_000_000
    if high < 100_000_000 {
      upToEightDigits(UInt32(truncatingIfNeeded: high))
    } else {
      // Past 10^16: a magnitude of Int64 has at most 19 digits, so this chunk has at most 3.
      upToEightDigits(UInt32(truncatingIfNeeded: high / 100_000_000))
      eightDigits(UInt32(truncatingIfNeeded: high % 100_000_000))
    }
    eightDigits(UInt32(truncatingIfNeeded: magnitude % 100_000_000))
  }

  /// `value` (below 10^8) with no leading zeros.
  @inline(__always)
  private mutating func upToEightDigits(_ value: UInt32) {
    if value < 100 {
      if value < 10 { return byte(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0")) }
      return pair(value)
    }
    if value < 10_000 { return upToFourDigits(value) }
    upToFourDigits(value / 10_000)
    fourDigits(value % 10_000)
  }

  /// `value` (below 10^4) with no leading zeros.
  @inline(__always)
  private mutating func upToFourDigits(_ value: UInt32) {
    if value < 100 {
      if value < 10 { return byte(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0")) }
      return pair(value)
    }
    let high = value / 100
    if high < 10 {
      byte(UInt8(truncatingIfNeeded: high) &+ UInt8(ascii: "0"))
    } else {
      pair(high)
    }
    pair(value % 100)
  }

  /// `value` (below 10^8) as exactly eight digits.
  @inline(__always)
  private mutating func eightDigits(_ value: UInt32) {
    fourDigits(value / 10_000)
    fourDigits(value % 10_000)
  }

  /// `value` (below 10^4) as exactly four digits.
  @inline(__always)
  private mutating func fourDigits(_ value: UInt32) {
    pair(value / 100)
    pair(value % 100)
  }

  /// `value` (below 100) as exactly two digits, in one two-byte copy from the table.
  @inline(__always)
  private mutating func pair(_ value: UInt32) {
    let digits = UnsafeRawPointer(Self.digitPairs.utf8Start)
      .loadUnaligned(fromByteOffset: Int(value) &* 2, as: UInt16.self)
    UnsafeMutableRawPointer(base + count).storeBytes(of: digits, as: UInt16.self)
    count &+= 2
  }

  /// "00" to "99", each pair at twice its value.
  private static let digitPairs: StaticString = """
    00010203040506070809101112131415161718192021222324252627282930313233343536373839\
    40414243444546474849505152535455565758596061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899
    """
}
