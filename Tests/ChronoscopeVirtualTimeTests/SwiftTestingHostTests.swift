import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Foundation
import Synchronization
import Testing

// The async clock under Swift Testing, which runs tests in parallel in one process and runs
// `@MainActor` test functions on the main queue — on Linux from a worker thread that services
// it after `dispatchMain()`, not the main thread.

/// The five scenarios, `AsyncScenario.repeats` times each, in parallel with one another and with
/// the suites below: nonisolated, synchronous and `async`.
@Suite struct ParallelScenarioTests {
  @Test(arguments: AsyncScenario.allCases)
  func synchronous(_ scenario: AsyncScenario) {
    #expect(scenario.runRepeatedly() == [])
  }

  @Test(arguments: AsyncScenario.allCases)
  func async(_ scenario: AsyncScenario) async {
    #expect(scenario.runRepeatedly() == [])
  }

  /// `Task.yield()` in a clock's task: its resumption runs on the clock, within `task`.
  @Test func aYieldingTaskRunsToItsEndWithinTask() async {
    var unfinished = 0
    for _ in 0..<AsyncScenario.repeats {
      let clock = VirtualAsyncClock()
      let yielding = clock.task { () -> Int in
        await Task.yield()
        await Task.yield()
        return 1
      }
      if yielding.result == nil { unfinished += 1 }
      await clock.advance()
    }
    #expect(unfinished == 0)
  }
}

/// The five scenarios again, from `@MainActor` test functions.
@MainActor
@Suite struct MainActorScenarioTests {
  @Test(arguments: AsyncScenario.allCases)
  func synchronous(_ scenario: AsyncScenario) {
    #expect(scenario.runRepeatedly() == [])
  }

  @Test(arguments: AsyncScenario.allCases)
  func async(_ scenario: AsyncScenario) async {
    #expect(scenario.runRepeatedly() == [])
  }
}

/// Main-actor code under test, on a clock moved from a `@MainActor` test — the shape of
/// swift-clocks' own `TestClock` tests, written here for `VirtualAsyncClock`: `Task {}`s that
/// inherit the main actor, sleeping on the clock, and `await clock.advance(…)`.
@MainActor
@Suite(.virtualTime) struct MainActorClockTests {
  private var clock: VirtualAsyncClock { VirtualAsyncClock.current ?? VirtualAsyncClock() }

  @Test func advanceWakesEachSleepInTurn() async throws {
    let clock = self.clock
    let ticks = MainActorCounter()
    let task = Task {
      while true {
        try await clock.sleep(for: .seconds(1))
        ticks.value += 1
      }
    }
    await clock.advance(by: .milliseconds(999))
    #expect(ticks.value == 0)
    await clock.advance(by: .milliseconds(1))
    #expect(ticks.value == 1)
    await clock.advance(by: .seconds(4))
    #expect(ticks.value == 5)
    task.cancel()
    await clock.advance()
  }

  @Test func aNestedUnstructuredSleepWakesInTheSameMove() async throws {
    let clock = self.clock
    let log = MainActorLog()
    Task {
      try await clock.sleep(for: .seconds(1))
      log.lines.append("outer@\(clock.now)")
      Task {
        try await clock.sleep(for: .seconds(1))
        log.lines.append("inner@\(clock.now)")
      }
    }
    await clock.advance(by: .seconds(2))
    #expect(log.lines == ["outer@1.0 seconds", "inner@2.0 seconds"])
  }

  @Test func aStructuredSleepInsideASleepWakesInTheSameMove() async throws {
    let clock = self.clock
    let log = MainActorLog()
    Task {
      try await clock.sleep(for: .seconds(1))
      async let later: Void = clock.sleep(for: .seconds(1))
      try await later
      log.lines.append("done@\(clock.now)")
    }
    await clock.advance(by: .seconds(2))
    #expect(log.lines == ["done@2.0 seconds"])
  }

  @Test func runMovesToTheLastSleep() async throws {
    let clock = self.clock
    let log = MainActorLog()
    Task {
      for second in 1...3 {
        try await clock.sleep(for: .seconds(second))
        log.lines.append("\(clock.now)")
      }
    }
    try await clock.run()
    #expect(log.lines == ["1.0 seconds", "3.0 seconds", "6.0 seconds"])
    #expect(clock.now.offset == .seconds(6))
  }

  @Test func runWithNothingToRunReturnsAtOnce() async throws {
    try await clock.run()
    #expect(clock.now.offset == .zero)
  }

  @Test func aTimeoutRaceOnTheMainActor() async throws {
    let clock = self.clock
    let log = MainActorLog()
    Task {
      do {
        try await withThrowingTaskGroup(of: String.self) { group in
          group.addTask {
            try await clock.sleep(for: .seconds(5))
            return "work"
          }
          group.addTask {
            try await clock.sleep(for: .seconds(2))
            return "timeout"
          }
          log.lines.append(try await group.next() ?? "none")
          group.cancelAll()
        }
      } catch {
        log.lines.append("\(error)")
      }
    }
    await clock.advance(by: .seconds(2))
    #expect(log.lines == ["timeout"])
  }

