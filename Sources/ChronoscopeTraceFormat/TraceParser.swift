import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The line loop behind ``TraceReader``: splits lines, scans each into field slots, turns the
/// slots into events and tables, and runs the semantic checks.
struct TraceParser {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let file: String
  private var diagnostics: [TraceDiagnostic] = []
  private var suppressed = 0
  private var header: TraceHeader?
  private var hasHeader = false
  private var stopped = false
  private var sawEventBeforeHeader = false
  /// Why the file is not a trace at all, once that is clear.
  private var notATrace: String?
  private var firstLineHasNoFormat = false
  private var suppressedErrors = 0
  private var suppressedWarnings = 0

  private var events: [TraceEvent] = []
  private var schedulers: [UInt32: SchedulerRecord] = [:]
  private var callSites: [UInt32: CallSiteRecord] = [:]
  private var threadNames: [UInt32: String] = [:]
  private var marks: [MarkRecord] = []
  private var works: [WorkRecord] = []
  private var taskNames: [UInt64: String] = [:]
  private var closing: Trace.Closing?
  private var crash: Trace.Crash?
  private var closedAt: Int64?
  private var droppedEvents: Int64 = 0
  private var lastDropTime: Int64?
  private var dropList: [TraceDrop] = []
  /// Why the recorder stopped writing, from a `dropped` line's `failed`.
  private var writeFailure: String?
  /// The warning for a final line cut off mid-write, kept past ``TraceReader/maximumDiagnostics``
  /// (see ``TraceReading/fate``).
  private var cutOffLine: TraceDiagnostic?
  /// The warnings for `dropped` lines, as many as ``TraceReader/maximumDiagnostics``, kept past
  /// it too.
  private var drops: [TraceDiagnostic] = []
  private var checks = SemanticChecks()
  /// The latest `t` so far: lines are written in time order, so an earlier one is suspect.
  private var latestTime: Int64 = 0
  /// The last line that was not blank, where a missing end marker is reported.
  private var lastLine = 0
  /// While ``runParallel(workers:progress:)`` compacts: where the events go, and how many are
  /// there.
  private var compaction: (slots: UnsafeMutableBufferPointer<TraceEvent>, count: Int)?

  /// Set when the bytes are a mapped file (``MappedTraceFile``): each pass over them hands back
  /// the pages it has left behind, every this many bytes.
  var pageChunk: Int?
  /// Takes the events as ``runParallel(workers:progress:)`` reads them, instead of the trace.
  var stream: TraceEventStream?

  // One slot per known key, reused across lines.
  private var slots: FieldSlots
  /// The `metadata` or `fields` object of the current line, if it has one.
  private var lineObject: [String: String]?

  /// - Parameter slots: Room for `Key.allCases.count` field slots, valid while parsing.
  init(bytes: UnsafeBufferPointer<UInt8>, file: String, slots: UnsafeMutablePointer<FieldSlot>) {
    self.bytes = bytes
    self.file = file
    self.slots = FieldSlots(storage: slots)
    events.reserveCapacity(bytes.count / 48)
  }

  func result() -> TraceReading {
    var diagnostics = self.diagnostics
    var ending: TraceDiagnostic?
    if header != nil, closing == nil {
      let failed = writeFailure.map {
        "writing the trace failed (\($0)): the recorder stopped here and the app went on; what came after is missing"
      }
      let message =
        crash.map {
          "the process \($0.ending); the trace holds what the recorder had buffered"
        } ?? failed ?? Self.notClosed
      let diagnostic = TraceDiagnostic(
        severity: .warning, file: file, line: lastLine, column: 1, message: message)
      diagnostics.append(diagnostic)
      ending = diagnostic
    }
    let endingFate = [ending, cutOffLine].compactMap { $0 }
    let fate = endingFate + drops
    var counts = (
      errors: suppressedErrors + diagnostics.count { $0.severity == .error },
      warnings: suppressedWarnings + diagnostics.count { $0.severity == .warning }
    )
    if suppressed > 0 {
      diagnostics.append(
        TraceDiagnostic(
          severity: diagnostics.contains { $0.severity == .error } ? .error : .warning, file: file,
          line: diagnostics.last?.line ?? 0, column: 0,
          message: "\(suppressed) more problem(s) not shown"))
    }
    guard let header else {
      var notATrace = self.notATrace
      if diagnostics.isEmpty {
        notATrace = "the file is empty"
        counts.errors += 1
        diagnostics.append(
          TraceDiagnostic(
            severity: .error, file: file, line: 1, column: 1,
            message: "empty file: a trace starts with a chronoscope-trace header line"))
      } else if notATrace == nil, firstLineHasNoFormat {
        notATrace = "the first line has no \"format\":\"chronoscope-trace\""
      }
      var reading = TraceReading(
        trace: nil, diagnostics: diagnostics, notATrace: notATrace, errorCount: counts.errors,
        warningCount: counts.warnings)
      reading.fate = fate
      reading.ending = endingFate
      return reading
    }
    var trace = Trace(
      header: header, events: events, schedulers: schedulers, callSites: callSites,
      threadNames: threadNames, marks: marks, closing: closing)
    trace.droppedEvents = droppedEvents
    trace.lastDropTime = lastDropTime
    trace.drops = dropList
    trace.writeFailure = writeFailure
    trace.works = works
    trace.taskNames = taskNames
    trace.crash = crash
    trace.closedAt = closedAt
    var reading = TraceReading(
      trace: trace, diagnostics: diagnostics, errorCount: counts.errors,
      warningCount: counts.warnings)
    reading.fate = fate
    reading.ending = endingFate
    return reading
  }

