import Foundation
import Scheduling
import Synchronization
import TraceFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes what recorded schedulers do to a trace file, cheaply and safely.
///
/// ```swift
/// let recorder = try TraceRecorder(path: "/tmp/app.trace", metadata: ["build": "1.4.2"])
/// let factory = RecordingSchedulerFactory(wrapping: DispatchSchedulerFactory(), recorder: recorder)
/// // … the app runs on `factory` …
/// recorder.mark("login tapped", ["user": "ada"])
/// recorder.close()
/// ```
///
/// How it stays cheap and safe:
/// - **Hot path.** Recording an event takes a timestamp and appends a fixed-size record to the
///   calling thread's own buffer under a lock only the writer ever contends for. No I/O, no
///   formatting, no global lock.
/// - **Writer.** A background thread turns buffered records into JSON lines and writes them at
///   least every ``flushInterval``, on ``flush()``, on ``close()`` and when the process exits
///   normally.
/// - **Bounded memory.** Each thread buffers at most `bufferCapacity` events between flushes (a
///   half-full buffer wakes the writer early); past that, events are dropped and counted: each
///   flush that saw drops writes a `dropped` line, and the end marker carries the total.
/// - **Crash safety.** Every flush goes straight to the kernel with `write(2)`, so a process
///   killed outright leaves a trace holding everything older than the flush interval; at worst
///   its last line is cut short, which readers treat as a warning.
/// - **Errors.** A failed write is reported once to `onError`; the app keeps running and later
///   events are counted as dropped.
public final class TraceRecorder: Sendable {
  /// How often the background writer flushes.
  public static let flushInterval: Duration = .milliseconds(100)

  let clock: TraceClock
  private let origin: Int64
  private let bufferCapacity: Int
  private let nextAction = Atomic<UInt32>(0)
  private let nextScheduler = Atomic<UInt32>(0)
  private let localBuffer: ThreadLocal<ThreadBuffer?>
  private let buffers = Mutex<[ThreadBuffer]>([])
  private let definitions = Mutex<Definitions>(Definitions())
  private let writer: Mutex<TraceWriter>
  private let stopping = Atomic<Bool>(false)
  // Signalled to make the writer flush before its interval is up: on close, and when a thread's
  // buffer is half full.
  private let wakeUp = DispatchSemaphore(value: 0)

  struct Definitions {
    var schedulers: [SchedulerRecord] = []
    var marks: [(index: UInt32, record: MarkRecord)] = []
    var markCount: UInt32 = 0
  }

