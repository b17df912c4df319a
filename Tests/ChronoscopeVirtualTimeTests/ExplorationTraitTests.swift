@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Foundation
import Synchronization
import Testing

/// Two withdrawals of 80 from 100 on `clock`, one after looking the price up on another actor:
/// the balance left (20 when the account is right; −60 when both passed the check).
private func balanceAfterTwoWithdrawals(on clock: VirtualAsyncClock, fixed: Bool) async -> Int {
  let account = Account(balance: 100, checkingAgain: fixed)
  clock.task { await account.twoCustomersWithdraw() }
  await clock.advance()
  return await account.balance
}

/// The `.exploring` trait: each test run many times under other orders, issues naming the run's
/// seed, one more saying how to rerun it; parallel and main-actor tests alike.
@Suite struct ExplorationTraitTests {
  @Test(.exploring(iterations: 30), arguments: 0..<6)
  func parallelTestsEachExploreTheirOwnClock(_ index: Int) async throws {
    let clock = try #require(VirtualAsyncClock.current)
    #expect(clock.clock.exploration != nil, "the run's clock explores")
    #expect(await balanceAfterTwoWithdrawals(on: clock, fixed: true) == 20)
  }

  @MainActor
  @Test(.exploring(iterations: 30))
  func aMainActorTestIsExploredToo() async throws {
    let clock = try #require(VirtualAsyncClock.current)
    #expect(await balanceAfterTwoWithdrawals(on: clock, fixed: true) == 20)
  }

  @Test func eachRunGetsAFreshExploringClockAndAllRunsPassWhenTheCodeIsRight() async throws {
    let test = try #require(Test.current)
    let runs = Mutex<[UInt64]>([])
    try await ExplorationTrait.exploring(iterations: 40, seed: 1000).provideScope(
      for: test, testCase: Test.Case.current
    ) {
      guard let clock = VirtualAsyncClock.current else { return }
      runs.withLock { $0.append(clock.clock.exploration?.seed ?? 0) }
      #expect(clock.now.offset == .zero)
      #expect(await balanceAfterTwoWithdrawals(on: clock, fixed: true) == 20)
    }
    #expect(runs.withLock { $0 } == Array(1000..<1040), "40 runs, seeds 1000 to 1039")
  }