  /// The warning for a trace without its end marker.
  static let notClosed =
    "the recording did not close: the process may have crashed or not called close(); the last moments may be missing"

  // MARK: - Lines

  mutating func run(progress: ((Double) -> Void)?) {
    var start = 0
    var line = 0
    let total = bytes.count
    while start < total, !stopped {
      line += 1
      start = parseLine(number: line, at: start)
      if let progress, line & 0xFFFF == 0 { progress(Double(start) / Double(total)) }
    }
    progress?(1)
  }

  /// Where the line starting at `start` ends (its newline, or the end of the bytes), where its
  /// content ends (before a `\r`), and whether it has a newline.
  private func lineBounds(at start: Int) -> (end: Int, contentEnd: Int, hasNewline: Bool) {
    Self.lineBounds(in: bytes, at: start)
  }

  fileprivate static func lineBounds(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (
    end: Int, contentEnd: Int, hasNewline: Bool
  ) {
    // Past the end, a line is empty: a file another process shrank or rewrote while it was read
    // (see `MappedFileFaults`) may hold fewer lines than a first pass over it counted.
    let start = min(start, bytes.count)
    guard let base = bytes.baseAddress else { return (start, start, false) }
    let newline = memchr(base + start, 0x0A, bytes.count - start)
    let end =
      newline.map { UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self) - base }
      ?? bytes.count
    var contentEnd = end
    if contentEnd > start, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
    return (end, contentEnd, newline != nil)
  }

  /// Parses line number `line`, which starts at `start`; returns where the next one starts.
  private mutating func parseLine(number line: Int, at start: Int) -> Int {
    let start = min(start, bytes.count)
    let (end, contentEnd, hasNewline) = lineBounds(at: start)
    parseLine(line, start, contentEnd, isLastWithoutNewline: !hasNewline)
    return end + 1
  }

  // MARK: - On several cores

