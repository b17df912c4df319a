/// A small, fast, seedable pseudo-random generator (Steele, Lea and Flood's SplitMix64), so every
/// library in a benchmark sees exactly the same workload. The main package's `SplitMix64`
/// (ChronoscopeCore) is the same generator but `package`: reaching it from here would
/// make it `@_spi(Benchmarks)` in a supported product, for ten lines every benchmark, the
/// comparison ones included, would then take from the library they measure.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Makes a generator; equal seeds give equal sequences on every platform.
  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  /// A value in `0..<bound`, taken from the high half of a 128-bit product (no division).
  public mutating func next(below bound: UInt64) -> UInt64 {
    precondition(bound > 0, "bound must be positive")
    return next().multipliedFullWidth(by: bound).high
  }
}

/// The seed every benchmark uses unless it has a reason not to.
public let benchmarkSeed: UInt64 = 0xC4_0A05_C09E

/// `count` delays in nanoseconds, uniform in `[0, upperBound)`, the same for every call with the
/// same arguments.
public func seededDelays(count: Int, below upperBound: Duration, seed: UInt64 = benchmarkSeed)
  -> [Int64]
{
  let bound =
    UInt64(upperBound.components.seconds) * 1_000_000_000
    + UInt64(upperBound.components.attoseconds / 1_000_000_000)
  var generator = SplitMix64(seed: seed)
  return (0..<count).map { _ in Int64(generator.next(below: bound)) }
}
