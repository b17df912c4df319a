/// Runs `body` `iterations` times, each on a fresh clock that explores another order of the
/// work that could run next, and throws the first failure with what reruns it.
///
/// Run i has seed `seed + i`: a failing run reruns alone with
/// `explore(iterations: 1, seed: failure.seed, strategy: failure.strategy)`, and one `seed`
/// explores the same orders every time. Every ``VirtualClock`` the body makes explores too (a
/// ``VirtualSchedulerFactory``'s, a ``VirtualAsyncClock``'s).
///
/// ```swift
/// try explore(iterations: 500) { clock in
///   let app = App(factory: VirtualSchedulerFactory(clock: clock))
///   app.search("swift"); clock.advance(by: .seconds(1))
///   guard app.results == ["swift"] else { throw StaleResults() }
/// }
/// ```
///
/// The body must do the same for the same choices: a body that reads the wall clock or a random
/// source, or whose work runs on threads the clock does not drive, makes a failure no seed
/// reruns. The failing run is run a second time to find out: when it chooses differently, the
/// failure says so (``ExplorationFailure/divergedAt``). Otherwise its schedule is shrunk to the
/// choices the failure needs (``ExplorationFailure/shortest``), in at most 100 more runs.
///
/// - Parameters:
///   - iterations: How many runs, 1 or more. An exploration of none would pass without testing
///     anything, so `iterations` below 1 runs nothing and throws an ``ExplorationFailure`` that
///     says so (as do the other `explore` functions, and the test hosts' `.exploring` and
///     `exploreOrders` fail their test).
public func explore(
  iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
  _ body: (VirtualClock) throws -> Void
) throws(ExplorationFailure) {
  try explore(iterations: iterations, seed: seed, strategy: strategy) { try body(VirtualClock()) }
}

/// ``explore(iterations:seed:strategy:_:)`` for a body that makes its own clocks: every
/// ``VirtualClock`` it makes explores, and ``Exploration/runSeed`` names the run. `iterations`
/// below 1 throws, as there.
public func explore(
  iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
  eachRun body: () throws -> Void
) throws(ExplorationFailure) {
  try explore(
    iterations: iterations, seed: seed, strategy: strategy, rerunning: { _ in true },
    eachRun: body)
}

/// ``explore(iterations:seed:strategy:eachRun:)`` that reruns a failure (to check that the body
/// is deterministic, and to shrink its schedule) only when `rerunning` says to: a test host's
/// helper that cannot take back the failures a rerun would report says not to.
package func explore(
  iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
  rerunning: (any Error) -> Bool, eachRun body: () throws -> Void
) throws(ExplorationFailure) {
  var explorer = Explorer(iterations: iterations, seed: seed, strategy: strategy)
  try explorer.checkRunsSomething()
  while let run = explorer.nextRun() {
    let outcome = Result { () throws -> Void in
      try Exploration.$current.withValue(run) { try body() }
    }
    guard case .failure(let error) = outcome else {
      try explorer.passed(run)
      continue
    }
    guard rerunning(error) else { throw explorer.failure(of: run, error: error, rerun: nil) }
    let again = explorer.rerun(of: run)
    _ = try? Exploration.$current.withValue(again) { try body() }
    var failure = explorer.failure(of: run, error: error, rerun: again)
    guard failure.divergedAt == nil, failure.misfit == nil else { throw failure }
    var shrinker = Shrinker(failing: run, error: error)
    while let candidate = shrinker.next() {
      let outcome = Result { () throws -> Void in
        try Exploration.$current.withValue(candidate) { try body() }
      }
      shrinker.record(candidate, outcome)
    }
    failure.shortest = shrinker.shortest
    throw failure
  }
}

/// Runs `body` `iterations` times, each on a fresh ``VirtualAsyncClock`` that explores another
/// order of the work that could run next — actions due at one instant and the ready jobs of its
/// tasks and actors — and throws the first failure with what reruns it (see
/// ``explore(iterations:seed:strategy:_:)``; `iterations` below 1 throws, as there).
///
/// ```swift
/// try await explore(iterations: 200) { clock in
///   let account = Account(balance: 100)
///   clock.task {
///     async let first = account.withdraw(80)
///     async let second = account.withdraw(80)
///     _ = await (first, second)
///   }
///   await clock.advance()
///   guard await account.balance >= 0 else { throw Overdrawn() }
/// }
/// ```
public func explore(
  iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
  isolation: isolated (any Actor)? = #isolation,
  _ body: (VirtualAsyncClock) async throws -> Void
) async throws(ExplorationFailure) {
  try await explore(iterations: iterations, seed: seed, strategy: strategy) {
    try await body(VirtualAsyncClock())
  }
}

