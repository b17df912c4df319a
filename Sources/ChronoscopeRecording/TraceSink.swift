import ChronoscopeTraceFormat

/// Where a ``TraceWriter``'s lines go, and what happens to them on a crash: a plain file, a
/// rotating file or a flight recorder's memory.
///
/// The writer switches on it once per batch (and once per chunk of a big one), never per event:
/// all that differs by sink per event is whether the writer keeps the recorder's action ids and
/// follows the live work, which it reads once, when it is made (see ``keepsIDs``).
enum TraceSink {
  case file(TraceFileSink)
  case rotating(RotatingTraceFileSink)
  case memory(FlightMemorySink)
  /// Lines collected in memory: a spool's conversion (see `TraceSpoolConversion`).
  case buffer(TraceByteSink)
  /// After ``TraceWriter/close(time:)``; and, for a moment, while a case's sink is changed in
  /// place (so that it is the only copy, and its buffers are not copied on write).
  case closed

  /// Whether the writer keeps the recorder's action ids and follows the work live, for a sink
  /// that starts traces part way through a recording: a flight recorder's segments and a
  /// rotating file's files do not start from the recording's start anyway, and a table mapping
  /// ids would grow with every action ever recorded.
  var keepsIDs: Bool {
    switch self {
    case .rotating, .memory: true
    case .file, .buffer, .closed: false
    }
  }

  var isOpen: Bool {
    switch self {
    case .file(let file): file.isOpen
    case .rotating(let rotating): rotating.file.isOpen
    case .memory, .buffer: true
    case .closed: false
    }
  }

  /// Whether a file is open to write the end marker to when the writer closes: not in memory.
  var hasOpenFile: Bool {
    switch self {
    case .file(let file): file.isOpen
    case .rotating(let rotating): rotating.file.isOpen
    case .buffer: true
    case .memory, .closed: false
    }
  }

  /// The descriptor of the file written now, or -1: none open, or it failed (for the crash
  /// path's last resort).
  var currentDescriptor: Int32 {
    switch self {
    case .file(let file): file.failed ? -1 : file.descriptor
    case .rotating(let rotating): rotating.file.failed ? -1 : rotating.file.descriptor
    case .memory, .buffer, .closed: -1
    }
  }

  /// Whether a write failed: the lines of later batches are dropped (counted), unless the sink
  /// starts over (see ``restartAfterFailure(time:written:dropped:context:)``).
  var failed: Bool {
    switch self {
    case .file(let file): file.failed
    case .rotating(let rotating): rotating.file.failed
    case .memory(let memory): memory.failed
    case .buffer, .closed: false
    }
  }

  /// Where the file open now began (a rotating file's): its end marker counts from there.
  var fileStart: (written: Int64, dropped: Int64, contextEvents: Int64) {
    guard case .rotating(let rotating) = self else { return (0, 0, 0) }
    return rotating.fileStart
  }

  /// Runs `body` on the sink, which is then the only copy of its storage.
  private mutating func modify<Result>(
    _ body: (inout TraceFileSink) -> Result,
    rotating: (inout RotatingTraceFileSink) -> Result,
    memory: (inout FlightMemorySink) -> Result,
    closed: Result
  ) -> Result {
    switch self {
    case .file(var sink):
      self = .closed
      defer { self = .file(sink) }
      return body(&sink)
    case .rotating(var sink):
      self = .closed
      defer { self = .rotating(sink) }
      return rotating(&sink)
    case .memory(var sink):
      self = .closed
      defer { self = .memory(sink) }
      return memory(&sink)
    case .buffer, .closed:
      return closed
    }
  }

  /// Writes the header of the trace; false, with the reason in `errno`, if the file takes nothing.
  /// A spool starts with its own first line (see `TraceSpool`).
  mutating func writeHeader(_ header: TraceHeader) -> Bool {
    var encoder = TraceEncoder()
    encoder.header(header)
    if case .buffer(let buffer) = self {
      buffer.append(encoder.bytes)
      return true
    }
    return modify(
      { file in
        var start: [UInt8] = []
        if file.isSpool { TraceSpool.appendStart(header, to: &start) }
        return file.write(
          file.isSpool ? start : encoder.bytes, ends: [], time: 0, crashing: false,
          reporting: false
        ).succeeded
      },
      rotating: { $0.writeHeader(header) }, memory: { _ in true }, closed: false)
  }

