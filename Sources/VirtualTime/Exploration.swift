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
    let chosen = Int(next() % UInt64(count))
    choices.append((count, chosen))
    return chosen
  }

  /// The seed of the next run of an exploration (not recorded as a choice).
  mutating func nextSeed() -> UInt64 { next() }

  /// SplitMix64, as `Jitter` draws its lateness.
  private mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// The first run of ``explore(iterations:seed:_:)`` whose body threw, with what reruns it.
public struct ExplorationFailure: Error, CustomStringConvertible {
  /// The run's seed: `VirtualClock(exploring: Exploration(seed:))` with it makes the same choices.
  public let seed: UInt64
  /// Which run failed, from 0.
  public let iteration: Int
  /// The choices the run made (see ``Exploration/choices``).
  public let choices: [(enabled: Int, chosen: Int)]
  /// What the body threw.
  public let error: any Error
  /// Where a second run with the same seed made other choices, if it did: the body is not
  /// deterministic (it reads the wall clock, a random source, or work the clock does not run),
  /// and the seed does not rerun the failure.
  public let divergedAt: Int?

  public var description: String {
    let steps = choices.map { "\($0.chosen + 1) of \($0.enabled)" }.joined(separator: ", ")
    if let divergedAt {
      return
        "run \(iteration) failed: \(error); but the body is not deterministic: run again with seed \(seed), it made other choices from step \(divergedAt + 1) on (does it read the wall clock, a random source, or start work the clock does not run?)"
    }
    return
      "run \(iteration) failed: \(error); rerun it with VirtualClock(exploring: Exploration(seed: \(seed))) (choices: \(steps))"
  }
}

/// Runs `body` `iterations` times, each on a fresh clock that explores another order of the work
/// due at each instant, and throws the first failure with the seed that reruns it. The runs'
/// seeds come from `seed`, so one `seed` explores the same orders every time.
///
/// ```swift
/// try explore(iterations: 500) { clock in
///   let app = App(factory: VirtualSchedulerFactory(clock: clock))
///   app.search("swift"); clock.advance(by: .seconds(1))
///   guard app.results == ["swift"] else { throw StaleResults() }
/// }
/// ```
public func explore(
  iterations: Int, seed: UInt64 = 0, _ body: (VirtualClock) throws -> Void
) throws(ExplorationFailure) {
  var seeds = Exploration(seed: seed)
  for iteration in 0..<max(iterations, 0) {
    let runSeed = seeds.nextSeed()
    let clock = VirtualClock(exploring: Exploration(seed: runSeed))
    do {
      try body(clock)
    } catch {
      let choices = clock.exploration?.choices ?? []
      // The same seed again: a failure it does not rerun is no failure a seed can keep.
      let again = VirtualClock(exploring: Exploration(seed: runSeed))
      _ = try? body(again)
      let second = again.exploration?.choices ?? []
      let diverged = firstDifference(choices, second)
      throw ExplorationFailure(
        seed: runSeed, iteration: iteration, choices: choices, error: error, divergedAt: diverged)
    }
  }
}

/// The first step at which two runs' choices differ (in how many were enabled or which was
/// taken), or where the shorter ends; nil when they are the same.
private func firstDifference(
  _ first: [(enabled: Int, chosen: Int)], _ second: [(enabled: Int, chosen: Int)]
) -> Int? {
  for index in 0..<min(first.count, second.count) {
    let one = first[index]
    let other = second[index]
    if one.enabled != other.enabled || one.chosen != other.chosen { return index }
  }
  return first.count == second.count ? nil : min(first.count, second.count)
}
