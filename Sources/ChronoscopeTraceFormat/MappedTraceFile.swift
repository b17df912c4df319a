#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A trace file mapped read-only into memory, whose pages the reader hands back as it passes
/// them.
///
/// A mapped file's pages count in the process's resident memory once touched: reading a 700 MB
/// trace otherwise held all 700 MB next to the events made from it, the largest part of the
/// reader's peak. Pages handed back (`madvise(MADV_DONTNEED)` on this private, never written
/// mapping) leave memory and are read again from the page cache if touched again, with the same
/// bytes, so handing back too much costs time, never correctness.
///
/// A file another process truncates while it is read (an app restarting on the same path) does
/// not crash the reader: the mapping is guarded by ``MappedFileFaults`` (a fault past the new end
/// reads zeros) and ``changed`` says so afterwards, as it does for a file that shrank within its
/// last page. Appending, what recorders do, changes nothing: the mapping covers what was there.
/// `SiteSymbolization` maps the trace it rewrites with it too, for the same reason.
package struct MappedTraceFile: ~Copyable {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let descriptor: Int32
  /// The ``MappedFileFaults`` slot guarding the mapping (nil when none was free).
  private let guardSlot: Int?

  /// Maps the regular file at `path`, or returns nil (not a regular file, empty, or any call
  /// failing), for the caller to read it another way.
  package init?(path: String) {
    // Without waiting: a FIFO that took a regular file's place would hold open() until written.
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
      status.st_size > 0, let size = Int(exactly: status.st_size)
    else {
      close(descriptor)
      return nil
    }
    let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
    guard let address, address != MAP_FAILED else {
      close(descriptor)
      return nil
    }
    self.descriptor = descriptor
    bytes = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: size)
    guardSlot = MappedFileFaults.register(UnsafeRawBufferPointer(bytes))
  }

  deinit {
    if let guardSlot { MappedFileFaults.unregister(guardSlot) }
    munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    close(descriptor)
  }

  /// Whether the file lost bytes the mapping covers since it was mapped: a read of them faulted
  /// (and read zeros), or the file is now shorter. What was read from it then mixes two files.
  package var changed: Bool {
    if let guardSlot, MappedFileFaults.faulted(guardSlot) { return true }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return true }
    return status.st_size < bytes.count
  }

  /// Runs `body` with the file's bytes, mapped until it returns.
  package func withBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R)
    throws(E) -> R
  {
    try body(bytes)
  }
}

/// Hands back the whole pages of memory that a pass over it has left behind, a chunk at a time:
/// a mapped file's (read again from the page cache if touched again), or a buffer's that nothing
/// will read again (its pages read as zeros if touched again). Each thread passing over a
/// stretch keeps its own.
package struct PageRelease {
  /// Pages are handed back this many bytes at a time.
  package static let defaultChunk = 8 << 20
  private static let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))

  private let bytes: UnsafeRawBufferPointer
  private let chunk: Int
  /// Everything before this offset has been handed back (or was not this pass's to hand back):
  /// a page boundary once anything has been.
  private var released: Int

  /// - Parameters:
  ///   - bytes: the memory: a mapped file, or a buffer whose every byte the pass may drop.
  ///   - start: where the pass starts.
  ///   - chunk: how many bytes are passed between two hand-backs.
  package init(_ bytes: UnsafeRawBufferPointer, from start: Int, chunk: Int) {
    self.bytes = bytes
    self.released = start
    self.chunk = max(chunk, 1)
  }

  init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, chunk: Int) {
    self.init(UnsafeRawBufferPointer(bytes), from: start, chunk: chunk)
  }

  /// The pass has reached `position`: hands back the whole pages behind it once a chunk has
  /// gathered, or all of them with `final`.
  @inline(__always)
  package mutating func passed(_ position: Int, final: Bool = false) {
    guard final || position - released >= chunk, position > released,
      let base = bytes.baseAddress
    else { return }
    // Only whole pages inside [released, position): a page shared with the neighbouring
    // stretch, or with what lies before or after the memory, stays; the page the pass is in
    // goes with the next chunk.
    let page = Self.pageSize
    let from = (UInt(bitPattern: base + released) + page - 1) & ~(page - 1)
    let to = UInt(bitPattern: base + position) & ~(page - 1)
    guard to > from else { return }
    released = Int(bitPattern: to &- UInt(bitPattern: base))
    #if os(Linux)
      _ = madvise(UnsafeMutableRawPointer(bitPattern: from), Int(to - from), MADV_DONTNEED)
    #endif
  }
}
