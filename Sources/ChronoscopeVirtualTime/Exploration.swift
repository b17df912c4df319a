import ChronoscopeCore
import Synchronization

/// A seeded choice among the work that could run next, for finding the order of work that
/// breaks a test, and rerunning it.
///
/// A ``VirtualClock`` made with one runs, at each step, one of the actions enabled at the
/// earliest due instant instead of the first queued; a ``VirtualAsyncClock`` over it also picks
/// which ready job of its tasks and actors runs next. Serial and main schedulers stay first in,
/// first out, an actor runs one job at a time, and nothing runs early: every order is one
/// production could produce. The same seed and strategy make the same choices, so a failing
/// order reruns exactly.
///
/// ```swift
/// let clock = VirtualClock(exploring: Exploration(seed: 7, strategy: .pct(depth: 2)))
/// ```
///
/// ``explore(iterations:seed:strategy:_:)`` runs a test body under many seeds.
public struct Exploration: Sendable {
  /// How an exploration picks among the work that could run next.
  public enum Strategy: Sendable, Hashable, CustomStringConvertible {
    /// Each choice takes one of the enabled pieces of work, each as likely.
    case random
    /// Probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010): every queue, task
    /// or actor gets a random priority, the highest enabled runs, and at `depth` − 1 random
    /// steps the one chosen drops below all others. A bug that needs `depth` ordering
    /// constraints is found in one run with probability at least 1/(n·k^(depth−1)), for n
    /// queues and tasks and k steps — far better than random for deep bugs in long runs.
    ///
    /// `steps` is k, the number of choices a run makes among two or more; nil lets
    /// ``explore(iterations:seed:strategy:_:)`` take the most seen in the runs so far (a
    /// failure names the number it used, to rerun it).
    ///
    /// Any numbers are taken, none traps: a `depth` below 1 is taken as 1 (no change points:
    /// the highest enabled always runs), one above 1,025 as 1,025 (at most 1,024 change points,
    /// a depth that large finds nothing a smaller one misses), and a `steps` below 1 as 1.
    case pct(depth: Int, steps: Int? = nil)
    /// The choices of a schedule a failure printed (``ExplorationFailure/schedule``): each
    /// `chosen/enabled`, one-based, separated by spaces (`"2/2 1/3"`). Unlike a seed, a schedule
    /// knows how many pieces of work could run at each choice: a run whose work does not fit it
    /// (the test changed since) fails with a ``ScheduleMisfit`` saying where, as does a schedule
    /// that cannot be read. After the schedule's last choice the run takes the first enabled, as
    /// first in, first out would: a shortest form (``ExplorationFailure/shortest``) ends at its
    /// last choice away from it.
    case replaying(schedule: String)

    public var description: String {
      switch self {
      case .random: ".random"
      case .pct(let depth, let steps?): ".pct(depth: \(depth), steps: \(steps))"
      case .pct(let depth, nil): ".pct(depth: \(depth))"
      case .replaying(let schedule): ".replaying(schedule: \"\(schedule)\")"
      }
    }
  }

  /// One choice of a run: how many pieces of work could run, and which did (from 0).
  public struct Choice: Sendable, Hashable, CustomStringConvertible {
    /// How many pieces of work could run.
    public let enabled: Int
    /// Which of them ran, from 0.
    public let chosen: Int

    /// `2 of 3`.
    public var description: String { "\(chosen + 1) of \(enabled)" }
  }

  /// The seed the choices come from.
  public let seed: UInt64
  /// How the choices are made.
  public let strategy: Strategy
  private var random: SplitMix64
  /// The choices made so far, one per step with more than one piece of work enabled.
  public private(set) var choices: [Choice] = []
  /// Under PCT: each chain's priority (higher runs first), drawn when it is first seen.
  private var priorities: [UInt64: UInt64] = [:]
  /// Under PCT: the steps (counted from 1) at which the chosen chain drops below all others,
  /// ascending.
  private var changePoints: [Int] = []
  /// Under PCT: the strategy's depth, clamped to `1...maxDepth` so that no arithmetic on it
  /// overflows.
  private var depth = 1
  /// At most 1,024 change points: a depth that large finds nothing a smaller one misses.
  private static let maxDepth = 1_025
  /// Replaying: the schedule's choices, and where the run stopped fitting it, if it did.
  private var schedule: [Choice] = []
  /// Where a replayed schedule stopped fitting the run (see ``ScheduleMisfit``); nil while it
  /// fits, and for a run that is not a replay.
  public private(set) var misfit: ScheduleMisfit?
  /// Whether a schedule is only followed where it fits (first in, first out elsewhere), not
  /// enforced: for shrinking a failing schedule, whose shorter forms change what comes after.
  private var leniently = false