/// Runs `body` `iterations` times, every ``VirtualClock`` it makes (those of the
/// ``VirtualAsyncClock``s and ``VirtualSchedulerFactory``s it makes) exploring another order of
/// the work that could run next, and throws the first failure with what reruns it: the building
/// block of the other `explore` functions and of test hosts' integrations (the Swift Testing
/// trait `.exploring`). ``Exploration/runSeed`` is the running run's seed. `iterations` below 1
/// throws, as in ``explore(iterations:seed:strategy:_:)``.
public func explore(
  iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
  isolation: isolated (any Actor)? = #isolation,
  eachRun body: () async throws -> Void
) async throws(ExplorationFailure) {
  try await explore(
    iterations: iterations, seed: seed, strategy: strategy, rerunning: { _ in true },
    eachRun: body)
}

/// ``explore(iterations:seed:strategy:isolation:eachRun:)`` that reruns a failure (to check that
/// the body is deterministic, and to shrink its schedule) only when `rerunning` says to.
package func explore(
  iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
  isolation: isolated (any Actor)? = #isolation, rerunning: (any Error) -> Bool,
  eachRun body: () async throws -> Void
) async throws(ExplorationFailure) {
  var explorer = Explorer(iterations: iterations, seed: seed, strategy: strategy)
  try explorer.checkRunsSomething()
  while let run = explorer.nextRun() {
    var failure: (any Error)?
    do {
      try await Exploration.$current.withValue(run) { try await body() }
    } catch {
      failure = error
    }
    guard let failure else {
      try explorer.passed(run)
      continue
    }
    guard rerunning(failure) else { throw explorer.failure(of: run, error: failure, rerun: nil) }
    let again = explorer.rerun(of: run)
    _ = try? await Exploration.$current.withValue(again) { try await body() }
    var found = explorer.failure(of: run, error: failure, rerun: again)
    guard found.divergedAt == nil, found.misfit == nil else { throw found }
    var shrinker = Shrinker(failing: run, error: failure)
    while let candidate = shrinker.next() {
      var outcome: Result<Void, any Error> = .success(())
      do {
        try await Exploration.$current.withValue(candidate) { try await body() }
      } catch {
        outcome = .failure(error)
      }
      shrinker.record(candidate, outcome)
    }
    found.shortest = shrinker.shortest
    throw found
  }
}

/// The runs of one exploration: their seeds and strategies, and what a failure says.
struct Explorer {
  let iterations: Int
  let seed: UInt64
  let strategy: Exploration.Strategy
  private(set) var iteration = 0
  /// The most choices a run made so far: PCT's step count when the strategy leaves it open.
  private var mostSteps = 1

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
      error: NoIterations(), misfit: nil, divergedAt: nil)
  }

  /// The next run, or nil after the last.
  mutating func nextRun() -> ExplorationRun? {
    guard iteration < iterations else { return nil }
    defer { iteration += 1 }
    return ExplorationRun(seed: seed &+ UInt64(iteration), strategy: resolved)
  }

  /// The strategy with every number it leaves open filled in.
  private var resolved: Exploration.Strategy {
    if case .pct(let depth, nil) = strategy { return .pct(depth: depth, steps: mostSteps) }
    return strategy
  }

  /// Notes a run that passed; throws when it did not fit the schedule it replays (it passed
  /// another order than the one asked for).
  mutating func passed(_ run: ExplorationRun) throws(ExplorationFailure) {
    mostSteps = max(mostSteps, run.choices.count)
    if let misfit = run.misfit {
      throw ExplorationFailure(
        seed: run.seed, strategy: run.strategy, iteration: iteration - 1,
        iterations: iterations, choices: run.choices, error: misfit, misfit: misfit,
        divergedAt: nil)
    }
  }

  /// The failing `run` once more, to see whether it makes the same choices.
  func rerun(of run: ExplorationRun) -> ExplorationRun {
    ExplorationRun(seed: run.seed, strategy: run.strategy)
  }

  /// The failure of `run`; `rerun`, the same seed run again, tells whether the body is
  /// deterministic (nil: not checked).
  func failure(of run: ExplorationRun, error: any Error, rerun: ExplorationRun?)
    -> ExplorationFailure
  {
    let choices = run.choices
    return ExplorationFailure(
      seed: run.seed, strategy: run.strategy, iteration: iteration - 1, iterations: iterations,
      choices: choices, error: error, misfit: run.misfit,
      divergedAt: rerun.flatMap { firstDifference(choices, $0.choices) })
  }
}

