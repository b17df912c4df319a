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
/// source, keeps state from run to run, or whose work runs on threads the clock does not drive,
/// makes a failure no seed reruns. The failing run is run a second time to find out: when that
/// run chooses differently, passes, or fails another way (another error, or one that says
/// something else), the failure says the body is not deterministic
/// (``ExplorationFailure/nondeterminism``) and offers no rerun. Otherwise its schedule is shrunk
/// to the choices the failure needs (``ExplorationFailure/shortest``), in at most 100 more runs,
/// and the shortest form is replayed once more to check that it fails the same way.
///
/// In an async function this overload gives way to the one for a ``VirtualAsyncClock``, even for
/// a body that awaits nothing: `try await explore(iterations: 10) { clock in clock.advance() }`
/// explores an async clock.
///
/// - Parameters:
///   - iterations: How many runs, 1 or more. An exploration of none would pass without testing
///     anything, so `iterations` below 1 runs nothing and throws an ``ExplorationFailure`` that
///     says so (as do the other `explore` functions, and the test hosts' `.exploring` and
///     `exploreOrders` fail their test).
@_disfavoredOverload
public func explore(
  iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
  _ body: (VirtualClock) throws -> Void
) throws(ExplorationFailure) {
  try explore(iterations: iterations, seed: seed, strategy: strategy) { try body(VirtualClock()) }
}

/// ``explore(iterations:seed:strategy:_:)`` for a body that makes its own clocks: every
/// ``VirtualClock`` it makes explores, and ``Exploration/runSeed`` names the run. `iterations`
/// below 1 throws, as there. In an async function it gives way to the async form.
@_disfavoredOverload
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
  while let run = try explorer.nextRun() {
    let outcome = Result { () throws -> Void in
      try Exploration.$current.withValue(run) { try body() }
    }
    try explorer.record(run, outcome, rerunning: rerunning)
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
  while let run = try explorer.nextRun() {
    var outcome: Result<Void, any Error> = .success(())
    do {
      try await Exploration.$current.withValue(run) { try await body() }
    } catch {
      outcome = .failure(error)
    }
    try explorer.record(run, outcome, rerunning: rerunning)
  }
}