  /// Parses as ``run(progress:)`` does — the same trace, the same diagnostics in the same order
  /// — with the reading of runtime-event lines spread over `workers` threads.
  ///
  /// The header is read first, line by line. The rest is cut into stretches at line starts,
  /// several per thread, and the threads take them in order and decode the lines that take the
  /// fast path (a line as the encoder writes it, a runtime event but a mark, decoding without
  /// error) straight into the event array, at the line's index: what a line decodes to depends
  /// on that line alone. Behind them, on the calling thread, one pass in line order does what
  /// depends on the lines before: the time-order and end-marker checks, the semantic checks,
  /// the tables, and every line the fast path left — definitions, marks, errors, a line dated
  /// before the one above it — exactly as ``run`` would, compacting the events towards the
  /// front as it goes (a line makes at most one event, so nothing is overwritten before it is
  /// read). It takes each stretch once it is decoded, and decodes the next one itself while it
  /// waits, so the ordered pass overlaps the decoding instead of following it. Memory: one event
  /// slot per line.
  mutating func runParallel(workers: Int, progress: ((Double) -> Void)?) {
    let total = bytes.count
    var start = 0
    var line = 0
    while start < total, !stopped, !hasHeader {
      line += 1
      start = parseLine(number: line, at: start)
    }
    guard workers > 1, hasHeader, !stopped, events.isEmpty, start < total else {
      while start < total, !stopped {
        line += 1
        start = parseLine(number: line, at: start)
      }
      progress?(1)
      return
    }
    // Streamed only when there will be a trace: a header line with an error still starts the
    // events (`hasHeader`), but leaves no header, so reading makes no trace of them.
    let stream = header == nil ? nil : self.stream
    // Streamed, the events of a stretch are handed over as soon as the ordered pass is through
    // it, so the stretches are smaller (about 2 MB of lines each) and the decoding threads are
    // kept a few of them ahead: the events in memory at once are then those few stretches'.
    let count =
      stream == nil
      ? workers * Self.stretchesPerWorker
      : max(workers * Self.stretchesPerWorker, (total - start) / Self.streamedStretchBytes)
    let stretches = Self.stretches(of: bytes, from: start, count: count, pageChunk: pageChunk)
    let firstLines = stretches.reduce(into: [0]) { $0.append($0[$0.count - 1] + $1.lines) }
    let lines = firstLines[firstLines.count - 1]
    var decoded = [Bool](repeating: false, count: lines)
    var checkpoints = [Int](repeating: 0, count: (lines >> Self.checkpointShift) + 1)
    let linesBefore = line
    let pageChunk = self.pageChunk
    stream?.reserve(events: lines)
    events = [TraceEvent](unsafeUninitializedCapacity: lines) { slots, initialized in
      decoded.withUnsafeMutableBufferPointer { decoded in
        checkpoints.withUnsafeMutableBufferPointer { checkpoints in
          let decoding = Decoding(
            bytes: bytes, events: slots, decoded: decoded, checkpoints: checkpoints,
            stretches: stretches, firstLines: firstLines, pageChunk: pageChunk,
            lead: stream == nil ? nil : workers * Self.streamedLeadPerWorker)
          for _ in 1..<workers {
            DispatchQueue.global(qos: .userInitiated).async { decoding.decodeWhileAny() }
          }
          compaction = (slots, 0)
          // This pass touches the bytes only for the lines it reads in full. The decoding
          // threads handed their pages back; the few read again here are handed back behind it.
          var release = pageChunk.map { PageRelease(bytes, from: start, chunk: $0) }
          // Streamed, the slots' pages are handed back behind the events handed over: nothing
          // writes below the compaction's count again.
          var streamed = 0
          var slotRelease =
            stream == nil
            ? nil
            : PageRelease(
              UnsafeRawBufferPointer(slots), from: 0, chunk: PageRelease.defaultChunk)
          // And the flags of the lines read (a byte a line), which nothing reads again.
          var flagRelease =
            stream == nil
            ? nil
            : PageRelease(
              UnsafeRawBufferPointer(decoded), from: 0, chunk: PageRelease.defaultChunk)
          // The line `cursor.index` starts at `cursor.position`.
          var cursor = (index: 0, position: start)
          stretchLoop: for stretch in stretches.indices {
            decoding.waitFor(stretch)
            defer { decoding.passed(stretch) }
            for index in firstLines[stretch]..<firstLines[stretch + 1] {
              let number = linesBefore + 1 + index
              if decoded[index], takeDecoded(slots[index], number) { continue }
              let block = index >> Self.checkpointShift
              if block != cursor.index >> Self.checkpointShift {
                cursor = (block << Self.checkpointShift, checkpoints[block])
              }
              while cursor.index < index {
                cursor = (cursor.index + 1, lineBounds(at: cursor.position).end + 1)
              }
              cursor = (index + 1, parseLine(number: number, at: cursor.position))
              release?.passed(cursor.position)
            }
            if let stream, let count = compaction?.count, count > streamed {
              guard stream.take(UnsafeBufferPointer(rebasing: slots[streamed..<count])) else {
                decoding.stopTaking()
                break stretchLoop
              }
              streamed = count
              slotRelease?.passed(streamed * MemoryLayout<TraceEvent>.stride)
            }
            flagRelease?.passed(firstLines[stretch + 1])
            progress?(Double(stretch + 1) / Double(stretches.count))
          }
          // Every stretch was decoded before the pass read it, or will never be taken; the
          // threads have stopped taking them, so nothing touches the buffers after this returns.
          decoding.waitForThreads(workers - 1)
          release?.passed(bytes.count, final: true)
        }
      }
      // Streamed, the events were handed over (or refused, and reading stopped): none is kept.
      // (`TraceEvent` holds no reference, so leaving the slots uninitialized leaks nothing.)
      initialized = stream == nil ? compaction?.count ?? 0 : 0
      compaction = nil
    }
    progress?(1)
  }

  /// Stretches per thread: enough that the ordered pass can start on the first while the rest
  /// are decoded, and that the threads finish at nearly the same time.
  private static let stretchesPerWorker = 16

  /// Streamed, a stretch is about this many bytes of lines (about 28,000 events, 1.3 MB of
  /// them).
  private static let streamedStretchBytes = 2 << 20

  /// Streamed, how many stretches each thread may decode ahead of the ordered pass.
  private static let streamedLeadPerWorker = 2

