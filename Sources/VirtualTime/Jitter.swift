/// Seeded random lateness for virtual timers, to shake out code that assumes exact timing.
///
/// With jitter on, each fire of a delayed or repeating action is late by a pseudo-random amount
/// in `0...maximum`. The same seed gives the same lateness every run, so a failure reproduces.
/// Work scheduled with `async` is never delayed: that would break serial first-in-first-out order.
///
/// ```swift
/// let clock = VirtualClock(jitter: Jitter(seed: 42, maximum: .milliseconds(20)))
/// ```
public struct Jitter: Sendable {
  /// The seed the run was made with.
  public let seed: UInt64
  /// The most a fire is delayed.
  public let maximum: Duration
  private var generator: SplitMix64

  /// Makes jitter of at most `maximum`, deterministic for `seed`.
  public init(seed: UInt64, maximum: Duration) {
    self.seed = seed
    self.maximum = maximum
    generator = SplitMix64(seed: seed)
  }

  /// The next lateness, in nanoseconds.
  mutating func next() -> Int64 {
    let bound = UInt64(max(maximum.clampedNanoseconds, 0))
    guard bound > 0 else { return 0 }
    return Int64(generator.next() % (bound + 1))
  }
}

/// Steele, Lea and Flood's SplitMix64: tiny, fast, and stable across platforms and releases
/// (the standard library's generator makes no such promise).
private struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
