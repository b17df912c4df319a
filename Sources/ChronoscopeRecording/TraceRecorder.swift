import ChronoscopeScheduling
import ChronoscopeTraceFormat
import Foundation
import Synchronization

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
/// - **Hot path.** Recording an event takes a timestamp and appends a 48-byte record to the
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
///   its last line is cut short, which readers treat as a warning. A process that crashes
///   (SIGSEGV, SIGBUS, SIGILL — Swift's traps —, SIGABRT, SIGTRAP) writes what its threads had
///   buffered and a `crash` line first, then the crash goes on to the handler installed before
///   (Swift's backtracer): the crashing action's schedule and begin are in the file. The handler
///   runs on an alternate signal stack, which each thread gets when it first records, so a stack
///   overflow in a recorded action is written too.
/// - **Errors.** A failed write is reported once to `onError`; the app keeps running. The file
///   is cut back to its last whole line and ends, when the room freed allows, with a line saying
///   why (readers then report a failed write, not a crash); a rotating file starts anew at the
///   next flush. A FIFO's reader that takes nothing for 2 s counts as a failed write. The lines
///   that reached the file count as written, everything else as dropped, so ``counts`` always
///   matches the file.
/// - **Closing.** ``close()`` (or releasing the recorder) writes the end marker. Events recorded
///   after that — say, the end of an action still running on another thread — are not written:
///   close once the work you want recorded has finished.
public final class TraceRecorder: Sendable {
  /// How often the background writer flushes (``TraceDrop/writeInterval``, which readers of a
  /// `dropped` line go by).
  public static let flushInterval: Duration = .nanoseconds(TraceDrop.writeInterval)

  /// The state shared with the writer thread and the schedulers. Nothing holds the recorder
  /// weakly, so retaining it stays on the runtime's fast path.
  let core: RecorderCore

  /// Opens (creating or truncating) `path` and writes the header.
  ///
  /// The recorder keeps the rules the kernel keeps for core dumps: it makes a new file without
  /// following a link put there meanwhile; writes over a regular file only when it is the
  /// user's own and no other recorder is writing it (an advisory `flock`, so two processes given
  /// one path never interleave their lines); writes a device, FIFO or socket in place, never
  /// truncating, renaming or deleting it (and never rotating it); and follows a symbolic link
  /// only to such a stream (`/dev/stdout`), refusing one to a regular file or to nothing.
  ///
  /// - Parameters:
  ///   - path: Where the trace goes.
  ///   - clock: Host time, or a virtual clock for traces of tests.
  ///   - metadata: Free-form key/values for the header (app version, test name…).
  ///   - bufferCapacity: The most events one thread buffers between flushes before dropping.
  ///   - rotation: Keeps the file under a size: past it, the file is closed and renamed
  ///     (`app.trace` → `app.1.trace`), and a new one starts; nil to let it grow. Needs a
  ///     regular file at `path`.
  ///   - onError: Called once, from the writer's thread (or the thread calling `flush()` or
  ///     `close()`), if a write fails after the header; the events that did not reach the file
  ///     are counted as dropped.
  /// - Throws: ``TraceRecorderError`` if the file cannot be opened by those rules, or its header
  ///   written.
  public convenience init(
    path: String, clock: TraceClock = .host, metadata: [String: String] = [:],
    bufferCapacity: Int = 1 << 16, rotation: TraceRotation? = nil,
    onError: @escaping @Sendable (String) -> Void = { _ in }
  ) throws(TraceRecorderError) {
    try self.init(
      path: path, clock: clock, metadata: metadata, bufferCapacity: bufferCapacity,
      onError: onError, backgroundWriter: true, rotation: rotation)
  }

  /// Opens `path` for a recording that comes out the same byte for byte every time it is made
  /// from the same virtual-time run: the header's `start` is left empty and its `pid` is 0,
  /// the two things that would differ. The writer's own output does not depend on when it
  /// flushes (see `TraceWriter`), so only the run itself decides the file.
  package convenience init(
    reproduciblePath path: String, clock: TraceClock, metadata: [String: String]
  ) throws(TraceRecorderError) {
    try self.init(
      path: path, clock: clock, metadata: metadata, bufferCapacity: 1 << 16, onError: { _ in },
      backgroundWriter: true, reproducible: true)
  }

