import ChronoscopeTraceFormat
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a plain trace file's bytes go: a file descriptor, written with `write(2)`.
///
/// A write that fails stops the file for good: outside a crash the file is cut back to its last
/// whole line and ends with a line saying why (see ``write(_:ends:time:crashing:reporting:)``),
/// and the failure is reported once.
///
/// Crash path: the lines go out with `write(2)` like any others, and nothing is cut back or
/// reported (that would call the app's code); nothing allocates. ``abandonAfterCrash()`` leaves
/// the descriptor to the process's end.
struct TraceFileSink {
  private(set) var descriptor: Int32
  let path: String
  private let onError: @Sendable (String) -> Void
  private(set) var failed = false
  /// Whether a failure was reported: once, however often a rotating file starts again.
  private var reported = false
  /// Bytes written to the file open now.
  private(set) var bytes = 0
  /// Whether the file is a spool (see `TraceSpool`): a failure ends it with a spool record, not
  /// a JSON line.
  let isSpool: Bool

  init(
    descriptor: Int32, path: String, spool: Bool = false,
    onError: @escaping @Sendable (String) -> Void
  ) {
    self.descriptor = descriptor
    self.path = path
    self.isSpool = spool
    self.onError = onError
  }

  var isOpen: Bool { descriptor >= 0 }

  /// Writes `lines`, whose event lines end (after their newline) at `ends`, retrying short
  /// writes. On the first failure, cuts the file back (outside a crash), reports it (when
  /// `reporting`, outside a crash) and stops writing for good.
  ///
  /// - Returns: How many of the event lines the file keeps, and whether all of it was written.
  mutating func write(
    _ lines: [UInt8], ends: [Int], time: Int64, crashing: Bool, reporting: Bool
  ) -> (kept: Int, succeeded: Bool) {
    guard descriptor >= 0, !failed, !lines.isEmpty else { return (0, !failed) }
    let reached = writeReached(descriptor, lines)
    let error = errno
    bytes += reached
    guard reached < lines.count else { return (ends.count, true) }
    failed = true
    // Outside the crash path, the file is cut back to its last whole line and ends with one
    // saying why (when the room freed holds it), so a reader reports a failed write, not a crash.
    // On it, the reason is not even made: that allocates.
    let kept =
      (crashing
        ? nil : endAfterFailure(reached: reached, ends: ends, time: time, reason: reason(error)))
      ?? TraceWriter.linesRead(ending: ends, reached: reached)
    if reporting, !crashing {
      report("chronoscope: writing \(path) failed: \(reason(error)); recording stopped")
    }
    return (kept, false)
  }

  private func reason(_ error: Int32) -> String {
    error == EAGAIN
      ? "the reader took nothing for \(TraceWriter.stallLimitMilliseconds / 1000) s"
      : String(cString: strerror(error))
  }

  /// Calls `onError` with `message`, the first time only.
  mutating func report(_ message: String) {
    guard !reported else { return }
    reported = true
    onError(message)
  }

  /// Opens a new, empty file at ``path`` in place of the one rotated out, by the recorder's rules
  /// (see ``TraceOutputFile``): a link, a stream or another user's file put there meanwhile is
  /// neither written through nor over; false if it cannot be, with the reason in
  /// ``openRefusal``.
  mutating func reopen() -> Bool {
    let opened = path.withCString { TraceOutputFile.open($0) }
    descriptor = opened.descriptor
    openRefusal = opened.refusal
    bytes = 0
    return descriptor >= 0
  }

  /// Why ``reopen()`` failed, when it did.
  private(set) var openRefusal: TraceOutputFile.Refusal?

  /// Marks the file failed (nothing more is written to it), or, with false, ready again.
  mutating func setFailed(_ failed: Bool) { self.failed = failed }

  /// Writes `bytes` at `offset`, leaving the file's position where it is.
  func overwrite(_ bytes: [UInt8], at offset: Int) {
    _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
  }

  mutating func close() {
    if descriptor >= 0 { _ = systemClose(descriptor) }
    descriptor = -1
  }