/// Shrinks a failing run's schedule: takes its choices away from first in, first out back one at
/// a time, from the last, and keeps each change after which the run still fails the same way
/// (an error of the same type). Later choices are followed where they still fit. At most
/// ``attemptLimit`` runs.
struct Shrinker {
  static let attemptLimit = 100
  private let failing: ExplorationRun
  private let errorType: String
  private let original: [Exploration.Choice]
  private var best: [Exploration.Choice]
  private var index: Int
  private var attempts = 0

  init(failing run: ExplorationRun, error: any Error) {
    failing = run
    errorType = String(reflecting: type(of: error))
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
      String(reflecting: type(of: error)) == errorType
    else { return }
    best = run.choices
    index = min(index, best.count - 1)
  }

  /// The shortest form found, when it is shorter than the failing run's.
  var shortest: [Exploration.Choice]? {
    best.count { $0.chosen != 0 } < original.count { $0.chosen != 0 } ? best : nil
  }
}

/// The first run of an exploration (``explore(iterations:seed:strategy:_:)``) that failed, with
/// what reruns it.
public struct ExplorationFailure: Error, CustomStringConvertible {
  /// The run's seed: `explore(iterations: 1, seed:strategy:)` with it and ``strategy`` reruns it.
  public let seed: UInt64
  /// The strategy the run used, every number filled in.
  public let strategy: Exploration.Strategy
  /// Which run failed, from 0, and how many the exploration was to make (as asked: below 1,
  /// when the failure is that it would make none).
  public let iteration: Int
  public let iterations: Int
  /// The run's schedule: the choices it made (see ``Exploration/choices``).
  public let choices: [Exploration.Choice]
  /// What the body threw (or the misfit, when it passed a run that did not fit its schedule;
  /// or, when `iterations` was below 1 and nothing ran, an error saying so).
  public let error: any Error
  /// Where a replayed run stopped fitting its schedule, if it did.
  public let misfit: ScheduleMisfit?
  /// Where a second run with the same seed made other choices, if it did (from 0): the body is
  /// not deterministic (it reads the wall clock, a random source, or waits for work the clock
  /// does not run), and the seed does not rerun the failure.
  public let divergedAt: Int?
  /// A shorter form of ``choices`` that fails the same way, fewer of its choices away from first
  /// in, first out (taking the first enabled), if shrinking found one: the order the bug needs,
  /// with less that does not matter.
  public internal(set) var shortest: [Exploration.Choice]?

  /// How to rerun the failing run alone by its seed.
  public var rerun: String { rerun(calling: "explore") }

  /// The run's choices as a schedule ``Exploration/Strategy/replaying(schedule:)`` reruns.
  public var schedule: String { Exploration.schedule(of: choices) }

  public var description: String { report(calling: "explore") }

  /// `function(iterations: 1, seed: …)`: the call that reruns the failing run alone.
  private func rerun(calling function: String) -> String {
    let strategy = strategy == .random ? "" : ", strategy: \(strategy)"
    return "\(function)(iterations: 1, seed: \(seed)\(strategy))"
  }

  /// What failed, and how to rerun it with `function` (`explore`, or a test host's
  /// `.exploring` or `exploreOrders`).
  package func report(calling function: String) -> String {
    if error is NoIterations {
      return "\(function)(iterations: \(iterations)) runs nothing, so it would pass without "
        + "testing anything: ask for 1 or more iterations"
    }
    let run = "run \(iteration + 1) of \(iterations) failed: \(error)"
    if let divergedAt {
      return """
        \(run)
        but the body is not deterministic: run again with seed \(seed), it chose differently \
        at choice \(divergedAt + 1) of \(choices.count) — does it read the wall clock or a random \
        source, or wait for work on threads the clock does not run?
        """
    }
    let misfitLine = misfit.map { "\n\($0)" } ?? ""
    var shortestLine = ""
    if let shortest {
      let away = shortest.count { $0.chosen != 0 }
      shortestLine = """

        shortest form found, \(away) choice\(away == 1 ? "" : "s") away from first in, first out \
        (the run's: \(choices.count { $0.chosen != 0 })): \
        \(function)(iterations: 1, strategy: .replaying(schedule: "\(Exploration.schedule(of: shortest))"))
        """
    }
    return """
      \(run)\(misfitLine)
      rerun it alone: \(rerun(calling: function))
      or by its schedule (\(choices.count) choices): \
      \(function)(iterations: 1, strategy: .replaying(schedule: "\(schedule)"))\(shortestLine)
      """
  }
}

/// What an exploration asked for no runs fails with (its ``ExplorationFailure`` says it all).
struct NoIterations: Error, CustomStringConvertible {
  var description: String { "no runs were asked for (iterations below 1)" }
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
