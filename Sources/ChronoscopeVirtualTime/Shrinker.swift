/// Shrinks a failing run's schedule: takes its choices away from first in, first out back one at
/// a time, from the last, and keeps each change after which the run still fails the same way
/// (``ExplorationFailure/identity(of:)``: the same error, saying the same). Later choices are
/// followed where they still fit. At most ``attemptLimit`` runs.
struct Shrinker {
  static let attemptLimit = 100
  private let failing: ExplorationRun
  private let identity: String
  private let original: [Exploration.Choice]
  private var best: [Exploration.Choice]
  private var index: Int
  private var attempts = 0

  /// Shrinks `run`'s schedule, keeping the failures whose identity is `identity`.
  init(failing run: ExplorationRun, identity: String) {
    failing = run
    self.identity = identity
    original = run.choices
    best = original
    index = original.count - 1
  }

  /// The next run to try, or nil when done.
  mutating func next() -> ExplorationRun? {
    while index >= 0, attempts < Self.attemptLimit {
      let at = index
      index -= 1
      guard best[at].chosen != 0 else { continue }
      attempts += 1
      var candidate = best
      candidate[at] = Exploration.Choice(enabled: best[at].enabled, chosen: 0)
      return ExplorationRun(of: failing, following: candidate)
    }
    return nil
  }

  /// Keeps `run`'s choices when it failed as the failing run did.
  mutating func record(_ run: ExplorationRun, _ outcome: Result<Void, any Error>) {
    guard case .failure(let error) = outcome,
      ExplorationFailure.identity(of: error) == identity
    else { return }
    best = run.choices
    index = min(index, best.count - 1)
  }

  /// The shortest form found, when it has fewer choices away from first in, first out than the
  /// failing run's, without the first-in-first-out choices after its last other one (a replayed
  /// schedule takes the first enabled after its end).
  var shortest: [Exploration.Choice]? {
    let away = { (choices: [Exploration.Choice]) in choices.count { $0.chosen != 0 } }
    guard away(best) < away(original) else { return nil }
    let end = (best.lastIndex { $0.chosen != 0 } ?? -1) + 1
    return Array(best[..<end])
  }
}