  /// Line `index` starts at `checkpoints[index >> checkpointShift]` plus as many lines as
  /// `index` has low bits: the ordered pass finds the lines it reads in full from there,
  /// without passing over the bytes of every line again.
  private static let checkpointShift = 10

  /// The stretches' decoding, shared by the threads that decode and the ordered pass: the
  /// bytes, one event slot per line, a flag per line saying whether its slot holds the line's
  /// event, where every 1024th line starts, and which stretch is next to take. Each stretch is
  /// decoded by one thread, which writes only its lines' slots, flags and checkpoints and then
  /// signals it done; the ordered pass reads a stretch only after that.
  private final class Decoding: @unchecked Sendable {
    // @unchecked Sendable: the buffers are written as above, each stretch by the one thread
    // that took it (`next` hands each out once), and read after its semaphore is signalled.
    let bytes: UnsafeBufferPointer<UInt8>
    let events: UnsafeMutableBufferPointer<TraceEvent>
    let decoded: UnsafeMutableBufferPointer<Bool>
    let checkpoints: UnsafeMutableBufferPointer<Int>
    let stretches: [(start: Int, end: Int, lines: Int)]
    let firstLines: [Int]
    let pageChunk: Int?
    private let next = Atomic<Int>(0)
    private let done: [DispatchSemaphore]
    private let finished = DispatchSemaphore(value: 0)
    /// With a lead, one unit per stretch that may be taken before the ordered pass is through
    /// the stretches before it: taking a stretch uses a unit, and the ordered pass gives one
    /// back as it leaves each stretch. Nil: no limit.
    private let budget: DispatchSemaphore?
    /// Set when the ordered pass stops early: no stretch is taken after it.
    private let stopped = Atomic<Bool>(false)

    /// - Parameter lead: How many stretches may be decoded ahead of the ordered pass (nil: all).
    init(
      bytes: UnsafeBufferPointer<UInt8>, events: UnsafeMutableBufferPointer<TraceEvent>,
      decoded: UnsafeMutableBufferPointer<Bool>, checkpoints: UnsafeMutableBufferPointer<Int>,
      stretches: [(start: Int, end: Int, lines: Int)], firstLines: [Int], pageChunk: Int?,
      lead: Int?
    ) {
      self.bytes = bytes
      self.events = events
      self.decoded = decoded
      self.checkpoints = checkpoints
      self.stretches = stretches
      self.firstLines = firstLines
      self.pageChunk = pageChunk
      // Made empty and filled: libdispatch traps when a semaphore is freed holding less than
      // it was made with, as this one may when the pass stops early.
      budget = lead.map { lead in
        let semaphore = DispatchSemaphore(value: 0)
        for _ in 0..<max(lead, 1) { semaphore.signal() }
        return semaphore
      }
      done = stretches.map { _ in DispatchSemaphore(value: 0) }
    }

    /// Takes the next stretch no thread has taken and decodes it; false when none is left, or
    /// when the lead is used up and `waiting` is false.
    ///
    /// The units never run out for the stretch the ordered pass waits for: stretches are taken
    /// in order, so while it is not taken, every one before it is through the pass and has
    /// given its unit back.
    func decodeNext(waiting: Bool) -> Bool {
      if let budget {
        if waiting {
          budget.wait()
        } else if budget.wait(timeout: .now()) == .timedOut {
          return false
        }
      }
      let stretch = next.add(1, ordering: .relaxed).oldValue
      guard stretch < stretches.count, !stopped.load(ordering: .relaxed) else {
        budget?.signal()  // for another thread waiting on it
        return false
      }
      TraceParser.decodeStretch(
        stretches[stretch], firstLine: firstLines[stretch], into: self, pageChunk: pageChunk)
      done[stretch].signal()
      return true
    }

    /// A decoding thread's work: stretches until none is left.
    func decodeWhileAny() {
      while decodeNext(waiting: true) {}
      finished.signal()
    }

    /// Returns once `stretch` is decoded, decoding the stretches after it meanwhile, as far as
    /// the lead allows (the ordered pass's thread).
    func waitFor(_ stretch: Int) {
      while done[stretch].wait(timeout: .now()) == .timedOut {
        guard decodeNext(waiting: false) else {
          done[stretch].wait()
          return
        }
      }
    }

    /// The ordered pass is through `stretch`: one more may be taken.
    func passed(_ stretch: Int) {
      budget?.signal()
    }

    /// The ordered pass stops here: the threads take no more stretches, and those waiting for
    /// a unit are woken to see it.
    func stopTaking() {
      stopped.store(true, ordering: .relaxed)
      budget?.signal()
    }

    /// Waits until `count` decoding threads have stopped.
    func waitForThreads(_ count: Int) {
      for _ in 0..<count { finished.wait() }
    }
  }

