#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Fresh anonymous memory, page-aligned, none of it resident until touched; and which of its
/// pages are (`mincore`), for tests of what faults pages in and what hands them back.
public final class AnonymousPages {
  /// The memory.
  public let bytes: UnsafeMutableRawBufferPointer
  /// The page size.
  public let pageSize: Int

  /// Maps `pages` pages, which read as zeros.
  public init(pages: Int) {
    pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    let address = mmap(
      nil, pages * pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    precondition(address != MAP_FAILED && address != nil, "mmap failed")
    bytes = UnsafeMutableRawBufferPointer(start: address, count: pages * pageSize)
    // Whole pages, not huge ones: a test counts them one by one.
    #if os(Linux)
      _ = madvise(address, bytes.count, MADV_NOHUGEPAGE)
    #endif
  }

  deinit { munmap(bytes.baseAddress, bytes.count) }

  /// Whether each page is resident, in order.
  public func resident() -> [Bool] {
    var vector = [UInt8](repeating: 0, count: bytes.count / pageSize)
    #if os(Linux)
      precondition(mincore(bytes.baseAddress, bytes.count, &vector) == 0, "mincore failed")
    #else
      precondition(
        vector.withUnsafeMutableBytes {
          mincore(
            bytes.baseAddress, bytes.count, $0.baseAddress?.assumingMemoryBound(to: CChar.self))
        } == 0, "mincore failed")
    #endif
    return vector.map { $0 & 1 != 0 }
  }
}
