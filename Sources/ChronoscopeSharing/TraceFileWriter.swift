import ChronoscopeTraceFormat
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Saves trace files without ever leaving a half-written one or writing over the input.
///
/// ```swift
/// let bytes = TraceEncoder.encode(redacted)   // laid out as the recorder lays a file out
/// try TraceFileWriter.save(bytes, to: "bug-redacted.trace", input: "bug.trace")
/// ```
package enum TraceFileWriter {
  // MARK: - Saving

  /// Why a file could not be saved.
  package struct SaveError: Error, Sendable, CustomStringConvertible {
    /// Whether the output would have replaced the input: a usage error, not a failure.
    package let isOverInput: Bool
    /// What to tell the user.
    package let description: String
  }

  /// Writes `bytes` to `path` atomically: into a new file beside it, flushed to disk, then
  /// renamed over `path`. Readers see the old file or the whole new one, never part of it; on a
  /// failure the temporary file is removed and `path` is untouched. A device, FIFO or socket
  /// (`/dev/stdout`, a pipe) is written in place, a symbolic link's target is written and the
  /// link kept, and `-` is standard output (`OutputFile`'s rules).
  ///
  /// - Parameter input: The file the output was made from. It is never written: a `path` that
  ///   names it — the same path, through a symbolic link, or another hard link to it — is an
  ///   error.
  /// - Throws: ``SaveError``; also when a line of `bytes` is longer than a reader reads
  ///   (``TraceReader/maximumLineLength``): a file that would not read is not written.
  package static func save(_ bytes: [UInt8], to path: String, input: String) throws(SaveError) {
    if sameFile(path, input) {
      throw SaveError(
        isOverInput: true,
        description: "the output \(path) is the input file; write the result to another file")
    }
    if let (line, length) = firstLongLine(bytes) {
      throw SaveError(
        isOverInput: false,
        description:
          "cannot write \(path): its line \(line) would be \(length) bytes long; readers read lines of at most \(TraceReader.maximumLineLength) bytes"
      )
    }
    do throws(OutputFile.Failure) {
      let file = try OutputFile(path: path)
      try file.write(bytes)
      try file.commit()
    } catch {
      throw SaveError(isOverInput: false, description: error.description)
    }
  }

  /// The first line of `bytes` (from 1) longer than ``TraceReader/maximumLineLength``, without
  /// its newline, and its length; nil when there is none.
  ///
  /// - Complexity: O(`bytes.count`).
  static func firstLongLine(_ bytes: [UInt8]) -> (line: Int, length: Int)? {
    bytes.withUnsafeBytes { raw -> (line: Int, length: Int)? in
      guard let base = raw.baseAddress else { return nil }
      var (start, line) = (0, 1)
      while start < raw.count {
        let end =
          memchr(base + start, Int32(UInt8(ascii: "\n")), raw.count - start)
          .map { $0 - UnsafeMutableRawPointer(mutating: base) } ?? raw.count
        if end - start > TraceReader.maximumLineLength { return (line, end - start) }
        (start, line) = (end + 1, line + 1)
      }
      return nil
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