  /// `count` stretches of the bytes from `start`, each starting at a line's start, with their
  /// line counts (a last line without a newline counts). With `pageChunk`, the bytes are a
  /// mapped file whose pages are handed back behind the counting: else the whole file is in
  /// memory at once, next to the events decoded from it (the file is read again from the page
  /// cache, a few pages per fault).
  private static func stretches(
    of bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int, pageChunk: Int?
  ) -> [(start: Int, end: Int, lines: Int)] {
    var starts = [start]
    for index in 1..<count {
      let target = max(start + (bytes.count - start) * index / count, starts[starts.count - 1])
      let next = lineBounds(in: bytes, at: target).end + 1
      if next < bytes.count, next > starts[starts.count - 1] { starts.append(next) }
    }
    starts.append(bytes.count)
    let bounds = starts
    // Their lines, counted on as many threads.
    let counts = [Int](unsafeUninitializedCapacity: starts.count - 1) { counts, initialized in
      let shared = SharedCounts(bytes: bytes, counts: counts)
      DispatchQueue.concurrentPerform(iterations: starts.count - 1) { index in
        var lines = 0
        var position = bounds[index]
        var release = pageChunk.map { PageRelease(shared.bytes, from: position, chunk: $0) }
        while position < bounds[index + 1] {
          position = lineBounds(in: shared.bytes, at: position).end + 1
          lines += 1
          release?.passed(position)
        }
        release?.passed(bounds[index + 1], final: true)
        shared.counts.initializeElement(at: index, to: lines)
      }
      initialized = starts.count - 1
    }
    return counts.indices.map { (starts[$0], starts[$0 + 1], counts[$0]) }
  }

  private struct SharedCounts: @unchecked Sendable {
    // @unchecked Sendable: the bytes are only read; each thread writes its own count.
    let bytes: UnsafeBufferPointer<UInt8>
    let counts: UnsafeMutableBufferPointer<Int>
  }

  /// Decodes the fast-path lines of one stretch into their slots.
  private static func decodeStretch(
    _ stretch: (start: Int, end: Int, lines: Int), firstLine: Int, into shared: Decoding,
    pageChunk: Int?
  ) {
    var position = stretch.start
    var release = pageChunk.map { PageRelease(shared.bytes, from: stretch.start, chunk: $0) }
    defer { release?.passed(stretch.end, final: true) }
    let checkpointMask = (1 << checkpointShift) - 1
    for index in firstLine..<(firstLine + stretch.lines) {
      if index & checkpointMask == 0 { shared.checkpoints[index >> checkpointShift] = position }
      let (end, contentEnd, hasNewline) = lineBounds(in: shared.bytes, at: position)
      // The ordered pass reads every other line in full: a last line without a newline, too.
      if hasNewline, let event = CanonicalLine.decode(shared.bytes, from: position, to: contentEnd)
      {
        shared.events.initializeElement(at: index, to: event)
        shared.decoded[index] = true
      }
      position = end + 1
      release?.passed(position)
    }
  }

  /// Appends the event the fast path decoded from line `line` (``CanonicalLine``) if nothing
  /// before it makes the line worth a word — it is not after the end marker nor dated before the
  /// line above — and says whether it did; if not, the line must be read in full, which words
  /// the warning.
  private mutating func takeDecoded(_ event: TraceEvent, _ line: Int) -> Bool {
    guard closing == nil, event.time >= latestTime else { return false }
    lastLine = line
    latestTime = event.time
    append(event, line)
    return true
  }

  private mutating func parseLine(_ line: Int, _ start: Int, _ end: Int, isLastWithoutNewline: Bool)
  {
    if end - start > TraceReader.maximumLineLength {
      // A header that is too long is the reason the file reads as no trace: say so, rather
      // than that the next line has no "format".
      if lastLine == 0, !hasHeader {
        stop(
          notATrace:
            "the first line is \(end - start) bytes long; lines longer than \(TraceReader.maximumLineLength) bytes are not read",
          line, 1)
        return
      }
      report(
        .error, line, 1,
        "line is \(end - start) bytes long; lines longer than \(TraceReader.maximumLineLength) bytes are not read"
      )
      return
    }
    if hasHeader, let event = CanonicalLine.decode(bytes, from: start, to: end),
      takeDecoded(event, line)
    {
      return
    }
    var scanner = JSONLineScanner(bytes: bytes, lineStart: start, lineEnd: end)
    // Past the diagnostics shown, a bad line is only counted: its message is not made. A cut-off
    // last line's is: it says how the recording ended.
    scanner.describing =
      isLastWithoutNewline || diagnostics.count < TraceReader.maximumDiagnostics
    scanner.skipWhitespace()
    if scanner.position == end { return }  // blank line
    let isFirstLine = lastLine == 0
    lastLine = line
    do {
      try scan(&scanner)
    } catch {
      // A trace's first line is its JSON header: a file that starts otherwise is something else
      // (source code, a log, a binary), and one error says so better than one per line.
      if isFirstLine, !hasHeader {
        stop(
          notATrace: "the first line is not a JSON object (\(error.message))", line, error.column)
        return
      }
      reportFailure(error, line, isLastWithoutNewline: isLastWithoutNewline)
      return
    }
    do {
      if isFirstLine, !slots.has(.format) { firstLineHasNoFormat = true }
      try interpret(line, scanner)
    } catch {
      reportFailure(error, line, isLastWithoutNewline: isLastWithoutNewline)
    }
  }

