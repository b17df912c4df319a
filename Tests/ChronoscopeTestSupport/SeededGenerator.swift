/// A small deterministic generator, so tests with random inputs reproduce from their seed: the
/// package's `SplitMix64` (ChronoscopeVirtualTime), for the test targets that do not depend on that
/// module. This target depends on no module, so it keeps a copy; `SplitMix64Tests` checks that the
/// two give the same numbers for a seed. Targets that depend on ChronoscopeVirtualTime use
/// `SplitMix64` itself.
public struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
