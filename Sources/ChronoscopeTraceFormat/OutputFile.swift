#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file a tool writes its output to — an export, a redacted or sliced trace, a flight dump —
/// changing nothing but that file:
/// - a regular file, or a path where nothing is yet, is written atomically: into a new file
///   beside it, flushed, then renamed over it, so a reader sees the old file or the whole new
///   one and a failure leaves it untouched; the new file has the mode and, where it may, the
///   owner of the one it replaces;
/// - a character or block device, a FIFO or a socket (`/dev/null`, `/dev/stdout`, a pipe made
///   with `mkfifo`) is written in place — renaming over it would replace the device itself with a
///   regular file, for every program on the machine;
/// - a symbolic link is followed: its target is written as above, and the link stays;
/// - `-` is standard output.
///
/// The one writer of the tools' output files (`TraceFileWriter`, `chronoscope export`, the
/// flight recorder's dumps).
package final class OutputFile {
  /// How a path is written.
  package enum Plan: Equatable, Sendable {
    /// Into `temporary`, renamed over `target` on commit.
    case atomic(target: String, temporary: String)
    /// In place: a device, FIFO or socket.
    case inPlace(target: String)
    /// Standard output.
    case standardOutput
  }

  /// Why the output could not be written; says so in a sentence naming the path.
  package struct Failure: Error, Sendable, CustomStringConvertible {
    /// Why, without the path.
    package let reason: String
    package let description: String
  }

  /// The path as the caller gave it, for messages.
  package let path: String
  /// The open file to write to.
  package let descriptor: Int32
  private let plan: Plan
  /// Whether commit or abandon already ran (else the deinit abandons).
  private var finished = false

  /// Opens `path` for writing as the type's rules say.
  ///
  /// - Parameter waitingForReader: Whether opening a FIFO waits for a reader, as a shell's `>`
  ///   does (a tool the user runs); false for a writer inside a program that must not hang
  ///   there (a flight recorder's dump): a FIFO nobody reads is then refused at once, and the
  ///   file stays non-blocking (its writer waits for room a bounded time).
  package init(path: String, waitingForReader: Bool = true) throws(Failure) {
    self.path = path
    let plan = try Self.plan(for: path)
    let descriptor: Int32
    switch plan {
    case .standardOutput:
      descriptor = STDOUT_FILENO
    case .inPlace(let target):
      descriptor = open(target, O_WRONLY | O_CLOEXEC | (waitingForReader ? 0 : O_NONBLOCK))
      if descriptor < 0, errno == ENXIO {
        throw Failure(path: path, reason: "it is a FIFO nobody reads")
      }
    case .atomic(let target, let temporary):
      descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      if descriptor >= 0 { Self.keepOwnerAndMode(of: target, on: descriptor) }
    }
    guard descriptor >= 0 else { throw Failure(path: path, reason: Self.reason()) }
    self.descriptor = descriptor
    self.plan = plan
  }

  /// How `path` would be written, without opening anything.
  package static func plan(for path: String) throws(Failure) -> Plan {
    if path == "-" { return .standardOutput }
    let target = followingLinks(path)
    var status = stat()
    guard stat(target, &status) == 0 else {
      guard errno == ENOENT else { throw Failure(path: path, reason: reason()) }
      return .atomic(target: target, temporary: temporaryPath(beside: target))
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: return .atomic(target: target, temporary: temporaryPath(beside: target))
    case S_IFDIR: throw Failure(path: path, reason: String(cString: strerror(EISDIR)))
    default: return .inPlace(target: target)
    }
  }

  /// Writes all of `bytes`.
  package func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
      let count = systemWrite(descriptor, base + offset, bytes.count - offset)
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(path: path, reason: Self.reason())
      }
      offset += count
    }
  }

  /// Writes all of `bytes`.
  package func write(_ bytes: [UInt8]) throws(Failure) {
    let failure = bytes.withUnsafeBytes { raw -> Failure? in
      do throws(Failure) {
        try write(raw)
        return nil
      } catch {
        return error
      }
    }
    if let failure { throw failure }
  }

  /// Finishes the file: flushed and renamed into place (atomic), or closed (in place). On a
  /// failure an atomic file's temporary is removed and the target left as it was.
  package func commit() throws(Failure) {
    guard !finished else { return }
    finished = true
    switch plan {
    case .standardOutput:
      return
    case .inPlace:
      guard close(descriptor) == 0 else { throw Failure(path: path, reason: Self.reason()) }
    case .atomic(let target, let temporary):
      var failure: String?
      if fsync(descriptor) != 0 { failure = Self.reason() }
      if close(descriptor) != 0, failure == nil { failure = Self.reason() }
      if failure == nil, rename(temporary, target) != 0 { failure = Self.reason() }
      if let failure {
        unlink(temporary)
        throw Failure(path: path, reason: failure)
      }
    }
  }

  /// Gives up: an atomic file's temporary is removed and the target left as it was.
  package func abandon() {
    guard !finished else { return }
    finished = true
    Self.abandon(plan, descriptor)
  }

  deinit { abandon() }

  private static func abandon(_ plan: Plan, _ descriptor: Int32) {
    switch plan {
    case .standardOutput:
      return
    case .inPlace:
      close(descriptor)
    case .atomic(_, let temporary):
      close(descriptor)
      unlink(temporary)
    }
  }

  /// Gives the new file the owner and mode of the regular file at `target` it is to replace,
  /// before a byte is written: a trace kept private (0600) is not readable by all once replaced,
  /// nor meanwhile in its temporary. The owner is kept where this process may give it (root; the
  /// group for one of its members), else the file is this process's, as a new file is. Where
  /// nothing is yet, the new file keeps 0644 less the umask.
  private static func keepOwnerAndMode(of target: String, on descriptor: Int32) {
    var status = stat()
    guard stat(target, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
    // The owner first: giving a file away clears its set-user-id and set-group-id bits, which
    // the mode then puts back.
    if fchown(descriptor, status.st_uid, status.st_gid) != 0 {
      _ = fchown(descriptor, uid_t(bitPattern: -1), status.st_gid)
    }
    _ = fchmod(descriptor, status.st_mode & 0o7777)
  }

  /// `path` with symbolic links followed: the file a write should change. A link to nowhere
  /// gives where it points (the file is made there).
  private static func followingLinks(_ path: String) -> String {
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return path }
    if let resolved = realpath(path, nil) {
      defer { free(resolved) }
      return String(cString: resolved)
    }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return path }
    let destination = String(
      decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if destination.hasPrefix("/") { return destination }
    return directory(of: path) + "/" + destination
  }

  private static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  private static func temporaryPath(beside target: String) -> String {
    let name =
      target.lastIndex(of: "/").map { String(target[target.index(after: $0)...]) } ?? target
    return "\(directory(of: target))/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
  }

  private static func reason() -> String { String(cString: strerror(errno)) }
}

extension OutputFile.Failure {
  init(path: String, reason: String) {
    self.reason = reason
    description = "cannot write \(path): \(reason)"
  }
}

/// The C library's `write(2)` (inside `OutputFile`, `write` names its own method).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, bytes, count)
}
