import Scheduling

/// The call sites a ``VirtualClock`` has seen, each stored once and named by a number, so that
/// each queued action carries four bytes for where it was scheduled instead of a 56-byte
/// ``CallSite``. Work comes from few places in the code, and most schedules come from the same
/// few in turn: a small direct-mapped cache answers those without hashing.
struct CallSiteTable {
  /// What tells call sites apart without comparing text: the addresses of their static strings
  /// (a literal keeps its address for the life of the process; two equal texts at two
  /// addresses are only interned twice) and the line. A string not stored behind a pointer
  /// (which `utf8Start` would trap on) is told apart by its text.
  private enum Key: Hashable {
    case pointers(file: UInt, function: UInt, line: UInt)
    case text(String)

    init(_ site: CallSite) {
      if site.fileID.hasPointerRepresentation, site.function.hasPointerRepresentation {
        self = .pointers(
          file: UInt(bitPattern: site.fileID.utf8Start),
          function: UInt(bitPattern: site.function.utf8Start), line: site.line)
      } else {
        self = .text("\(site.fileID)\u{0}\(site.line)\u{0}\(site.function)")
      }
    }
  }

  private struct CacheEntry {
    var file: UInt = 0
    var function: UInt = 0
    var line: UInt = 0
    var id: UInt32 = 0
  }

  private static let cacheSize = 16
  private var cache = [CacheEntry](repeating: CacheEntry(), count: cacheSize)
  private var ids: [Key: UInt32] = [:]
  private var sites: [CallSite] = []

  /// The number of `site`, the same for every schedule from it.
  ///
  /// - Complexity: O(1); amortized, when the site was not seen lately.
  @inline(__always)
  mutating func id(of site: CallSite) -> UInt32 {
    guard site.fileID.hasPointerRepresentation, site.function.hasPointerRepresentation else {
      return intern(site)
    }
    let file = UInt(bitPattern: site.fileID.utf8Start)
    let function = UInt(bitPattern: site.function.utf8Start)
    let index = Int(truncatingIfNeeded: (file >> 3) ^ site.line) & (Self.cacheSize - 1)
    let entry = cache[index]
    if entry.file == file, entry.function == function, entry.line == site.line { return entry.id }
    let id = intern(site)
    cache[index] = CacheEntry(file: file, function: function, line: site.line, id: id)
    return id
  }

  /// The call site numbered `id`.
  subscript(id: UInt32) -> CallSite { sites[Int(id)] }

  private mutating func intern(_ site: CallSite) -> UInt32 {
    let key = Key(site)
    if let id = ids[key] { return id }
    // More than 2³² − 1 distinct call sites is more code than any program has.
    let id = UInt32(sites.count)
    ids[key] = id
    sites.append(site)
    return id
  }
}
