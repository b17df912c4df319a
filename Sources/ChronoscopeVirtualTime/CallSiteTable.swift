import ChronoscopeScheduling

/// The call sites a ``VirtualClock`` has seen, each stored once and named by a number, so that
/// each queued action carries four bytes for where it was scheduled instead of a 56-byte
/// ``CallSite``.
struct CallSiteTable {
  private var cache = CallSiteCache(size: 16)
  private var ids: [CallSite.Identity: UInt32] = [:]
  private var sites: [CallSite] = []

  /// The number of `site`, the same for every schedule from it.
  ///
  /// - Complexity: O(1); amortized, when the site was not seen lately.
  @inline(__always)
  mutating func id(of site: CallSite) -> UInt32 {
    let identity = site.identity
    if let id = cache.id(of: identity) { return id }
    let id = ids[identity] ?? intern(site, identity)
    cache.remember(id, for: identity)
    return id
  }

  /// The call site numbered `id`.
  subscript(id: UInt32) -> CallSite { sites[Int(id)] }

  private mutating func intern(_ site: CallSite, _ identity: CallSite.Identity) -> UInt32 {
    // More than 2³² − 1 distinct call sites is more code than any program has.
    let id = UInt32(sites.count)
    ids[identity] = id
    sites.append(site)
    return id
  }
}
