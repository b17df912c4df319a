import ChronoscopeCore

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
