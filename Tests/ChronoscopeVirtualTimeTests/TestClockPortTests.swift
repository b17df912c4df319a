import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Dispatch
import Foundation
import Testing

/// swift-clocks' own `TestClock` tests (Tests/ClocksTests/TestClocksTests.swift, 1.1.1), each
/// scenario rewritten for `VirtualAsyncClock` and run from `@MainActor` under Swift Testing —
/// where Swift Testing runs them on the main queue from a worker thread — in parallel with the
/// other suites. The `Task {}`s inherit the main actor, as in an app's view model.
///
/// Where the originals wait for a task to start (`while !started { await Task.yield() }`) the
/// port moves the clock instead: a task the test starts runs at the clock's next move, so there
/// is nothing to wait for, and nothing to race.
@MainActor
@Suite(.virtualTime) struct TestClockPortTests {
  private var clock: VirtualAsyncClock { VirtualAsyncClock.current ?? VirtualAsyncClock() }

  /// A main-actor task that sleeps a second five times, each sleep started when the one before
  /// woke: it returns 5.
  private func fiveSleepsInARow(on clock: VirtualAsyncClock) -> Task<Int, any Error> {
    Task {
      var count = 0
      for _ in 1...5 {
        try await clock.sleep(until: clock.now.advanced(by: .seconds(1)))
        count += 1
      }
      return count
    }
  }

  /// A main-actor task that sleeps a second, then logs "finished"; it has started, not finished.
  private func sleepsASecondThenFinishes(on clock: VirtualAsyncClock) async -> MainActorLog {
    let finished = MainActorLog()
    Task {
      try await clock.sleep(until: clock.now.advanced(by: .seconds(1)))
      finished.lines.append("finished")
    }
    await clock.advance()
    #expect(finished.lines.isEmpty)
    return finished
  }

  @Test func advance() async {
    let clock = self.clock
    let finished = await sleepsASecondThenFinishes(on: clock)
    await clock.advance(by: .seconds(1))
    #expect(finished.lines == ["finished"])
  }

  @Test func advanceWithReentrantUnitsOfWork() async throws {
    let clock = self.clock
    let task = fiveSleepsInARow(on: clock)
    await clock.advance(by: .seconds(5))
    #expect(try await task.value == 5)
  }

  @Test func run() async throws {
    let clock = self.clock
    let finished = await sleepsASecondThenFinishes(on: clock)
    try await clock.run()
    #expect(finished.lines == ["finished"])
  }

  @Test func runStopsAnEndlessLoopAtItsHorizon() async throws {
    let clock = self.clock
    let running = MainActorLog()
    let loop = Task {
      while running.lines.isEmpty {
        try await clock.sleep(for: .seconds(1))
      }
    }
    await #expect(throws: VirtualTimeError.self) { try await clock.run(horizon: .seconds(10)) }
    running.lines.append("stop")
    await clock.advance(by: .seconds(1))
    _ = try await loop.value
  }

  @Test func runMultipleUnitsOfWork() async throws {
    let clock = self.clock
    let ticks = Task {
      var ticks = 0
      while ticks < 10 {
        try await clock.sleep(for: .seconds(1))
        ticks += 1
      }
      return ticks
    }
    try await clock.run()
    #expect(try await ticks.value == 10)
    #expect(clock.now.offset == .seconds(10))
  }

  @Test func runWithReentrantUnitsOfWork() async throws {
    let clock = self.clock
    let task = fiveSleepsInARow(on: clock)
    try await clock.run()
    #expect(try await task.value == 5)
  }

  @Test func checkScheduledWork() async throws {
    let clock = self.clock
    Task { try await clock.sleep(for: .seconds(1)) }
    await clock.advance()
    #expect(throws: VirtualTimeError.self) { try clock.checkNoPendingWork() }
    await clock.advance(by: .seconds(1))
    try clock.checkNoPendingWork()
  }

  @Test func cooperativeCancellation() async {
    let clock = self.clock
    let finished = MainActorLog()
    let task = Task {
      try await clock.sleep(for: .seconds(1))
      finished.lines.append("finished")
    }
    task.cancel()
    try? await clock.run()
    #expect(finished.lines.isEmpty)
  }

  @Test func cancellationRemovesTheScheduledSleep() async throws {
    let clock = self.clock
    let task = Task { try await clock.sleep(for: .seconds(1)) }
    await clock.advance()
    #expect(clock.clock.pendingActions.count == 1)
    task.cancel()
    await clock.advance()
    try clock.checkNoPendingWork()
  }

  @Test func now() async throws {
    let clock = self.clock
    let task = Task { try await clock.sleep(for: .seconds(5)) }
    let start = clock.now
    await clock.advance(by: .seconds(5))
    #expect(start.advanced(by: .seconds(5)) == clock.now)
    try await task.value
  }

  @Test func runSorting() async throws {
    let clock = self.clock
    let task = Task {
      try await withThrowingTaskGroup(of: Int.self, returning: [Int].self) { group in
        group.addTask {
          try await clock.sleep(for: .seconds(2))
          return 2
        }
        group.addTask {
          try await clock.sleep(for: .seconds(1))
          return 1
        }
        var order: [Int] = []
        for try await value in group { order.append(value) }
        return order
      }
    }
    try await clock.run()
    #expect(try await task.value == [1, 2])
  }

  /// The original moves the clock from a `Task` that sleeps a real second first. A task the test
  /// starts is the clock's and waits for a move, so the port moves it from a Dispatch queue.
  @Test func sleepUntilExactlyNow() async throws {
    let clock = self.clock
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { clock.advance() }
    try await clock.sleep(until: clock.now)
    #expect(clock.now.offset == .zero)
  }
}
