import ChronoscopeVirtualTime
import Synchronization
import Testing

/// A Swift Testing trait that runs each test many times, each run under another order of the
/// work that could run next (``Exploration``), and stops at the first run with an issue: its
/// issues say the run's seed, and one more says how to rerun it alone.
///
/// Each run gets its own ``VirtualAsyncClock`` (``VirtualAsyncClock/current``) and
/// ``TestTraceRecorder`` (``TestTraceRecorder/current``), as the `.virtualTime` trait gives them —
/// with the same checks at the run's end — and every ``VirtualClock`` the test makes explores
/// with the run's seed. The failing run's trace is kept, as `.virtualTime` keeps a failing
/// test's: its first issue says where, and shows the inspector at the last work before the failure.
///
/// ```swift
/// @Test(.exploring(iterations: 200)) func withdrawalsNeverOverdraw() async throws {
///   let clock = try #require(VirtualAsyncClock.current)
///   let account = Account(balance: 100)
///   clock.task {
///     async let first = account.withdraw(80)
///     async let second = account.withdraw(80)
///     _ = await (first, second)
///   }
///   await clock.advance()
///   #expect(await account.balance == 20)
/// }
/// ```
///
/// A failing run is run again with its seed, its issues set aside: when a rerun chooses
/// differently, passes, or records other issues (other messages, or at other places), the test
/// is not deterministic (it reads the wall clock or a random source, keeps state from run to
/// run, or waits for work on threads the clock does not run), and an issue says so instead of
/// how to rerun it. Its schedule is shrunk keeping only runs that record the same issues.
public struct ExplorationTrait: TestTrait, SuiteTrait, TestScoping {
  /// How many runs.
  public let iterations: Int
  /// The first run's seed: run i has `seed + i`.
  public let seed: UInt64
  /// How each run chooses what runs next.
  public let strategy: Exploration.Strategy
  /// How long code may wait on a run's clock with nobody moving it.
  public let idleLimit: Duration
  /// Where the failing run's trace goes (nil: where the environment says); see
  /// ``TestTraceSettings``. Only the failing run's is kept, even when every test's trace is.
  public let traces: TestTraceSettings?

  public var isRecursive: Bool { true }

  /// Explored per test case: a suite and a parameterized test's outer call are not.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // Set once a run failed: the rerun that checks determinism records nothing.
    let failed = Atomic<Bool>(false)
    var settings = traces ?? .fromEnvironment
    settings.keepsPassingTests = false
    let clockTrait = VirtualTimeTrait.virtualTime(idleLimit: idleLimit, traces: settings)
    do {
      // A cancelled test is not a failing run: nothing to rerun or shrink.
      try await explore(
        iterations: iterations, seed: seed, strategy: strategy,
        rerunning: { !($0 is CancellationError) }
      ) {
        let quiet = failed.load(ordering: .acquiring)
        let issues = Mutex<[String]>([])
        let run = Exploration.runSeed.map { "explored run with seed \($0)" } ?? "explored run"
        let handling = IssueHandlingTrait.compactMapIssues { issue in
          // A known issue (`withKnownIssue` in the test) fails no run.
          guard issue.isFailure || Self.countsKnownIssues else { return issue }
          issues.withLock { $0.append(Self.identity(of: issue)) }
          guard !quiet else { return nil }
          var issue = issue
          issue.comments.append(Comment(rawValue: "in the \(run)"))
          return issue
        }
        var thrown: (any Error)?
        do {
          try await handling.provideScope(for: test, testCase: testCase) {
            try await VirtualTimeTrait.$keepsTraces.withValue(!quiet) {
              try await clockTrait.provideScope(
                for: test, testCase: testCase, performing: function)
            }
          }
        } catch {
          thrown = error
        }
        let recorded = issues.withLock { $0 }
        guard thrown == nil, recorded.isEmpty else {
          failed.store(true, ordering: .releasing)
          throw thrown ?? IssuesRecorded(identities: recorded)
        }
      }
    } catch  where error.error is CancellationError {
      throw error.error
    } catch {
      Issue.record(
        Comment(rawValue: error.report(calling: ".exploring")), sourceLocation: test.sourceLocation)
    }
  }

  /// Whether known issues fail a run: for the trait's own tests, which can only see its issues
  /// as known ones.
  @TaskLocal package static var countsKnownIssues = false

  /// Which failure `issue` is: what it says (its kind, with the values an expectation saw, and
  /// the test's comments) and where it was recorded — not the comments runs add (the kept
  /// trace's), which differ from one run of the same failure to the next.
  private static func identity(of issue: Issue) -> String {
    let comments = issue.comments.map(\.rawValue).filter { !KeptTrace.isMessage($0) }
    let location = issue.sourceLocation.map { "\($0)" } ?? "unknown location"
    return ([location, "\(issue.kind)"] + comments).joined(separator: "\n")
  }
}

/// A run that recorded issues (they were recorded already; this only stops the exploration).
/// Two runs fail the same way when they recorded the same issues at the same places.
struct IssuesRecorded: IdentifiedFailure, CustomStringConvertible {
  /// Each issue's identity, in the order recorded.
  let identities: [String]

  var failureIdentity: String { identities.joined(separator: "\n\n") }

  var description: String {
    identities.count == 1
      ? "an issue was recorded (above)" : "\(identities.count) issues were recorded (above)"
  }
}

extension Trait where Self == ExplorationTrait {
  /// Runs the test (each test of a suite) `iterations` times, each under another order of the
  /// work that could run next, from `seed`, chosen by `strategy`; see ``ExplorationTrait``.
  ///
  /// `iterations` below 1 runs the test not at all and records an issue saying so: a test that
  /// runs nothing must not pass.
  public static func exploring(
    iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
    idleLimit: Duration = .seconds(10), traces: TestTraceSettings? = nil
  ) -> Self {
    ExplorationTrait(
      iterations: iterations, seed: seed, strategy: strategy, idleLimit: idleLimit,
      traces: traces)
  }
}