  @Test func aSleepDueNowWaitsForAMove() async throws {
    let clock = self.clock
    let log = MainActorLog()
    Task {
      try await clock.sleep(for: .zero)
      log.lines.append("woke")
    }
    #expect(log.lines.isEmpty)
    await clock.advance()
    #expect(log.lines == ["woke"])
  }

  @Test func cancellingASleepingTaskEndsItAtOnce() async throws {
    let clock = self.clock
    let log = MainActorLog()
    let task = Task {
      do {
        try await clock.sleep(for: .seconds(10))
        log.lines.append("woke")
      } catch {
        log.lines.append("cancelled@\(clock.now)")
      }
    }
    await clock.advance(by: .seconds(1))
    task.cancel()
    await clock.advance()
    #expect(log.lines == ["cancelled@1.0 seconds"])
  }

  /// Main-actor tasks that sleep through generic code (`some Clock`), as a view model given
  /// `any Clock<Duration>` does, started by the test and by each other, `AsyncScenario.repeats`
  /// times: each wakes at its instant in the move that reaches it.
  @Test func mainActorTasksSleepingThroughGenericCode() async throws {
    let clock = self.clock
    var wrong: [[String]] = []
    for _ in 0..<AsyncScenario.repeats {
      let log = MainActorLog()
      let start = clock.now
      Task {
        try await nap(on: clock)
        log.lines.append("outer@\(start.duration(to: clock.now))")
        Task {
          try await nap(on: clock)
          log.lines.append("inner@\(start.duration(to: clock.now))")
        }
      }
      await clock.advance(by: .seconds(2))
      if log.lines != ["outer@1.0 seconds", "inner@2.0 seconds"] { wrong.append(log.lines) }
      try await clock.run()
    }
    #expect(wrong == [])
  }

  @Test func aClockTaskFromTheMainActorRunsAtOnce() async throws {
    let clock = self.clock
    let sleeper = clock.task { () -> Duration in
      try await clock.sleep(for: .seconds(1))
      return clock.now.offset
    }
    await clock.advance(by: .seconds(1))
    #expect(try sleeper.result?.get() == .seconds(1))
    #expect(sleeper.cancel(), "already finished")
  }
}

/// A second's sleep through `Clock`, as generic code under test calls it.
private func nap<C: Clock<Duration>>(on clock: C) async throws {
  try await clock.sleep(for: .seconds(1))
}

@MainActor
final class MainActorLog {
  var lines: [String] = []
}

/// The trait: a clock per test, failures as issues of that test, leftovers checked at the end.
@Suite struct VirtualTimeTraitTests {
  @Test(.virtualTime, arguments: 0..<8)
  func eachTestGetsItsOwnClock(_ offset: Int) async throws {
    let clock = try #require(VirtualAsyncClock.current)
    #expect(clock.now.offset == .zero, "a clock no other test moved")
    let woke = clock.task { () -> Duration in
      try await clock.sleep(for: .seconds(offset))
      return clock.now.offset
    }
    await clock.advance(by: .seconds(offset))
    #expect(try woke.result?.get() == .seconds(offset))
  }

  @Test func leftoversAtTheEndOfATestAreAnIssueOfThatTest() async throws {
    let test = try #require(Test.current)
    try await withKnownIssue("the trait reports the task left waiting") {
      try await VirtualTimeTrait.virtualTime.provideScope(
        for: test, testCase: Test.Case.current
      ) {
        guard let clock = VirtualAsyncClock.current else { return }
        clock.task(name: "left behind") { try await clock.sleep(for: .seconds(5)) }
      }
    } matching: { issue in
      "\(issue)".contains("left behind") && "\(issue)".contains("now cancelled")
    }
  }

  @Test func aTestThatThrowsStillHasItsLeftoversEnded() async throws {
    struct Stopped: Error {}
    let test = try #require(Test.current)
    let reported = Mutex(false)
    try await withKnownIssue("the test threw, and left a task behind") {
      try await VirtualTimeTrait.virtualTime.provideScope(
        for: test, testCase: Test.Case.current
      ) {
        guard let clock = VirtualAsyncClock.current else { return }
        clock.task(name: "left behind") { try await clock.sleep(for: .seconds(5)) }
        throw Stopped()
      }
    } matching: { issue in
      if "\(issue)".contains("left behind") { reported.withLock { $0 = true } }
      return true
    }
    #expect(reported.withLock { $0 }, "the leftovers were reported though the test threw")
  }

  @Test func anUnimplementedSchedulerFailsTheTestItRunsIn() async throws {
    let test = try #require(Test.current)
    try await withKnownIssue("the stand-in reports its use as an issue") {
      try await VirtualTimeTrait.virtualTime.provideScope(
        for: test, testCase: Test.Case.current
      ) {
        UnimplementedScheduler(label: "network").async {}
      }
    } matching: { issue in
      "\(issue)".contains("network")
    }
  }
}
