/// The runs of one exploration, in the order `explore` makes them, and what their outcomes say:
/// the runs of its seeds until one fails; then that run again with its seed (``checks`` times), to
/// check that it fails again the same way; then the shrinker's runs; then the shortest form found, replayed to
/// check it. The sync and async `explore` drive it alike:
///
/// ```swift
/// while let run = try explorer.nextRun() {
///   try explorer.record(run, outcome(of: run), rerunning: rerunning)
/// }
/// ```
struct Explorer {
  let iterations: Int
  let seed: UInt64
  let strategy: Exploration.Strategy
  /// How many runs of seeds were made.
  private(set) var iteration = 0
  /// How many times a failing run is run again with its seed before it is taken as
  /// deterministic: a body that reads the wall clock may do the same twice in a row.
  static let checks = 3
  /// The most choices a run made so far: PCT's step count when the strategy leaves it open.
  private var mostSteps = 1
  private var stage = Stage.exploring

  /// What the runs are for.
  private enum Stage {
    /// The runs of the exploration's seeds.
    case exploring
    /// The failing run, run again with its seed; how many more times.
    case rerunning(Found, left: Int)
    /// The shrinker's runs.
    case shrinking(Found, Shrinker)
    /// The shortest form found, replayed strictly.
    case checking(Found, shortest: [Exploration.Choice])
  }

  /// The failing run, what it threw and which failure that is.
  private struct Found {
    var failure: ExplorationFailure
    let run: ExplorationRun
    let identity: String
  }

  init(iterations: Int, seed: UInt64, strategy: Exploration.Strategy) {
    self.iterations = iterations
    self.seed = seed
    self.strategy = strategy
  }

  /// Throws when the exploration would make no run: a test that runs nothing must not pass.
  func checkRunsSomething() throws(ExplorationFailure) {
    guard iterations < 1 else { return }
    throw ExplorationFailure(
      seed: seed, strategy: strategy, iteration: 0, iterations: iterations, choices: [],
      error: NoIterations(), misfit: nil)
  }

  /// The next run to make; nil after the last of an exploration whose runs all passed. Throws
  /// the exploration's failure once there is nothing more to run for it.
  mutating func nextRun() throws(ExplorationFailure) -> ExplorationRun? {
    switch stage {
    case .exploring:
      guard iteration < iterations else { return nil }
      defer { iteration += 1 }
      return ExplorationRun(seed: seed &+ UInt64(iteration), strategy: resolved)
    case .rerunning(let found, _):
      return ExplorationRun(seed: found.run.seed, strategy: found.run.strategy)
    case .shrinking(let found, var shrinker):
      if let candidate = shrinker.next() {
        stage = .shrinking(found, shrinker)
        return candidate
      }
      guard let shortest = shrinker.shortest else { throw found.failure }
      stage = .checking(found, shortest: shortest)
      return ExplorationRun(
        seed: found.run.seed,
        strategy: .replaying(schedule: Exploration.schedule(of: shortest)))
    case .checking(let found, _):
      throw found.failure
    }
  }

  /// Takes what `run`, the last ``nextRun()``, did; throws the exploration's failure once it is
  /// known. A failure is rerun (to check the body is deterministic, and to shrink it) only when
  /// `rerunning` says to: a test host that cannot take back what a rerun reports says not to.
  mutating func record(
    _ run: ExplorationRun, _ outcome: Result<Void, any Error>, rerunning: (any Error) -> Bool
  ) throws(ExplorationFailure) {
    switch stage {
    case .exploring:
      try explored(run, outcome, rerunning: rerunning)
    case .rerunning(var found, let left):
      if let nondeterminism = Self.nondeterminism(of: found, rerun: run, outcome) {
        found.failure.nondeterminism = nondeterminism
        throw found.failure
      }
      stage =
        left > 1
        ? .rerunning(found, left: left - 1)
        : .shrinking(found, Shrinker(failing: found.run, identity: found.identity))
    case .shrinking(let found, var shrinker):
      shrinker.record(run, outcome)
      stage = .shrinking(found, shrinker)
    case .checking(var found, let shortest):
      // A shortest form that does not fail again the same way is not offered.
      if run.misfit == nil, case .failure(let error) = outcome,
        ExplorationFailure.identity(of: error) == found.identity
      {
        found.failure.shortest = shortest
      }
      throw found.failure
    }
  }

  /// A run of a seed: a pass is noted (a misfit thrown), a failure is thrown or rerun.
  private mutating func explored(
    _ run: ExplorationRun, _ outcome: Result<Void, any Error>, rerunning: (any Error) -> Bool
  ) throws(ExplorationFailure) {
    mostSteps = max(mostSteps, run.choices.count)
    let misfit = run.misfit
    let error: any Error
    switch outcome {
    case .success:
      // It passed another order than the one asked for.
      guard let misfit else { return }
      error = misfit
    case .failure(let thrown):
      error = thrown
    }
    let failure = ExplorationFailure(
      seed: run.seed, strategy: run.strategy, iteration: iteration - 1, iterations: iterations,
      choices: run.choices, error: error, misfit: misfit)
    // A run that did not follow its schedule has nothing to rerun.
    guard misfit == nil, rerunning(error) else { throw failure }
    stage = .rerunning(
      Found(failure: failure, run: run, identity: ExplorationFailure.identity(of: error)),
      left: Self.checks)
  }

  /// How the rerun of `found`'s run shows the body is not deterministic: it chose differently,
  /// passed, or failed another way; nil when it failed again the same way.
  private static func nondeterminism(
    of found: Found, rerun: ExplorationRun, _ outcome: Result<Void, any Error>
  ) -> ExplorationFailure.Nondeterminism? {
    if let index = firstDifference(found.run.choices, rerun.choices) {
      return .choseDifferently(atChoice: index)
    }
    switch outcome {
    case .success:
      return .passed
    case .failure(let error):
      return ExplorationFailure.identity(of: error) == found.identity
        ? nil : .failedDifferently(String(describing: error))
    }
  }

  /// The strategy with every number it leaves open filled in.
  private var resolved: Exploration.Strategy {
    if case .pct(let depth, nil) = strategy { return .pct(depth: depth, steps: mostSteps) }
    return strategy
  }
}

/// The first choice at which two runs differ (in how many could run or which did), or where the
/// shorter ends; nil when they are the same.
private func firstDifference(_ first: [Exploration.Choice], _ second: [Exploration.Choice])
  -> Int?
{
  for index in 0..<min(first.count, second.count) where first[index] != second[index] {
    return index
  }
  return first.count == second.count ? nil : min(first.count, second.count)
}
