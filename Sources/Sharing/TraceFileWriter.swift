import Foundation
import TraceFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a trace read into memory back as a file, laid out as the recorder lays one out, and
/// saves files without ever leaving a half-written one or writing over the input.
///
/// The layout follows docs/TraceFormat.md: the header; each `thread`, `scheduler` and `site`
/// line just before the first line that refers to it, with that line's `t`; the events in their
/// order, each with its own `t`; then the definitions nothing used, the `dropped` count, the
/// `crash` line and the end marker. So a recording read and written back is the same file, byte
/// for byte, and a redacted or sliced trace reads like one the recorder wrote.
///
/// ```swift
/// let bytes = TraceFileWriter.encode(redacted)
/// try TraceFileWriter.save(bytes, to: "bug-redacted.trace", input: "bug.trace")
/// ```
///
/// What a ``Trace`` does not hold cannot be written back: lines of event types this version does
/// not know (a newer writer's), and where `dropped` lines stood (their total is written once,
/// before the end).
public enum TraceFileWriter {
  /// Encodes `trace` as a file.
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
      encoder.event(event, mark: mark)
      lastTime = max(lastTime, event.time)
    }
    if trace.droppedEvents > 0 { encoder.dropped(time: lastTime, count: trace.droppedEvents) }
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
      appendCrash(crash, to: &encoder.bytes)
    }
    if let closing = trace.closing {
      encoder.closing(time: trace.closedAt ?? lastTime, closing)
    }
    return encoder.bytes
  }

  /// A `crash` line: the encoder's own writes only the signals a recorder raises, as static text.
  private static func appendCrash(_ crash: Trace.Crash, to bytes: inout [UInt8]) {
    bytes += Array("{\"t\":\(crash.time),\"e\":\"crash\",\"signal\":".utf8)
    bytes += jsonString(crash.signal)
    bytes += Array(",\"th\":\(crash.thread)}\n".utf8)
  }

  /// `text` as a JSON string, escaped as the encoder escapes: quotes, backslashes and control
  /// characters.
  static func jsonString(_ text: String) -> [UInt8] {
    var out: [UInt8] = [UInt8(ascii: "\"")]
    let hex = Array("0123456789abcdef".utf8)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
      case 0..<0x20, 0x7F:
        out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
    return out
  }

  // MARK: - Saving

  /// Why a file could not be saved.
  public struct SaveError: Error, Sendable, CustomStringConvertible {
    /// Whether the output would have replaced the input: a usage error, not a failure.
    public let isOverInput: Bool
    /// What to tell the user.
    public let description: String
  }

  /// Writes `bytes` to `path` atomically: into a new file beside it, flushed to disk, then
  /// renamed over `path`. Readers see the old file or the whole new one, never part of it; on a
  /// failure the temporary file is removed and `path` is untouched.
  ///
  /// - Parameter input: The file the output was made from. It is never written: a `path` that
  ///   names it — the same path, through a symbolic link, or another hard link to it — is an
  ///   error.
  /// - Throws: ``SaveError``.
  public static func save(_ bytes: [UInt8], to path: String, input: String) throws(SaveError) {
    if sameFile(path, input) {
      throw SaveError(
        isOverInput: true,
        description: "the output \(path) is the input file; write the result to another file")
    }
    let url = URL(fileURLWithPath: path)
    let directory = url.deletingLastPathComponent().path
    let temporary =
      "\(directory)/.\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw SaveError(isOverInput: false, description: "cannot write \(path): \(reason())")
    }
    var failure: String?
    bytes.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return }
      var offset = 0
      while offset < raw.count {
        let count = write(descriptor, base + offset, raw.count - offset)
        if count < 0 {
          if errno == EINTR { continue }
          failure = reason()
          return
        }
        offset += count
      }
    }
    if failure == nil, fsync(descriptor) != 0 { failure = reason() }
    if close(descriptor) != 0, failure == nil { failure = reason() }
    if failure == nil, rename(temporary, path) != 0 { failure = reason() }
    if let failure {
      unlink(temporary)
      throw SaveError(isOverInput: false, description: "cannot write \(path): \(failure)")
    }
  }

  /// Whether two paths name one file: equal once resolved, or the same device and inode.
  package static func sameFile(_ first: String, _ second: String) -> Bool {
    let resolved = { (path: String) in
      URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
    if resolved(first) == resolved(second) { return true }
    var a = stat()
    var b = stat()
    guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino
  }

  private static func reason() -> String { String(cString: strerror(errno)) }
}
