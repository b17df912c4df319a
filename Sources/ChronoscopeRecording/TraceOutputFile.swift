#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the recorder opens the file it writes a trace to: its path, each file a rotation starts,
/// and a flight recorder's crash dump. The rules are those the kernel keeps for core dumps, for
/// the same reason: the path often sits in a shared folder (`/tmp`), under a name anyone can
/// guess (`app-%p.trace`), and the recorder runs inside a program that did not ask to write
/// there.
///
/// - **Nothing there:** the file is made (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0644 less the
///   umask), never through a link someone puts there meanwhile.
/// - **A regular file:** written over only when it belongs to the user the process runs as, and
///   no other recorder is writing it (an advisory `flock` held while the recorder writes): two
///   processes given one path would otherwise interleave their lines in one file. It is
///   truncated only once both hold.
/// - **A character device, FIFO or socket** (`/dev/null`, `mkfifo`): written in place, never
///   truncated, renamed or deleted — so never rotated. A FIFO nobody reads is refused at once
///   (the open does not wait for a reader).
/// - **A symbolic link:** followed only to a device, FIFO or socket (`/dev/stdout`,
///   `/dev/stderr`, `/dev/fd/N`), which are written in place; a link to a regular file, or to
///   nothing, is refused: name the file itself. (The tools — `export`, `redact`, `slice` — follow
///   links on purpose: a user runs them on a path they chose; see `OutputFile`.)
///
/// ``open(_:)`` makes no allocation and calls only async-signal-safe functions: the crash path
/// opens a flight recorder's dump with it.
enum TraceOutputFile {
  /// What was opened.
  enum Kind: Equatable {
    /// A regular file, made or truncated, and locked.
    case regular
    /// A device, FIFO or socket, written in place.
    case special
  }

  /// Why a path was refused.
  enum Refusal: Error, Equatable {
    /// The system said no: the `errno`.
    case system(Int32)
    /// A FIFO with no reader.
    case fifoWithoutReader
    /// A symbolic link to a regular file, or to nothing.
    case linkToFile
    /// A regular file that belongs to another user.
    case otherOwner(uid_t)
    /// A regular file another recorder is writing.
    case busy
    /// A directory.
    case directory
  }

  /// An open file, or why there is none.
  struct Opened {
    var descriptor: Int32 = -1
    var kind: Kind = .regular
    var refusal: Refusal?
  }

  /// Opens `path` for writing by the rules above, non-blocking (a FIFO whose reader stops must
  /// not hold the app: writes wait a bounded time, see `TraceWriter.stallLimitMilliseconds`).
  /// Allocates nothing.
  static func open(_ path: UnsafePointer<CChar>) -> Opened {
    let flags = O_WRONLY | O_CLOEXEC | O_NONBLOCK
    let made = systemOpen(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644)
    if made >= 0 { return locked(made, truncating: false) }
    guard errno == EEXIST else { return refused(errno) }
    let existing = systemOpen(path, flags | O_NOFOLLOW, 0)
    if existing >= 0 { return classify(existing, throughLink: false) }
    // ELOOP: the path is a link (O_NOFOLLOW's answer on Linux and macOS).
    guard errno == ELOOP else { return refused(errno) }
    let target = systemOpen(path, flags, 0)
    guard target >= 0 else { return errno == ENOENT ? refused(.linkToFile) : refused(errno) }
    return classify(target, throughLink: true)
  }

  /// Opens `path` (see ``open(_:)``), or throws what the recorder says about it.
  static func open(path: String) throws(TraceRecorderError) -> Opened {
    let opened = path.withCString { open($0) }
    if let refusal = opened.refusal {
      throw .cannotOpen(path: path, reason: reason(refusal))
    }
    return opened
  }

