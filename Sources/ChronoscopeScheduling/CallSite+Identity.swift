extension CallSite {
  /// What tells call sites apart without comparing text: the addresses of their static strings
  /// and the line. A literal keeps its address for the life of the process (two equal texts at
  /// two addresses only count as two sites). A string held as a single Unicode scalar has no
  /// address (`utf8Start` would trap): it counts by its scalar, with the top bit set, which no
  /// user-space address has.
  @usableFromInline
  package struct Identity: Hashable, Sendable {
    @usableFromInline package let file: UInt
    @usableFromInline package let function: UInt
    @usableFromInline package let line: UInt

    @inlinable
    package init(file: UInt, function: UInt, line: UInt) {
      self.file = file
      self.function = function
      self.line = line
    }
  }

  /// This call site's identity. Inlinable: the recorder reads it on every schedule.
  @inlinable
  package var identity: Identity {
    Identity(file: Self.address(of: fileID), function: Self.address(of: function), line: line)
  }

  @inlinable
  static func address(of string: StaticString) -> UInt {
    string.hasPointerRepresentation
      ? UInt(bitPattern: string.utf8Start)
      : UInt(string.unicodeScalar.value) | 1 << (UInt.bitWidth - 1)
  }
}

/// A small direct-mapped cache from call sites to the numbers a table of them gave out, for
/// code that names the site of every schedule: work comes from few places in the code, and
/// most schedules come from the same few in turn, so most lookups hash and compare nothing but
/// three words.
@usableFromInline
package struct CallSiteCache {
  @usableFromInline var entries: [(identity: CallSite.Identity, id: UInt32)]

  /// A cache of `size` entries, a power of two.
  package init(size: Int) {
    precondition(size > 0 && size & (size - 1) == 0, "size must be a power of two")
    // Address 0 is no string's, so the empty entries match no site.
    entries = Array(repeating: (CallSite.Identity(file: 0, function: 0, line: 0), 0), count: size)
  }

  /// The number cached for the site of `identity`, if any.
  @inlinable
  package func id(of identity: CallSite.Identity) -> UInt32? {
    let entry = entries[slot(of: identity)]
    return entry.identity == identity ? entry.id : nil
  }

  /// Caches `id` for the site of `identity`, in place of the site that shared its entry.
  @inlinable
  package mutating func remember(_ id: UInt32, for identity: CallSite.Identity) {
    entries[slot(of: identity)] = (identity, id)
  }

  @inlinable
  func slot(of identity: CallSite.Identity) -> Int {
    // The function's address takes part for sites known only by a code address (file 0).
    Int(truncatingIfNeeded: (identity.file >> 3) ^ identity.line ^ (identity.function >> 2))
      & (entries.count - 1)
  }
}