  /// Opens (creating or truncating) `path` and writes the header.
  ///
  /// - Parameters:
  ///   - path: Where the trace goes.
  ///   - clock: Host time, or a virtual clock for traces of tests.
  ///   - metadata: Free-form key/values for the header (app version, test name…).
  ///   - bufferCapacity: The most events one thread buffers between flushes before dropping.
  ///   - onError: Called once, from the writer, if writing fails.
  /// - Throws: ``TraceRecorderError`` if the file cannot be opened.
  public init(
    path: String, clock: TraceClock = .host, metadata: [String: String] = [:],
    bufferCapacity: Int = 1 << 16, onError: @escaping @Sendable (String) -> Void = { _ in }
  ) throws(TraceRecorderError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
    }
    self.clock = clock
    origin = clock.nanoseconds()
    self.bufferCapacity = max(bufferCapacity, 1)
    localBuffer = ThreadLocal { nil }
    let header = TraceHeader(
      clock: clock.kind, start: Date().formatted(.iso8601),
      process: ProcessInfo.processInfo.processName,
      pid: Int64(ProcessInfo.processInfo.processIdentifier), metadata: metadata)
    writer = Mutex(TraceWriter(descriptor: descriptor, path: path, onError: onError))
    writer.withLock { $0.writeHeader(header) }
    startWriterThread()
    RecorderRegistry.shared.add(self)
  }

  deinit { close() }

  // MARK: - Public API

  /// Marks a moment in the trace, such as a user action, with optional details.
  public func mark(_ name: String, _ fields: [String: String] = [:]) {
    let index = definitions.withLock { definitions in
      defer { definitions.markCount += 1 }
      definitions.marks.append((definitions.markCount, MarkRecord(name: name, fields: fields)))
      return definitions.markCount
    }
    let buffer = currentBuffer()
    buffer.append(.mark(time: now(), thread: buffer.threadID, mark: index))
  }

  /// Writes everything recorded so far to the file before returning.
  public func flush() {
    writer.withLock { drain(into: &$0) }
  }

  /// Flushes, writes the end marker with the counts of events written and dropped, and closes
  /// the file. Later events are ignored; calling it again does nothing.
  public func close() {
    guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
    wakeUp.signal()
    writer.withLock { writer in
      drain(into: &writer, final: true)
      writer.close(time: now())
    }
    RecorderRegistry.shared.remove(self)
  }

  /// Counts so far: events written to the file and events dropped.
  public var counts: (written: Int64, dropped: Int64) {
    writer.withLock { ($0.written, $0.dropped) }
  }

  // MARK: - Hot path (for RecordingScheduler)

  @inline(__always)
  func now() -> Int64 { clock.nanoseconds() &- origin }

  func makeActionID() -> UInt32 { nextAction.add(1, ordering: .relaxed).newValue }

  /// The calling thread's buffer, made and registered on its first event.
  @inline(__always)
  func currentBuffer() -> ThreadBuffer {
    if let buffer = localBuffer.withValue({ $0 }) { return buffer }
    let wakeUp = self.wakeUp
    let buffer = ThreadBuffer(
      threadID: ThreadIdentity.currentID(), threadName: ThreadIdentity.currentName(),
      capacity: bufferCapacity, onHalfFull: { wakeUp.signal() })
    localBuffer.withValue { $0 = buffer }
    buffers.withLock { $0.append(buffer) }
    return buffer
  }

  func registerScheduler(label: String, kind: SchedulerKind, family: SchedulerFamily) -> UInt32 {
    let id = nextScheduler.add(1, ordering: .relaxed).newValue
    let record = SchedulerRecord(
      id: id, label: label, kind: kind.rawValue, family: family.rawValue, time: now())
    definitions.withLock { $0.schedulers.append(record) }
    return id
  }

  // MARK: - Writer

  private func startWriterThread() {
    let interval =
      Double(Self.flushInterval.components.attoseconds) / 1e18
      + Double(Self.flushInterval.components.seconds)
    let wakeUp = self.wakeUp
    let thread = Thread { [weak self] in
      while true {
        // Holds the recorder only while flushing, so that it can be released while we sleep.
        let alive: Bool = {
          guard let recorder = self, !recorder.stopping.load(ordering: .acquiring) else {
            return false
          }
          recorder.flush()
          return true
        }()
        guard alive else { return }
        _ = wakeUp.wait(timeout: .now() + interval)
      }
    }
    thread.name = "chronoscope.trace-writer"
    thread.start()
  }

  /// Moves buffered events into the file. Runs under the writer's lock.
  ///
  /// Events stamped after the drain began stay for the next one: a thread may append such an
  /// event to its buffer after that buffer was taken, while a later event that depends on it
  /// (the begin of an action it scheduled) sits in a buffer taken afterwards. Holding back
  /// everything past the cut keeps causes before effects in the file.
  private func drain(into writer: inout TraceWriter, final: Bool = false) {
    guard writer.isOpen else { return }
    let cutoff = final ? Int64.max : now()
    let definitions = self.definitions.withLock { definitions in
      defer {
        definitions.schedulers.removeAll()
        definitions.marks.removeAll()
      }
      return definitions
    }
    var runs: [[RawEvent]] = []
    var dropped: Int64 = 0
    for buffer in buffers.withLock({ $0 }) {
      var spare: [RawEvent] = []
      spare.reserveCapacity(min(bufferCapacity, 4096))
      dropped += buffer.take(into: &spare)
      if let first = spare.first {
        writer.nameThread(buffer.threadID, buffer.threadName, time: first.event.time)
        runs.append(spare)
      }
    }
    writer.write(runs: runs, upTo: cutoff, definitions: definitions, dropped: dropped)
  }
}

/// Why a recorder could not start.
public enum TraceRecorderError: Error, CustomStringConvertible {
  /// The trace file could not be opened for writing.
  case cannotOpen(path: String, reason: String)

  public var description: String {
    switch self {
    case .cannotOpen(let path, let reason): "cannot open \(path) for writing: \(reason)"
    }
  }
}