  private mutating func stop(notATrace reason: String, _ line: Int, _ column: Int) {
    notATrace = reason
    stopped = true
    report(.error, line, column, "not a chronoscope trace: \(reason)")
  }

  private mutating func reportFailure(
    _ error: JSONLineScanner.Failure, _ line: Int, isLastWithoutNewline: Bool
  ) {
    if isLastWithoutNewline {
      let message =
        "truncated final line (the recording was cut off mid-write) ignored: \(error.message)"
      cutOffLine = TraceDiagnostic(
        severity: .warning, file: file, line: line, column: error.column, message: message)
      report(.warning, line, error.column, message)
    } else {
      report(.error, line, error.column, error.message)
    }
  }

  /// Reads the line's object into the slots.
  private mutating func scan(_ scanner: inout JSONLineScanner) throws(JSONLineScanner.Failure) {
    slots.clear()
    lineObject = nil
    try scanner.expect(UInt8(ascii: "{"), "'{' at the start of the line")
    var first = true
    while try scanner.nextMember(first: first) {
      first = false
      let keySlice = try scanner.key()
      scanner.skipWhitespace()
      let column = scanner.column
      let key = Key.lookup(scanner, keySlice)
      if let key, key == .metadata || key == .fields {
        lineObject = try stringObject(&scanner, key: key)
        slots.store(key, FieldSlot(value: .null, column: column))
      } else {
        let value = try scanner.value()
        if let key { slots.store(key, FieldSlot(value: value, column: column)) }
      }
    }
    try scanner.expectEndOfLine()
  }

  private func stringObject(_ scanner: inout JSONLineScanner, key: Key) throws(JSONLineScanner
    .Failure)
    -> [String: String]
  {
    scanner.skipWhitespace()
    let start = scanner.position
    guard start < scanner.lineEnd, scanner.bytes[start] == UInt8(ascii: "{") else {
      let found = try scanner.value()
      throw scanner.failure(
        "\"\(key.name)\" must be an object of strings, found \(found.typeName)", at: start)
    }
    try scanner.expect(UInt8(ascii: "{"), "'{'")
    var object: [String: String] = [:]
    var first = true
    while try scanner.nextMember(first: first) {
      first = false
      let name = try scanner.key()
      scanner.skipWhitespace()
      let column = scanner.position
      guard case .string(let value) = try scanner.value() else {
        throw scanner.failure("values in \"\(key.name)\" must be strings", at: column)
      }
      let text = scanner.text(value)
      guard text.utf8.count <= TraceLimits.maximumStringLength else {
        throw scanner.failure(
          "a value in \"\(key.name)\" is \(text.utf8.count) bytes long; strings longer than \(TraceLimits.maximumStringLength) bytes are not read",
          at: column)
      }
      object[scanner.text(name)] = text
    }
    return object
  }

  // MARK: - Meaning

