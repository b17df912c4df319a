/// A seeded choice among the actions that could run next at one instant, for finding the order
/// of work that breaks a test (work in progress, issue 31: the strategies, `explore(…)` and the
/// reports come next).
///
/// A ``VirtualClock`` made with one runs, at each step, one of the actions enabled at the
/// earliest due instant instead of the first queued: serial and main schedulers stay first in,
/// first out, and nothing runs early, so every order is one production could produce. The same
/// seed makes the same choices, so a failing order reruns exactly.
///
/// ```swift
/// let clock = VirtualClock(exploring: Exploration(seed: 7))
/// ```
public struct Exploration: Sendable {
  /// The seed the choices come from.
  public let seed: UInt64
  private var state: UInt64
  /// The choices made so far: for each step with more than one enabled action, how many there
  /// were and which was taken.
  public private(set) var choices: [(enabled: Int, chosen: Int)] = []

  /// Choices from `seed`.
  public init(seed: UInt64) {
    self.seed = seed
    state = seed
  }

  /// An index below `count` (random for `count` > 1, recorded).
  mutating func choose(among count: Int) -> Int {
    guard count > 1 else { return 0 }
    // SplitMix64, as `Jitter` draws its lateness.
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    let chosen = Int((z ^ (z >> 31)) % UInt64(count))
    choices.append((count, chosen))
    return chosen
  }
}