  @Test func theFirstFailingRunStopsItsIssuesSayTheSeedAndItsSeedRerunsIt() async throws {
    let test = try #require(Test.current)
    let issues = Mutex<[String]>([])
    let runs = Mutex(Set<UInt64>())
    // What the test shows: the issues as they leave the trait's scope.
    let shown = IssueHandlingTrait.compactMapIssues { issue in
      let comments = issue.comments.map(\.rawValue).joined(separator: " ")
      issues.withLock { $0.append("\(issue) \(comments)") }
      return issue
    }
    await ExplorationTrait.$countsKnownIssues.withValue(true) {
      await withKnownIssue("actor reentrancy overdraws the account in some order") {
        try await shown.provideScope(for: test, testCase: Test.Case.current) {
          try await ExplorationTrait.exploring(iterations: 200).provideScope(
            for: test, testCase: Test.Case.current
          ) {
            guard let clock = VirtualAsyncClock.current else { return }
            runs.withLock { _ = $0.insert(Exploration.runSeed ?? .max) }
            #expect(await balanceAfterTwoWithdrawals(on: clock, fixed: false) == 20)
          }
        }
      }
    }
    let recorded = issues.withLock { $0 }
    let summaries = recorded.filter { $0.contains("rerun it alone") }
    #expect(summaries.count == 1, "\(recorded)")
    let summary = try #require(summaries.first)
    #expect(summary.contains("failed: an issue was recorded (above)"), "\(summary)")
    let seedText = try #require(
      summary.split(separator: "seed: ").dropFirst().first?.prefix { $0.isNumber })
    let seed = try #require(UInt64(seedText))
    #expect(recorded.count == 2, "the run's issue, then how to rerun it: \(recorded)")
    #expect(recorded.first?.contains("in the explored run with seed \(seed)") == true)
    #expect(summary.contains("rerun it alone: .exploring(iterations: 1, seed: \(seed))"))
    #expect(runs.withLock { $0 } == Set(0...seed), "stopped at the failing run (and its reruns)")
    for _ in 0..<100 {
      let failedAgain = Mutex(false)
      await ExplorationTrait.$countsKnownIssues.withValue(true) {
        await withKnownIssue {
          try await ExplorationTrait.exploring(iterations: 1, seed: seed).provideScope(
            for: test, testCase: Test.Case.current
          ) {
            guard let clock = VirtualAsyncClock.current else { return }
            let balance = await balanceAfterTwoWithdrawals(on: clock, fixed: false)
            if balance != 20 { failedAgain.withLock { $0 = true } }
            #expect(balance == 20)
          }
        }
      }
      #expect(failedAgain.withLock { $0 })
    }
  }

  @Test func aTestThatIsNotDeterministicIsSaidToBe() async throws {
    let test = try #require(Test.current)
    let calls = Mutex(0)
    let said = Mutex(false)
    try await ExplorationTrait.$countsKnownIssues.withValue(true) {
      try await withKnownIssue("the number of requests changes from run to run") {
        try await ExplorationTrait.exploring(iterations: 100).provideScope(
          for: test, testCase: Test.Case.current
        ) {
          guard let clock = VirtualAsyncClock.current else { return }
          // State kept between runs, as a wall clock or a random source would be.
          let count = calls.withLock { calls in
            calls += 1
            return 2 + calls % 2
          }
          let network = VirtualSchedulerFactory(clock: clock.clock).makeConcurrent(label: "network")
          let order = Mutex<[Int]>([])
          for request in 0..<count { network.async { order.withLock { $0.append(request) } } }
          await clock.advance()
          #expect(order.withLock { $0.first } == 0)
        }
      } matching: { issue in
        if "\(issue)".contains("not deterministic") { said.withLock { $0 = true } }
        return true
      }
    }
    #expect(said.withLock { $0 })
  }

  @Test func aRerunThatRecordsAnotherIssueIsSaidNotToBeDeterministic() async throws {
    let test = try #require(Test.current)
    let runs = Mutex(0)
    let said = Mutex<[String]>([])
    try await ExplorationTrait.$countsKnownIssues.withValue(true) {
      try await withKnownIssue("the fifth run fails, and every run after it otherwise") {
        try await ExplorationTrait.exploring(iterations: 40).provideScope(
          for: test, testCase: Test.Case.current
        ) {
          // State kept between runs decides which expectation fails, not the order.
          let run = runs.withLock { runs in
            runs += 1
            return runs
          }
          #expect(run < 5, "the fifth run")
          #expect(run <= 5, "a run after the fifth")
        }
      } matching: { issue in
        said.withLock { $0.append("\(issue)") }
        return true
      }
    }
    let summary = try #require(said.withLock { $0 }.first { $0.contains("run 5 of 40") })
    #expect(summary.contains("made the same choices and failed another way"), "\(summary)")
    #expect(!summary.contains("rerun it alone"), "\(summary)")
  }

  @Test func theFailingRunsTraceIsKeptAndTheRerunKeepsNone() async throws {
    let test = try #require(Test.current)
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("chronoscope-exploring-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let comments = Mutex<[String]>([])
    let shown = IssueHandlingTrait.compactMapIssues { issue in
      comments.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
      return issue
    }
    await VirtualTimeTrait.$keepsTracesOfKnownIssues.withValue(true) {
      await ExplorationTrait.$countsKnownIssues.withValue(true) {
        await withKnownIssue("the last item is sold twice in some order") {
          try await shown.provideScope(for: test, testCase: Test.Case.current) {
            try await ExplorationTrait.exploring(
              iterations: 200, traces: TestTraceSettings(folder: folder.path)
            ).provideScope(for: test, testCase: Test.Case.current) {
              guard let trace = TestTraceRecorder.current else { return }
              let stock = Stock(items: 1, factory: trace.factory)
              stock.twoCustomersBuy()
              await VirtualAsyncClock.current?.advance()
              #expect(stock.sales.value.count == 1)
            }
          }
        }
      }
    }
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(files.count == 1, "the failing run's trace alone: \(files)")
    let path = folder.appendingPathComponent(try #require(files.first)).path
    let said = comments.withLock { $0 }
    #expect(said.first?.contains("chronoscope view \(path)") == true, "\(said)")
    #expect(said.first?.contains("in the explored run with seed") == true, "\(said)")
  }

  @Test func aKnownIssueInTheTestFailsNoRun() async throws {
    let test = try #require(Test.current)
    let runs = Mutex(0)
    try await ExplorationTrait.exploring(iterations: 20).provideScope(
      for: test, testCase: Test.Case.current
    ) {
      runs.withLock { $0 += 1 }
      withKnownIssue("a bug the test knows of") { Issue.record("known") }
    }
    #expect(runs.withLock { $0 } == 20, "every run ran")
  }

  @Test(arguments: [0, -1])
  func noIterationsRecordAnIssueInsteadOfPassingUntested(_ iterations: Int) async throws {
    let test = try #require(Test.current)
    let issues = Mutex<[String]>([])
    let runs = Mutex(0)
    let shown = IssueHandlingTrait.compactMapIssues { issue in
      issues.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: " ")) }
      return issue
    }
    await withKnownIssue("a test that runs nothing fails") {
      try await shown.provideScope(for: test, testCase: Test.Case.current) {
        try await ExplorationTrait.exploring(iterations: iterations).provideScope(
          for: test, testCase: Test.Case.current
        ) { runs.withLock { $0 += 1 } }
      }
    }
    #expect(runs.withLock { $0 } == 0)
    #expect(
      issues.withLock { $0 } == [
        ".exploring(iterations: \(iterations)) runs nothing, so it would pass without testing "
          + "anything: ask for 1 or more iterations"
      ])
  }
}

/// `.exploring` on a test of a `.virtualTime` suite: each run's clock is the test's current one,
/// and it explores.
@Suite(.virtualTime) struct ExplorationInsideAVirtualTimeSuiteTests {
  @Test(.exploring(iterations: 10))
  func theRunsClockIsCurrentAndExplores() async throws {
    let clock = try #require(VirtualAsyncClock.current)
    #expect(clock.clock.exploration?.seed == Exploration.runSeed)
    #expect(Exploration.runSeed != nil)
    #expect(await balanceAfterTwoWithdrawals(on: clock, fixed: true) == 20)
  }
}
