import ChronoscopeTraceFormat
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a rotating trace file's bytes go: a ``TraceFileSink`` that, when the file at its path
/// passes ``TraceRotation/maxBytes``, is ended, renamed (`app.1.trace`, `app.2.trace`…, the
/// oldest let go) and replaced by a new file that starts with the context it needs.
///
/// Each file's header marks it as a window (`slice_of`, `slice_from_ns`, `slice_to_ns`): its end is
/// a placeholder as long as any end, filled in when the file is rotated out. A write that fails
/// rotates the failed file out at the next batch, as a rotation would, and the recording goes on
/// in a new file when there is room again.
///
/// Crash path: the plain file's (see ``TraceFileSink``); no file is rotated on it.
struct RotatingTraceFileSink {
  var file: TraceFileSink
  private let limits: TraceRotation
  private var header = TraceHeader(clock: .host, start: "", process: "", pid: 0)
  /// Where the header's `slice_to_ns` placeholder is, to be filled in when the file is rotated.
  private var placeholderOffset: Int?
  /// Where this file began: the writer's counts then, and the context's events at its start.
  private(set) var fileStart: (written: Int64, dropped: Int64, contextEvents: Int64) = (0, 0, 0)

  init(
    descriptor: Int32, path: String, rotation: TraceRotation,
    onError: @escaping @Sendable (String) -> Void
  ) {
    file = TraceFileSink(descriptor: descriptor, path: path, onError: onError)
    limits = rotation
  }

  /// Whether the file open now is due to be rotated out.
  var isFull: Bool { file.bytes >= limits.maxBytes }

  /// The bytes the file open now takes before it is due to be rotated out (0 or below: due).
  var roomLeft: Int { limits.maxBytes - file.bytes }

  /// Writes the first file's header; false, with the reason in `errno`, if the file takes nothing.
  mutating func writeHeader(_ header: TraceHeader) -> Bool {
    self.header = header
    return writeHeader(from: 0, time: 0)
  }

  /// The header of a rotating file: the recorder's, marked as a window from `from` to a
  /// placeholder end (the largest time, as long as any end) that ``retire(time:)`` fills in.
  private mutating func writeHeader(from: Int64, time: Int64) -> Bool {
    var header = header
    header.metadata[TraceHeader.sliceSourceKey] = (file.path as NSString).lastPathComponent
    header.metadata[TraceHeader.sliceFromKey] = String(from)
    header.metadata[TraceHeader.sliceToKey] = String(TraceLimits.maximumTime)
    var encoder = TraceEncoder()
    encoder.header(header)
    let value = String(TraceLimits.maximumTime)
    let placeholder = Array("\"\(TraceHeader.sliceToKey)\":\"\(value)\"".utf8)
    placeholderOffset = encoder.bytes.firstRange(of: placeholder).map {
      $0.upperBound - 1 - value.utf8.count
    }
    return file.write(encoder.bytes, ends: [], time: time, crashing: false, reporting: false)
      .succeeded
  }

  /// Ends the file (its end marker, its header's window end) at `time`, shifts the older files
  /// along, and starts a new file with `context`, the lines of the work live now.
  ///
  /// - Parameters:
  ///   - written: The events the writer has written so far, in every file.
  ///   - dropped: The events the writer has dropped so far.
  mutating func rotate(time: Int64, written: Int64, dropped: Int64, context: TraceContext) {
    guard file.isOpen, !file.failed else { return }
    var encoder = TraceEncoder()
    encoder.closing(
      time: time,
      Trace.Closing(
        written: written - fileStart.written + fileStart.contextEvents,
        dropped: dropped - fileStart.dropped))
    _ = file.write(encoder.bytes, ends: [], time: time, crashing: false, reporting: true)
    retire(time: time)
    startFile(time: time, written: written, dropped: dropped, context: context)
  }

  /// A file whose write failed starts over, as a rotation would: the failed file (its last line
  /// says why) is rotated out, and when there is room again, the recording goes on in a new one.
  /// While there is none, no file is left half made.
  mutating func restartAfterFailure(
    time: Int64, written: Int64, dropped: Int64, context: TraceContext
  ) {
    if file.isOpen { retire(time: time) }
    file.setFailed(false)
    startFile(time: time, written: written, dropped: dropped, context: context)
    guard file.failed, file.isOpen else { return }
    // The new file was made but takes nothing: it goes, if it is still the one made.
    let own = TraceOutputFile.names(file.path, file.descriptor)
    file.close()
    if own { unlink(file.path) }
  }

  /// Fills in the current file's window end, closes it and shifts the older files along.
  private mutating func retire(time: Int64) {
    if let placeholderOffset {
      // Zero-padded to the placeholder's width: readers take "0000000001234" as 1234.
      let width = String(TraceLimits.maximumTime).utf8.count
      let text = String(time)
      let padded = Array(
        (String(repeating: "0", count: max(width - text.utf8.count, 0)) + text).utf8)
      file.overwrite(padded, at: placeholderOffset)
    }
    // Only the recorder's own file is renamed or deleted: one put at the path since (a link, a
    // device) stays, and the next file cannot be made there (which says so).
    let own = TraceOutputFile.names(file.path, file.descriptor)
    file.close()
    guard own else { return }
    if limits.keep > 0 {
      // Older files move along only over regular files of the user's or nothing: what else
      // sits at `app.2.trace` stays, and the shift stops there.
      var last = 1
      while last < limits.keep, TraceOutputFile.mayReplace(rotatedPath(last + 1)) { last += 1 }
      for generation in stride(from: last - 1, through: 1, by: -1) {
        rename(rotatedPath(generation), rotatedPath(generation + 1))
      }
      if TraceOutputFile.mayReplace(rotatedPath(1)) {
        rename(file.path, rotatedPath(1))
      } else {
        unlink(file.path)
      }
    } else {
      unlink(file.path)
    }
  }

  /// The file name of the `generation`th older file: `app.2.trace` for `app.trace`.
  private func rotatedPath(_ generation: Int) -> String {
    TraceRotationNames.rotatedPath(file.path, generation: generation)
  }

  /// Opens a new file at the path, with a header and `context`'s lines at `time`; on a failure,
  /// the file is marked failed.
  private mutating func startFile(
    time: Int64, written: Int64, dropped: Int64, context: TraceContext
  ) {
    guard file.reopen(), writeHeader(from: time, time: time) else {
      let error = errno
      file.setFailed(true)
      let reason =
        file.openRefusal.map(TraceOutputFile.reason) ?? String(cString: strerror(error))
      file.report("chronoscope: starting a new \(file.path) failed: \(reason); recording stopped")
      return
    }
    let lines = context.lines(at: time)
    fileStart = (written, dropped, lines.events)
    _ = file.write(lines.bytes, ends: [], time: time, crashing: false, reporting: true)
  }
}