  /// Turns the slots into an event or a table entry.
  private mutating func interpret(_ line: Int, _ scanner: JSONLineScanner)
    throws(JSONLineScanner.Failure)
  {
    let fields = Fields(slots: slots, scanner: scanner, object: lineObject)
    guard hasHeader else {
      if slots.has(.format) {
        try readHeader(fields, line)
      } else {
        let first = !sawEventBeforeHeader
        sawEventBeforeHeader = true
        throw JSONLineScanner.Failure(
          column: 1,
          message: first
            ? "missing header: a trace starts with a {\"format\":\"chronoscope-trace\",…} line"
            : "event before the header")
      }
      return
    }
    if slots.has(.format) {
      throw JSONLineScanner.Failure(column: 1, message: "a second header inside the trace")
    }
    let kind = try fields.eventName()
    let time = try fields.time(.t, in: kind.label)
    if time < latestTime {
      report(
        .warning, line, slots[.t]?.column ?? 1,
        "time goes backwards: \(time) ns after a line at \(latestTime) ns (lines are written in time order)"
      )
    }
    latestTime = max(latestTime, time)
    if closing != nil, kind != .unknown {
      report(.warning, line, 1, "\(kind.label) event after the end marker")
    }
    switch kind {
    case .event(.mark):
      let thread = try fields.uint32(.th, in: "mark")
      let name = try fields.string(.name, in: "mark")
      marks.append(MarkRecord(name: name, fields: fields.object(.fields) ?? [:]))
      append(.mark(time: time, thread: thread, mark: UInt32(marks.count - 1)), line)
    case .event(.work):
      let action = try fields.id(.a, in: "work")
      works.append(
        WorkRecord(
          name: try fields.optionalString(.name) ?? "", fields: fields.object(.fields) ?? [:]))
      append(.work(time: time, action: action, work: UInt32(works.count - 1)), line)
    case .event(let eventKind):
      guard let event = try Self.event(eventKind, time: time, fields) else { break }
      // A task's name, on any of its lines (the fast path takes the lines without one).
      if let task = event.task, taskNames[task] == nil,
        let name = try fields.optionalString(.name)
      {
        taskNames[task] = name
      }
      append(event, line)
    case .scheduler:
      let id = try fields.id(.q, in: "scheduler")
      let record = SchedulerRecord(
        id: id, label: try fields.string(.label, in: "scheduler"),
        kind: try fields.string(.kind, in: "scheduler"),
        family: try fields.string(.family, in: "scheduler"),
        time: time)
      if schedulers[id] != nil { report(.warning, line, 1, "duplicate scheduler id \(id)") }
      schedulers[id] = record
    case .thread:
      threadNames[try fields.uint32(.th, in: "thread")] = try fields.string(.name, in: "thread")
    case .site:
      let id = try fields.id(.site, in: "site")
      let line = try fields.integer(.line, in: "site", range: 0...TraceLimits.maximumSourceLine)
      var code: CodeLocation?
      if let module = try fields.optionalString(.module) {
        let offset = try fields.integer(.offset, in: "site", range: 0...Int64.max)
        let caller = try fields.optionalInteger(.caller)
        if let caller, caller < 0 {
          throw fields.failure(.caller, "field \"caller\" must be 0 or more, found \(caller)")
        }
        code = CodeLocation(
          module: module, offset: UInt64(offset),
          buildID: try fields.optionalString(.buildID) ?? "",
          callerOffset: caller.map { UInt64($0) })
      }
      callSites[id] = CallSiteRecord(
        id: id, file: try fields.string(.file, in: "site"), line: Int(line),
        function: try fields.string(.function, in: "site"), code: code)
    case .close:
      closedAt = time
      closing = Trace.Closing(
        written: try fields.count(.events, in: "close"),
        dropped: try fields.count(.dropped, in: "close"))
    case .dropped:
      let count = try fields.count(.count, in: "dropped")
      // Each count is bounded, their sum is not: it stops at the largest count.
      droppedEvents = min(droppedEvents + count, TraceLimits.maximumCount)
      if count > 0 {
        lastDropTime = time
        dropList.append(TraceDrop(time: time, count: count))
      }
      if let failure = try fields.optionalString(.failed) { writeFailure = failure }
      if count > 0 || writeFailure == nil {
        let message = "the recorder dropped \(count) event(s) here: the trace is incomplete"
        if drops.count < TraceReader.maximumDiagnostics {
          drops.append(
            TraceDiagnostic(severity: .warning, file: file, line: line, column: 1, message: message)
          )
        }
        report(.warning, line, 1, message)
      }
    case .crash:
      crash = Trace.Crash(
        signal: try fields.string(.signal, in: "crash"),
        thread: try fields.uint32(.th, in: "crash"),
        time: time)
    case .unknown:
      break  // A newer writer's event: ignored, as the format promises.
    }
  }