  /// Choices from `seed`, made by `strategy`.
  public init(seed: UInt64, strategy: Strategy = .random) {
    self.seed = seed
    self.strategy = strategy
    random = SplitMix64(seed: seed)
    if case .pct(let asked, let steps) = strategy {
      depth = min(max(asked, 1), Self.maxDepth)
      // d − 1 distinct steps among 1...k (fewer when k is smaller).
      let k = max(steps ?? 1, 1)
      var points = Set<Int>()
      let wanted = min(depth - 1, k)
      while points.count < wanted { points.insert(1 + Int(random.next() % UInt64(k))) }
      changePoints = points.sorted()
    }
    if case .replaying(let text) = strategy {
      switch Self.parse(schedule: text) {
      case .success(let choices): schedule = choices
      case .failure(let misfit): self.misfit = misfit
      }
    }
  }

  /// Follows `choices` where they fit the run's work, and takes the first enabled elsewhere.
  init(seed: UInt64, following choices: [Choice]) {
    self.init(seed: seed, strategy: .replaying(schedule: Self.schedule(of: choices)))
    leniently = true
  }

  /// The choices of a schedule written as ``ExplorationFailure/schedule`` writes it.
  static func parse(schedule text: String) -> Result<[Choice], ScheduleMisfit> {
    var choices: [Choice] = []
    for (index, word) in text.split(separator: " ").enumerated() {
      let parts = word.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, let chosen = Int(parts[0]), let enabled = Int(parts[1]),
        enabled > 1, (1...enabled).contains(chosen)
      else {
        return .failure(
          ScheduleMisfit(
            choice: index,
            reason: "\"\(word)\" is not a choice: write chosen/enabled, as in 2/3, 2 or more "
              + "enabled and 1 to that many chosen",
            unreadable: true))
      }
      choices.append(Choice(enabled: enabled, chosen: chosen - 1))
    }
    return .success(choices)
  }

  /// `choices` written as a schedule ``Strategy/replaying(schedule:)`` takes.
  public static func schedule(of choices: [Choice]) -> String {
    choices.map { "\($0.chosen + 1)/\($0.enabled)" }.joined(separator: " ")
  }

  /// The misfit of a replayed run that ended: the one found, or a schedule with choices left.
  var misfitAtEnd: ScheduleMisfit? {
    if leniently { return nil }
    if let misfit { return misfit }
    guard case .replaying = strategy, choices.count < schedule.count else { return nil }
    return ScheduleMisfit(
      choice: choices.count,
      reason: "the run ended after \(choices.count) choices; the schedule has \(schedule.count)")
  }

  /// Which of `chains` runs next: one entry per enabled piece of work, naming the queue, task or
  /// actor it belongs to (distinct numbers for distinct chains; PCT keeps a priority per chain).
  /// Only a choice among two or more is recorded.
  mutating func choose(among chains: [UInt64]) -> Int {
    guard chains.count > 1 else { return 0 }
    let chosen: Int
    switch strategy {
    case .random:
      chosen = Int(random.next() % UInt64(chains.count))
    case .replaying:
      chosen = replayed(among: chains.count)
    case .pct:
      let step = choices.count + 1
      for chain in chains where priorities[chain] == nil {
        // Above every change point's priority (0..<depth): the initial ones all run first.
        priorities[chain] = max(random.next(), UInt64(depth))
      }
      var pick = highest(among: chains)
      if let point = changePoints.firstIndex(of: step) {
        // Each later change point drops its chain below the ones dropped before.
        priorities[chains[pick]] = UInt64(depth - 1 - point)
        pick = highest(among: chains)
      }
      chosen = pick
    }
    choices.append(Choice(enabled: chains.count, chosen: chosen))
    return chosen
  }

  /// The schedule's next choice among `count`, or the first (as first in, first out would) once
  /// the run does not fit the schedule, saying where it stopped fitting.
  private mutating func replayed(among count: Int) -> Int {
    guard misfit == nil else { return 0 }
    let index = choices.count
    if leniently {
      return index < schedule.count && schedule[index].chosen < count ? schedule[index].chosen : 0
    }
    // After the schedule's end, first in, first out.
    guard index < schedule.count else { return 0 }
    guard schedule[index].enabled == count else {
      misfit = ScheduleMisfit(
        choice: index,
        reason:
          "\(count) pieces of work could run where the schedule says \(schedule[index].enabled)")
      return 0
    }
    return schedule[index].chosen
  }

