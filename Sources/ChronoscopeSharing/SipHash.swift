/// SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012): a keyed 64-bit
/// hash, the same on every run and every machine, unlike Swift's `Hasher`, which is seeded at
/// random per process.
///
/// The key is what makes outputs unlinkable: without it, nobody can tell which input gave an
/// output, or compute the output of a guess.
///
/// ```swift
/// let key = SipHash.Key(k0: 0x0706_0504_0302_0100, k1: 0x0F0E_0D0C_0B0A_0908)
/// SipHash.hash((0..<15).map { UInt8($0) }, key: key)  // 0xa129ca6149be45e5, the paper's example
/// ```
package enum SipHash {
  /// A 128-bit key: its bytes 0–7 and 8–15, each read little-endian, as in the paper.
  package struct Key: Sendable, Equatable {
    /// Bytes 0–7 of the key.
    package var k0: UInt64
    /// Bytes 8–15 of the key.
    package var k1: UInt64

    /// Makes a key from its two halves.
    package init(k0: UInt64, k1: UInt64) {
      self.k0 = k0
      self.k1 = k1
    }
  }

  /// The hash of `bytes` under `key`.
  ///
  /// - Complexity: O(`bytes.count`).
  package static func hash(_ bytes: some Sequence<UInt8>, key: Key) -> UInt64 {
    var state = State(key: key)
    var word: UInt64 = 0
    var count: UInt64 = 0
    for byte in bytes {
      word |= UInt64(byte) << (8 * (count & 7))
      count &+= 1
      if count & 7 == 0 {
        state.compress(word)
        word = 0
      }
    }
    // The last block holds the remaining bytes and, in its top byte, the length mod 256.
    state.compress(word | (count << 56))
    return state.finish()
  }

  private struct State {
    var v0: UInt64
    var v1: UInt64
    var v2: UInt64
    var v3: UInt64

    init(key: Key) {
      v0 = key.k0 ^ 0x736f_6d65_7073_6575  // "somepseu"
      v1 = key.k1 ^ 0x646f_7261_6e64_6f6d  // "dorandom"
      v2 = key.k0 ^ 0x6c79_6765_6e65_7261  // "lygenera"
      v3 = key.k1 ^ 0x7465_6462_7974_6573  // "tedbytes"
    }

    mutating func compress(_ message: UInt64) {
      v3 ^= message
      round()
      round()
      v0 ^= message
    }

    mutating func finish() -> UInt64 {
      v2 ^= 0xFF
      for _ in 0..<4 { round() }
      return v0 ^ v1 ^ v2 ^ v3
    }

    private mutating func round() {
      v0 &+= v1
      v1 = rotate(v1, 13)
      v1 ^= v0
      v0 = rotate(v0, 32)
      v2 &+= v3
      v3 = rotate(v3, 16)
      v3 ^= v2
      v0 &+= v3
      v3 = rotate(v3, 21)
      v3 ^= v0
      v2 &+= v1
      v1 = rotate(v1, 17)
      v1 ^= v2
      v2 = rotate(v2, 32)
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
      (value << count) | (value >> (64 - count))
    }
  }
}