  /// Takes `descriptor`, opened on the crash path, as the file to write (a flight recorder's
  /// crash dump).
  mutating func adopt(_ descriptor: Int32) { self.descriptor = descriptor }

  /// Writes nothing more after a crash: the descriptor stays open until the process ends.
  mutating func abandonAfterCrash() { descriptor = -1 }

  /// Ends a file whose write stopped `reached` bytes into lines whose event lines end at `ends`:
  /// cuts it back to the last whole line and writes a line saying the write failed and why,
  /// dropping more of this write's lines while that line does not fit. Returns how many of this
  /// write's event lines the file keeps, or nil when the file cannot be cut (a FIFO, a device).
  private func endAfterFailure(reached: Int, ends: [Int], time: Int64, reason: String) -> Int? {
    let end = lseek(descriptor, 0, SEEK_CUR)
    guard end >= 0 else { return nil }
    let start = end - off_t(reached)
    var kept = ends.prefix { $0 <= reached }.count
    var line = TraceEncoder()
    while true {
      let cut = start + off_t(kept == 0 ? 0 : ends[kept - 1])
      guard ftruncate(descriptor, cut) == 0, lseek(descriptor, cut, SEEK_SET) == cut else {
        return nil
      }
      line.bytes.removeAll(keepingCapacity: true)
      // Readers add up the `dropped` lines: this one counts this write's lines that are lost.
      if isSpool {
        TraceSpool.appendWriteFailed(
          time: time, dropped: Int64(ends.count - kept), reason: reason, to: &line.bytes)
      } else {
        line.writeFailed(time: time, dropped: Int64(ends.count - kept), reason: reason)
      }
      if writeAll(descriptor, line.bytes) { return kept }
      _ = ftruncate(descriptor, cut)
      guard kept > 0 else { return kept }
      kept -= 1
    }
  }
}

// The sinks have a `close()` and a `write` of their own: these name the system calls.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
  close(descriptor)
}

/// Writes `bytes`, retrying short and interrupted writes, and returns how many reached the file:
/// fewer than `bytes.count` on a failure, with the reason in `errno`. Allocates nothing: the
/// crash path uses it.
private func writeReached(_ descriptor: Int32, _ bytes: [UInt8]) -> Int {
  // A FIFO whose reader went away raises SIGPIPE at the writing thread, which would end the
  // app: it is held back around the write and taken, so the write fails with EPIPE instead.
  var pipe = sigset_t()
  sigemptyset(&pipe)
  sigaddset(&pipe, SIGPIPE)
  var previous = sigset_t()
  pthread_sigmask(SIG_BLOCK, &pipe, &previous)
  let reached = writeReachedBlockingNothing(descriptor, bytes)
  let error = errno
  if error == EPIPE, sigismember(&previous, SIGPIPE) == 0 {
    var none = timespec()
    _ = sigtimedwait(&pipe, nil, &none)
  }
  pthread_sigmask(SIG_SETMASK, &previous, nil)
  errno = error
  return reached
}

/// ``writeReached(_:_:)``'s loop.
private func writeReachedBlockingNothing(_ descriptor: Int32, _ bytes: [UInt8]) -> Int {
  bytes.withUnsafeBytes { raw in
    guard let base = raw.baseAddress else { return 0 }
    var offset = 0
    while offset < raw.count {
      let count = systemWrite(descriptor, base + offset, raw.count - offset)
      if count < 0 {
        if errno == EINTR { continue }
        // A non-blocking FIFO that is full: wait a bounded time for its reader, then give up.
        if errno == EAGAIN {
          var wait = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
          if poll(&wait, 1, TraceWriter.stallLimitMilliseconds) > 0 { continue }
          errno = EAGAIN
        }
        break
      }
      offset += count
    }
    return offset
  }
}

/// Writes all of `bytes` (see ``writeReached(_:_:)``); false on a failure. Allocates nothing:
/// the crash path uses it.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
  writeReached(descriptor, bytes) == bytes.count
}