  /// The index of the chain with the highest priority (the first of equals).
  private func highest(among chains: [UInt64]) -> Int {
    var best = 0
    for index in chains.indices.dropFirst()
    where priorities[chains[index], default: 0] > priorities[chains[best], default: 0] {
      best = index
    }
    return best
  }

  /// The exploration a ``VirtualClock`` made inside ``explore(iterations:seed:strategy:_:)``
  /// (or the Swift Testing trait that explores) runs under when not given one.
  @TaskLocal static var current: ExplorationRun?

  /// The seed of the explored run the calling task is in (inside an `explore` body or a test
  /// the Swift Testing trait explores), nil outside one: what a report of a failure names.
  public static var runSeed: UInt64? { current?.seed }
}

/// Where a run stopped fitting the schedule it replays (``Exploration/Strategy/replaying(schedule:)``):
/// the schedule came from another version of the test, or the body is not deterministic; or
/// where the schedule could not be read.
public struct ScheduleMisfit: Error, Sendable, Equatable, CustomStringConvertible {
  /// The choice (from 0) that did not fit, or could not be read.
  public let choice: Int
  /// How it did not.
  public let reason: String
  /// Whether the schedule could not be read at ``choice`` (it is no schedule ``Exploration``
  /// writes), rather than not fitting the run's work.
  public let unreadable: Bool

  init(choice: Int, reason: String, unreadable: Bool = false) {
    self.choice = choice
    self.reason = reason
    self.unreadable = unreadable
  }

  public var description: String {
    unreadable
      ? "the schedule cannot be read at choice \(choice + 1): \(reason)"
      : "the schedule does not fit this test's work at choice \(choice + 1): \(reason) — was "
        + "it written by another version of the test?"
  }
}

/// One run of an exploration: the seed and strategy every clock made during it explores with,
/// and those clocks, whose choices make the run's schedule.
final class ExplorationRun: Sendable {
  let seed: UInt64
  let strategy: Exploration.Strategy
  /// Held for the run's length: their choices are the run's schedule.
  private let clocks = Mutex<[VirtualClock]>([])

  /// Set when the run follows a schedule leniently (shrinking).
  private let following: [Exploration.Choice]?

  init(seed: UInt64, strategy: Exploration.Strategy) {
    self.seed = seed
    self.strategy = strategy
    following = nil
  }

  /// A run of `failing`'s seed and strategy that follows `choices` where they fit.
  init(of failing: ExplorationRun, following choices: [Exploration.Choice]) {
    seed = failing.seed
    strategy = failing.strategy
    following = choices
  }

  /// A new exploration for a clock made during the run. A schedule is the first clock's: later
  /// ones explore with the run's seed.
  func exploration(for clock: VirtualClock) -> Exploration {
    let first = clocks.withLock { clocks in
      clocks.append(clock)
      return clocks.count == 1
    }
    if let following, first { return Exploration(seed: seed, following: following) }
    if case .replaying = strategy, !first { return Exploration(seed: seed) }
    if following != nil { return Exploration(seed: seed) }
    return Exploration(seed: seed, strategy: strategy)
  }

  /// Where the run stopped fitting the schedule it replays, if it does.
  var misfit: ScheduleMisfit? {
    clocks.withLock { $0 }.lazy.compactMap { $0.exploration?.misfitAtEnd }.first
  }

  /// The choices of the run's clocks, in the order the clocks were made.
  var choices: [Exploration.Choice] {
    clocks.withLock { $0 }.flatMap { $0.exploration?.choices ?? [] }
  }
}

/// The numbers an exploration knows the chains of work by — a serial scheduler, an action on a
/// concurrent one, a task, an actor's job — each kind in a range of its own, so that no two
/// chains alive at once share one.
enum Chain {
  private static let schedulers = Atomic<UInt64>(0)
  private static let untaskedJobs = Atomic<UInt64>(0)

  /// A new scheduler's.
  static func scheduler() -> UInt64 {
    schedulers.add(1, ordering: .relaxed).newValue & (1 << 61 - 1)
  }

  /// An action's on a concurrent scheduler, by its ticket.
  static func action(ticket: UInt64) -> UInt64 { 1 << 61 | ticket & (1 << 61 - 1) }

  /// A job's: its task's, or a job of its own when it runs for no task (an actor's).
  static func job(task: UInt64) -> UInt64 {
    guard task == 0 else { return 2 << 61 | task & (1 << 61 - 1) }
    return 3 << 61 | untaskedJobs.add(1, ordering: .relaxed).newValue & (1 << 61 - 1)
  }
}