  /// Makes a recorder; without a background writer only `flush()` and `close()` write, which
  /// lets tests fill buffers deterministically.
  convenience init(
    path: String, clock: TraceClock, metadata: [String: String], bufferCapacity: Int,
    onError: @escaping @Sendable (String) -> Void, backgroundWriter: Bool,
    reproducible: Bool = false, rotation: TraceRotation? = nil, spool: Bool = false
  ) throws(TraceRecorderError) {
    self.init(
      core: try RecorderCore(
        path: path, clock: clock, metadata: metadata, bufferCapacity: bufferCapacity,
        onError: onError, reproducible: reproducible, rotation: rotation, spool: spool),
      backgroundWriter: backgroundWriter)
  }

  init(core: RecorderCore, backgroundWriter: Bool) {
    self.core = core
    if backgroundWriter { core.startWriterThread(interval: Self.flushInterval) }
    RecorderRegistry.shared.add(core)
    core.registerForCrashes()
  }

  deinit { core.close() }

  /// Marks a moment in the trace, such as a user action, with optional details.
  public func mark(_ name: String, _ fields: [String: String] = [:]) {
    core.mark(name, fields)
  }

  /// Writes everything recorded so far to the file before returning.
  public func flush() { core.flush() }

  /// Flushes, writes the end marker with the counts of events written and dropped, and closes
  /// the file. Later events are ignored; calling it again does nothing.
  public func close() { core.close() }

  /// Closes the recorder when the process exits normally (returning from `main` or `exit()`),
  /// so that a recorder the app never holds still ends its trace with a `close` line.
  public func closeAtExit() { RecorderRegistry.shared.closeAtExit(core) }

  /// Moves the recorder's action-id counter on to `value`, so that a test reaches the point
  /// where 32-bit ids go round without recording four billion actions. Threads use up the ids
  /// they already took first.
  package func skipActionIDs(to value: UInt64) { core.skipActionIDs(to: value) }

  /// Counts so far: events written to the file and events dropped.
  public var counts: (written: Int64, dropped: Int64) { core.counts }
}

/// Why a recorder could not start.
public enum TraceRecorderError: Error, CustomStringConvertible {
  /// The trace file could not be opened for writing.
  case cannotOpen(path: String, reason: String)
  /// The trace file opened, but its header could not be written (a full disk, say).
  case cannotWrite(path: String, reason: String)

  public var description: String {
    switch self {
    case .cannotOpen(let path, let reason): "cannot open \(path) for writing: \(reason)"
    case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
    }
  }
}

/// A size cap for a recording to a file: past `maxBytes`, the file is closed and renamed, and a
/// new one starts in its place. The newest file always has the recorder's path; older ones are
/// numbered from 1, newest first (`app.trace`, `app.1.trace`, `app.2.trace`…), and the oldest
/// beyond `keep` is deleted.
///
/// ```swift
/// let recorder = try TraceRecorder(
///   path: "/var/log/server.trace", rotation: TraceRotation(maxBytes: 64 << 20, keep: 3))
/// ```
///
/// Each file is a trace of its own that validates and replays: it opens with the definitions
/// and the live work it refers to (as a ``FlightRecorder``'s dump does), and its header marks
/// it as a window (`slice_from_ns` to `slice_to_ns`), so that a file rotated out does not claim
/// that the app stopped where it ends. A file rotates as soon as a line takes it past
/// `maxBytes`, inside a flush if need be: past the live work it opens with, it holds at most
/// `maxBytes`, that line and its end marker. Action ids are the recorder's own rather than
/// renumbered.
public struct TraceRotation: Sendable, Equatable {
  /// The size past which the file is rotated.
  public var maxBytes: Int
  /// How many older files to keep; 0 keeps only the current one.
  public var keep: Int

  /// Rotates past `maxBytes` (4 KiB at least), keeping `keep` older files.
  public init(maxBytes: Int, keep: Int = 1) {
    self.maxBytes = max(maxBytes, 4_096)
    self.keep = max(keep, 0)
  }
}