  /// Writes `lines`, whose event lines end (after their newline) at `ends`; `time` is the last
  /// line's. Returns how many of the event lines the sink keeps, and whether all of it was
  /// written.
  mutating func write(
    _ lines: [UInt8], ends: [Int], time: Int64, crashing: Bool, reporting: Bool
  ) -> (kept: Int, succeeded: Bool) {
    if case .buffer(let buffer) = self {
      buffer.append(lines)
      return (ends.count, true)
    }
    return modify(
      { $0.write(lines, ends: ends, time: time, crashing: crashing, reporting: reporting) },
      rotating: {
        $0.file.write(lines, ends: ends, time: time, crashing: crashing, reporting: reporting)
      },
      memory: { $0.write(lines, ends: ends, time: time, crashing: crashing, reporting: reporting) },
      closed: (0, true))
  }

  /// A rotating file whose write failed starts over; other sinks stay failed.
  mutating func restartAfterFailure(
    time: Int64, written: Int64, dropped: Int64, context: TraceContext
  ) {
    guard case .rotating = self else { return }
    modify(
      { _ in },
      rotating: {
        $0.restartAfterFailure(time: time, written: written, dropped: dropped, context: context)
      },
      memory: { _ in }, closed: ())
  }

  /// Counts `count` events dropped before they reached the writer (a flight recorder's segment
  /// keeps the count for its dump).
  mutating func noteDropped(_ count: Int64) {
    guard case .memory = self else { return }
    modify({ _ in }, rotating: { _ in }, memory: { $0.noteDropped(count) }, closed: ())
  }

  /// After a batch: a flight recorder starts a new segment, a rotating file a new file, when
  /// the current one is due to end.
  mutating func endBatch(time: Int64, written: Int64, dropped: Int64, context: TraceContext) {
    switch self {
    case .memory:
      modify(
        { _ in }, rotating: { _ in }, memory: { $0.startSegmentIfDue(at: time, context: context) },
        closed: ())
    case .rotating(let rotating) where rotating.isFull:
      modify(
        { _ in },
        rotating: { $0.rotate(time: time, written: written, dropped: dropped, context: context) },
        memory: { _ in }, closed: ())
    case .file, .rotating, .buffer, .closed:
      break
    }
  }

  /// How many encoded bytes the writer writes at once: 1 MiB, or, for a rotating file, what is
  /// left before its size limit (at least one byte, so each file takes a line past its context).
  var chunkLimit: Int {
    guard case .rotating(let rotating) = self else { return 1 << 20 }
    return min(1 << 20, max(rotating.roomLeft, 1))
  }

  /// Part way through a batch: rotates a rotating file that is full.
  mutating func rotateIfFull(time: Int64, written: Int64, dropped: Int64, context: TraceContext) {
    guard case .rotating(let rotating) = self, rotating.isFull else { return }
    modify(
      { _ in },
      rotating: { $0.rotate(time: time, written: written, dropped: dropped, context: context) },
      memory: { _ in }, closed: ())
  }

  /// Writes the window, closed at `end` after `unusedDefinitions`, to `path`: a flight
  /// recorder's; other sinks have none and throw.
  func dump(to path: String, end: Int64, unusedDefinitions: [UInt8]) throws(TraceRecorderError) {
    guard case .memory(let memory) = self else {
      throw .cannotWrite(path: path, reason: "the recorder is closed")
    }
    try memory.dump(to: path, end: end, unusedDefinitions: unusedDefinitions)
  }

  /// Closes the file, if any.
  mutating func close() {
    modify({ $0.close() }, rotating: { $0.file.close() }, memory: { _ in }, closed: ())
  }

  /// The crash path's start: returns whether the lines written next have somewhere to go. A
  /// flight recorder writes its window to its crash dump first. Allocates nothing.
  mutating func beginCrash() -> Bool {
    modify(
      { $0.isOpen && !$0.failed }, rotating: { $0.file.isOpen && !$0.file.failed },
      memory: { $0.beginCrash() }, closed: false)
  }

  /// The crash path's end: nothing more is written, and the file is left to the process's end.
  mutating func endCrash() {
    modify(
      { $0.abandonAfterCrash() }, rotating: { $0.file.abandonAfterCrash() },
      memory: { $0.abandonAfterCrash() }, closed: ())
  }
}

/// The lines of a spool's conversion, collected in memory (see `TraceSpoolConversion`).
// @unchecked Sendable: one conversion makes it, writes it through its one writer and reads it
// afterwards, all on one thread; it is never shared.
final class TraceByteSink: @unchecked Sendable {
  var bytes: [UInt8] = []
  /// Takes what is collected whenever it passes 4 MiB, so that a conversion written to a file
  /// never holds the whole trace; nil to keep it all.
  private let drain: (([UInt8]) -> Void)?

  init(drain: (([UInt8]) -> Void)? = nil) {
    self.drain = drain
  }

  func append(_ lines: [UInt8]) {
    bytes.append(contentsOf: lines)
    if let drain, bytes.count >= 1 << 22 {
      drain(bytes)
      bytes.removeAll(keepingCapacity: true)
    }
  }
}
