/// The first run of an exploration (``explore(iterations:seed:strategy:_:)``) that failed, with
/// what reruns it.
public struct ExplorationFailure: Error, CustomStringConvertible {
  /// How a second run with the failing run's seed showed that the body is not deterministic.
  public enum Nondeterminism: Sendable, Equatable {
    /// It made another choice at this one (from 0), or ended at it.
    case choseDifferently(atChoice: Int)
    /// It made the same choices and passed.
    case passed
    /// It made the same choices and failed another way: another error, or one saying something
    /// else (under a test host, other issues, or issues at other places). What it threw.
    case failedDifferently(String)
  }

  /// The run's seed: `explore(iterations: 1, seed:strategy:)` with it and ``strategy`` reruns it
  /// (unless the body is not deterministic, ``nondeterminism``).
  public let seed: UInt64
  /// The strategy the run used, every number filled in.
  public let strategy: Exploration.Strategy
  /// Which run failed, from 0, and how many the exploration was to make (as asked: below 1,
  /// when the failure is that it would make none).
  public let iteration: Int
  /// How many runs the exploration was to make.
  public let iterations: Int
  /// The run's schedule: the choices it made (see ``Exploration/choices``).
  public let choices: [Exploration.Choice]
  /// What the body threw (or the misfit, when it passed a run that did not fit its schedule;
  /// or, when `iterations` was below 1 and nothing ran, an error saying so).
  public let error: any Error
  /// Where a replayed run stopped fitting its schedule, if it did.
  public let misfit: ScheduleMisfit?
  /// How a second run with the same seed did not fail the same way, if it did not: the body is
  /// not deterministic (it reads the wall clock or a random source, keeps state from run to run,
  /// or waits for work the clock does not run), and neither the seed nor the schedule reruns the
  /// failure.
  public internal(set) var nondeterminism: Nondeterminism?
  /// A shorter form of ``choices`` that fails the same way, fewer of its choices away from first
  /// in, first out (taking the first enabled), if shrinking found one and it failed the same way
  /// again when replayed: the order the bug needs, with less that does not matter. It ends at its
  /// last choice away from first in, first out.
  public internal(set) var shortest: [Exploration.Choice]?

  init(
    seed: UInt64, strategy: Exploration.Strategy, iteration: Int, iterations: Int,
    choices: [Exploration.Choice], error: any Error, misfit: ScheduleMisfit?
  ) {
    self.seed = seed
    self.strategy = strategy
    self.iteration = iteration
    self.iterations = iterations
    self.choices = choices
    self.error = error
    self.misfit = misfit
  }

  /// Where a second run with the same seed made other choices, if it did (from 0); see
  /// ``nondeterminism``.
  public var divergedAt: Int? {
    guard case .choseDifferently(let index) = nondeterminism else { return nil }
    return index
  }

  /// How to rerun the failing run alone by its seed.
  public var rerun: String { rerun(calling: "explore") }

  /// The run's choices as a schedule ``Exploration/Strategy/replaying(schedule:)`` reruns.
  public var schedule: String { Exploration.schedule(of: choices) }

  public var description: String { report(calling: "explore") }

  /// Which failure `error` is, to tell whether another run failed the same way: what an
  /// ``IdentifiedFailure`` says, or else the error's type and description.
  package static func identity(of error: any Error) -> String {
    if let identified = error as? any IdentifiedFailure { return identified.failureIdentity }
    return "\(String(reflecting: type(of: error))): \(String(describing: error))"
  }

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
    let run = "run \(iteration + 1) of \(iterations)"
    if let misfit {
      // The run took the first enabled after the misfit: neither its seed nor its choices
      // rerun anything worth offering.
      guard error is ScheduleMisfit else { return "\(run) failed: \(error)\n\(misfit)" }
      return "\(run): \(misfit)"
    }
    if let nondeterminism {
      return "\(run) failed: \(error)\n" + Self.notDeterministic(nondeterminism, of: choices)
    }
    var lines = [
      "\(run) failed: \(error)",
      "rerun it alone: \(rerun(calling: function))",
      "or by its schedule (\(Self.choices(choices.count))): "
        + "\(function)(iterations: 1, strategy: .replaying(schedule: \"\(schedule)\"))",
    ]
    if let shortest {
      let replay =
        "\(function)(iterations: 1, strategy: .replaying(schedule: \"\(Exploration.schedule(of: shortest))\"))"
      let away = shortest.count { $0.chosen != 0 }
      lines.append(
        away == 0
          ? "it fails first in, first out too, so the order may not matter: \(replay)"
          : "shortest form found, \(Self.choices(away)) away from first in, first out (the "
            + "run's: \(choices.count { $0.chosen != 0 })): \(replay)")
    }
    return lines.joined(separator: "\n")
  }

  /// What a failure that did not happen again says: how the second run went, and no rerun.
  private static func notDeterministic(
    _ nondeterminism: Nondeterminism, of choices: [Exploration.Choice]
  ) -> String {
    let second: String
    switch nondeterminism {
    case .choseDifferently(let index):
      second = "chose differently at choice \(index + 1) of \(choices.count)"
    case .passed:
      second = "made the same choices and passed"
    case .failedDifferently(let error):
      second = "made the same choices and failed another way: \(error)"
    }
    return "but the body is not deterministic: a second run with the same seed \(second), so "
      + "neither the seed nor the schedule reruns this failure — does the body read the wall "
      + "clock or a random source, keep state from run to run, or wait for work on threads the "
      + "clock does not run?"
  }

  /// `1 choice`, `3 choices`.
  private static func choices(_ count: Int) -> String {
    count == 1 ? "1 choice" : "\(count) choices"
  }
}

/// An error that says which failure it stands for, when its type and description do not: a test
/// host's "issues were recorded", whose issues tell one failure from another. Two runs fail the
/// same way when their errors' identities are equal.
package protocol IdentifiedFailure: Error {
  /// What tells this failure from another: its messages and where they were recorded.
  var failureIdentity: String { get }
}

/// What an exploration asked for no runs fails with (its ``ExplorationFailure`` says it all).
struct NoIterations: Error, CustomStringConvertible {
  var description: String { "no runs were asked for (iterations below 1)" }
}