  /// Whether the path may be written (see ``open(_:)``) as a whole new file put in its place — a
  /// flight recorder's dump, renamed into place — without opening it: nil when it may, else why
  /// not.
  static func refusal(forReplacing path: String) -> Refusal? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return errno == ENOENT ? nil : .system(errno) }
    switch status.st_mode & S_IFMT {
    case S_IFLNK:
      guard stat(path, &status) == 0 else { return .linkToFile }
      return status.st_mode & S_IFMT == S_IFREG ? .linkToFile : nil
    case S_IFREG:
      return status.st_uid == geteuid() ? nil : .otherOwner(status.st_uid)
    case S_IFDIR:
      return .directory
    default:
      return nil
    }
  }

  /// The refusal as the recorder says it, after "cannot open PATH for writing: ".
  static func reason(_ refusal: Refusal) -> String {
    switch refusal {
    case .system(let error): String(cString: strerror(error))
    case .fifoWithoutReader: "it is a FIFO nobody reads"
    case .linkToFile:
      "it is a symbolic link to a regular file or to nothing, which the recorder does not follow (a link in a shared folder could aim it at another file): name the file itself"
    case .otherOwner(let owner):
      "it belongs to another user (uid \(owner)); the recorder writes over only its own user's files"
    case .busy:
      "another process is recording into it; put %p in the path for a file per process"
    case .directory: String(cString: strerror(EISDIR))
    }
  }

  /// Sorts out a file opened without creating it: a regular file must be the user's and free,
  /// and is then truncated; a device, FIFO or socket is written in place.
  private static func classify(_ descriptor: Int32, throughLink: Bool) -> Opened {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return closing(descriptor, .system(errno)) }
    switch status.st_mode & S_IFMT {
    case S_IFREG:
      if throughLink { return closing(descriptor, .linkToFile) }
      if status.st_uid != geteuid() { return closing(descriptor, .otherOwner(status.st_uid)) }
      return locked(descriptor, truncating: true)
    case S_IFDIR:
      return closing(descriptor, .directory)
    default:
      return Opened(descriptor: descriptor, kind: .special)
    }
  }

  /// Takes the file's advisory lock without waiting, then truncates it if asked.
  private static func locked(_ descriptor: Int32, truncating: Bool) -> Opened {
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      return closing(descriptor, errno == EWOULDBLOCK ? .busy : .system(errno))
    }
    if truncating, ftruncate(descriptor, 0) != 0 { return closing(descriptor, .system(errno)) }
    return Opened(descriptor: descriptor, kind: .regular)
  }

  /// Closes a descriptor ``open(_:)`` gave, unused.
  static func release(_ descriptor: Int32) {
    if descriptor >= 0 { close(descriptor) }
  }

  private static func closing(_ descriptor: Int32, _ refusal: Refusal) -> Opened {
    let error = errno
    close(descriptor)
    errno = error
    return Opened(refusal: refusal)
  }

  private static func refused(_ error: Int32) -> Opened {
    // A FIFO opened for writing without blocking, with no reader.
    Opened(
      refusal: error == ENXIO ? .fifoWithoutReader : error == EISDIR ? .directory : .system(error))
  }

  private static func refused(_ refusal: Refusal) -> Opened { Opened(refusal: refusal) }

  /// Whether `path` still names the file open at `descriptor`: a rotation renames or deletes
  /// only its own file, never one put in its place.
  static func names(_ path: String, _ descriptor: Int32) -> Bool {
    var named = stat()
    var open = stat()
    return lstat(path, &named) == 0 && fstat(descriptor, &open) == 0
      && named.st_dev == open.st_dev && named.st_ino == open.st_ino
  }

  /// Whether a rotation may rename a file over `path`: nothing is there, or a regular file of
  /// the user's (an older file of the same rotation).
  static func mayReplace(_ path: String) -> Bool {
    var status = stat()
    guard lstat(path, &status) == 0 else { return errno == ENOENT }
    return status.st_mode & S_IFMT == S_IFREG && status.st_uid == geteuid()
  }
}

/// `open(2)`: inside `TraceOutputFile`, `open` names its own functions.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
  open(path, flags, mode)
}
