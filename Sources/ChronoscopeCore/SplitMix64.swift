/// Steele, Lea and Flood's SplitMix64, the package's one seeded generator: `Jitter` and
/// `Exploration` (ChronoscopeVirtualTime) draw from it, and tests that need random inputs use it. Tiny, fast, and the
/// same numbers on every platform and release for one seed (the standard library's generator
/// makes no such promise): an exploration seed printed in a failure message reruns the same
/// schedule only while this stays bit for bit what it is (`SplitMix64Tests` pins it).
package struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator whose sequence is fixed by `seed`.
  package init(seed: UInt64) { state = seed }

  /// The next number of the sequence.
  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