  /// The event a runtime-event line of `kind` at `time` describes, from its fields; nil for a
  /// mark or a work line, whose text goes to the marks or works table. It depends on the line alone, so a line decodes
  /// the same on any thread (see ``runParallel(workers:progress:)``).
  static func event(_ kind: TraceEvent.Kind, time: Int64, _ fields: Fields)
    throws(JSONLineScanner.Failure) -> TraceEvent?
  {
    switch kind {
    case .schedule:
      let mode = try fields.mode()
      let needsDelay = mode == .after || mode == .repeating
      return TraceEvent.schedule(
        time: time, action: try fields.id(.a, in: "schedule"),
        scheduler: try fields.id(.q, in: "schedule"), mode: mode,
        delay: needsDelay ? try fields.time(.delay, in: "schedule") : 0,
        due: try fields.time(.due, in: "schedule"),
        thread: try fields.uint32(.th, in: "schedule"),
        parent: try fields.optionalUInt32(.parent) ?? 0,
        site: try fields.optionalUInt32(.site) ?? 0,
        inline: try fields.optionalBool(.inline) ?? false)
    case .begin:
      return .begin(
        time: time, action: try fields.id(.a, in: "begin"),
        thread: try fields.uint32(.th, in: "begin"), run: try fields.run())
    case .end:
      return .end(
        time: time, action: try fields.id(.a, in: "end"),
        thread: try fields.uint32(.th, in: "end"),
        run: try fields.run(), duration: try fields.time(.dur, in: "end"))
    case .hop:
      return .hop(
        time: time, action: try fields.id(.a, in: "hop"),
        from: try fields.uint32(.from, in: "hop"),
        to: try fields.uint32(.to, in: "hop"))
    case .cancel:
      return .cancel(
        time: time, action: try fields.id(.a, in: "cancel"),
        thread: try fields.uint32(.th, in: "cancel"), by: try fields.optionalUInt32(.by) ?? 0,
        started: try fields.bool(.started, in: "cancel"))
    case .task:
      return .task(
        time: time, action: try fields.id(.a, in: "task"),
        task: UInt64(try fields.integer(.task, in: "task", range: 1...TraceLimits.maximumTime)))
    case .wait:
      return .wait(
        time: time, thread: try fields.uint32(.th, in: "wait"),
        scheduler: try fields.optionalUInt32(.q) ?? 0, duration: try fields.time(.dur, in: "wait"),
        on: try fields.waitObject(), by: try fields.optionalUInt32(.by) ?? 0,
        site: try fields.optionalUInt32(.site) ?? 0)
    case .mark, .work:
      return nil
    }
  }

  private mutating func readHeader(_ fields: Fields, _ line: Int) throws(JSONLineScanner
    .Failure)
  {
    let format = try fields.string(.format, in: "header")
    guard format == "chronoscope-trace" else {
      let reason = "its \"format\" is \"\(format.escapedForMessage)\", not \"chronoscope-trace\""
      notATrace = reason
      stopped = true
      throw fields.failure(.format, "not a chronoscope trace: \(reason)")
    }
    let version = try fields.integer(.version, in: "header")
    guard version == Int64(TraceHeader.currentVersion) else {
      stopped = true
      throw fields.failure(
        .version,
        "unsupported trace version \(version); this chronoscope reads version \(TraceHeader.currentVersion)"
      )
    }
    let clockName = try fields.string(.clock, in: "header")
    guard let clock = TraceHeader.ClockKind(rawValue: clockName) else {
      throw fields.failure(
        .clock, "unknown clock \"\(clockName.escapedForMessage)\" (expected host or virtual)")
    }
    hasHeader = true
    header = TraceHeader(
      version: Int(version), clock: clock, start: try fields.optionalString(.start) ?? "",
      process: try fields.optionalString(.process) ?? "",
      pid: try fields.optionalInteger(.pid) ?? 0,
      metadata: fields.object(.metadata) ?? [:])
    if let cores = try fields.optionalInteger(.cores) {
      guard (1...65_536).contains(cores) else {
        throw fields.failure(.cores, "field \"cores\" must be between 1 and 65536, found \(cores)")
      }
      header?.cores = Int(cores)
    }
    if slots.has(.startNanoseconds) {
      header?.startNanoseconds = try fields.time(.startNanoseconds, in: "header")
    }
    checks.windowStart = header?.sliceWindow?.lowerBound
  }

  private mutating func append(_ event: TraceEvent, _ line: Int) {
    for warning in checks.check(event, schedulers: schedulers, callSites: callSites) {
      report(.warning, line, 1, warning)
    }
    if let (slots, count) = compaction {
      slots.initializeElement(at: count, to: event)
      compaction = (slots, count + 1)
    } else {
      events.append(event)
    }
  }

  private mutating func report(
    _ severity: TraceDiagnostic.Severity, _ line: Int, _ column: Int, _ message: String
  ) {
    guard diagnostics.count < TraceReader.maximumDiagnostics else {
      suppressed += 1
      if severity == .error { suppressedErrors += 1 } else { suppressedWarnings += 1 }
      return
    }
    diagnostics.append(
      TraceDiagnostic(severity: severity, file: file, line: line, column: column, message: message))
  }
}

extension String {
  /// The string with control characters shown as escapes, safe to print in a message.
  var escapedForMessage: String {
    var out = ""
    for scalar in unicodeScalars.prefix(200) {
      if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
        out += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
