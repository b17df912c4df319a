import ChronoscopeTraceFormat
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a flight recorder's bytes go: the window in memory (``FlightMemory``), written out on a
/// dump or a crash.
///
/// Crash path: the window goes to the crash dump's path, if one was given — after a header made
/// ready outside the crash, whenever the oldest segment changed — and the lines that follow go
/// there as to a plain file (see ``TraceFileSink``). Opening and writing the dump allocates
/// nothing.
struct FlightMemorySink {
  private var memory: FlightMemory
  private let header: TraceHeader
  /// The crash dump's path, made ready outside any crash, and its header.
  private let crashPath: [CChar]?
  private var crashHeader: [UInt8] = []
  /// The crash dump, once the crash path has opened it.
  private var crashFile: TraceFileSink

  init(window: FlightRecorderWindow, header: TraceHeader, crashDumpPath: String?) {
    memory = FlightMemory(window: window)
    self.header = header
    crashPath = crashDumpPath.map { Array($0.utf8CString) }
    crashFile = TraceFileSink(descriptor: -1, path: crashDumpPath ?? "", onError: { _ in })
    prepareCrashHeader()
  }

  /// Whether the crash dump's write failed.
  var failed: Bool { crashFile.failed }

  /// Keeps `lines`, whose event lines end at `ends`; on the crash path, writes them to the crash
  /// dump instead.
  mutating func write(
    _ lines: [UInt8], ends: [Int], time: Int64, crashing: Bool, reporting: Bool
  ) -> (kept: Int, succeeded: Bool) {
    guard crashing else {
      memory.append(lines, events: ends.count)
      return (ends.count, true)
    }
    return crashFile.write(lines, ends: ends, time: time, crashing: true, reporting: reporting)
  }

  mutating func noteDropped(_ count: Int64) { memory.noteDropped(count) }

  /// Closes the newest segment if it is big or old enough at `time`, and opens one that starts
  /// with `context`'s lines.
  mutating func startSegmentIfDue(at time: Int64, context: TraceContext) {
    guard memory.newestIsFull(at: time) else { return }
    let lines = context.lines(at: time)
    memory.startSegment(at: time, context: lines.bytes, contextEvents: lines.events)
    prepareCrashHeader()
  }

  /// The header of a dump whose window starts at the oldest segment and ends at `end`.
  private func dumpHeader(end: Int64) -> TraceHeader {
    var header = header
    let process = header.process.isEmpty ? "process" : header.process
    header.metadata[TraceHeader.sliceSourceKey] =
      "flight recorder of \(process) (pid \(header.pid))"
    header.metadata[TraceHeader.sliceFromKey] = String(memory.segments[0].start)
    header.metadata[TraceHeader.sliceToKey] = String(max(end, memory.segments[0].start))
    return header
  }

  /// The crash dump's header, made whenever the oldest segment changes: a crash must not
  /// allocate. Its window runs to the end of time: the dump ends where the process did.
  private mutating func prepareCrashHeader() {
    guard crashPath != nil else { return }
    var encoder = TraceEncoder()
    encoder.header(dumpHeader(end: TraceLimits.maximumTime))
    crashHeader = encoder.bytes
  }

  /// Writes the window to `path` as a trace of its own, closed at `end`: a header saying which
  /// window it holds, the oldest segment's context, every segment's lines, `unusedDefinitions`
  /// (lines of the definitions nothing used yet), and an end marker. Written as `OutputFile`
  /// writes (a temporary file renamed into place, so a reader never sees half a dump; a device
  /// or FIFO in place).
  func dump(to path: String, end: Int64, unusedDefinitions: [UInt8]) throws(TraceRecorderError) {
    var head = TraceEncoder()
    head.header(dumpHeader(end: end))
    var tail = TraceEncoder()
    tail.bytes = unusedDefinitions
    let counts = memory.counts
    tail.closing(time: end, Trace.Closing(written: counts.events, dropped: counts.dropped))
    FileSizeLimit.survive
    // The recorder's rules for its files (see `TraceOutputFile`): no link to a file, no other
    // user's file; a device or FIFO is written in place, and a FIFO nobody reads refused at once
    // (at exit or on a signal, a dump must never hold the app).
    if let refusal = TraceOutputFile.refusal(forReplacing: path) {
      throw .cannotOpen(path: path, reason: TraceOutputFile.reason(refusal))
    }
    let file: OutputFile
    do throws(OutputFile.Failure) {
      file = try OutputFile(path: path, waitingForReader: false)
    } catch {
      throw .cannotOpen(path: path, reason: error.reason)
    }
    guard
      writeWindow(after: head.bytes, to: file.descriptor)
        && writeAll(file.descriptor, tail.bytes)
    else {
      let reason = String(cString: strerror(errno))
      file.abandon()
      throw .cannotWrite(path: path, reason: reason)
    }
    do throws(OutputFile.Failure) {
      try file.commit()
    } catch {
      throw .cannotWrite(path: path, reason: error.reason)
    }
  }

  /// Writes `header`, the oldest segment's context and every segment's lines to `file`; false
  /// when a write fails. Allocates nothing: the crash path uses it.
  private func writeWindow(after header: [UInt8], to file: Int32) -> Bool {
    guard writeAll(file, header), writeAll(file, memory.segments[0].context) else { return false }
    return memory.segments.allSatisfy { writeAll(file, $0.lines) }
  }

  /// The crash path's start: opens the crash dump and writes the window to it. Returns whether
  /// the lines that follow have somewhere to go (false without a crash dump path).
  mutating func beginCrash() -> Bool {
    guard let crashPath else { return false }
    // By the recorder's rules, without blocking: a FIFO nobody reads would hold the crashed
    // process for ever.
    let file = crashPath.withUnsafeBufferPointer { name in
      name.baseAddress.map { TraceOutputFile.open($0).descriptor } ?? -1
    }
    guard file >= 0 else { return false }
    _ = writeWindow(after: crashHeader, to: file)
    crashFile.adopt(file)
    return !crashFile.failed
  }

  mutating func abandonAfterCrash() { crashFile.abandonAfterCrash() }
}
