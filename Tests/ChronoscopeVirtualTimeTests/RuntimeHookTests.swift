import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import Foundation
import Synchronization
import XCTest

@testable import ChronoscopeVirtualTime

/// The runtime's global enqueue hook, shared with other libraries (swift-concurrency-extras'
/// `withMainSerialExecutor` sets it too): chained to, handed back, and a replacement reported.
final class RuntimeHookTests: XCTestCase {
  private typealias Original = @convention(thin) (UnownedJob) -> Void
  private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

  private static let counted = Atomic<Int>(0)
  private static let counting: Hook = { job, original in
    RuntimeHookTests.counted.add(1, ordering: .relaxed)
    original(job)
  }

  private var hook: UnsafeMutablePointer<Hook?> {
    get throws {
      let symbol = try XCTUnwrap(dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook"))
      return symbol.assumingMemoryBound(to: Hook?.self)
    }
  }

  private func address(_ hook: Hook?) -> UnsafeRawPointer? {
    hook.map { unsafeBitCast($0, to: UnsafeRawPointer.self) }
  }

  /// A clock that earlier tests of the process left alive routes jobs until its idle limit (10 s):
  /// wait until none does. No test of this target leaves one (docs/Architecture.md, "Tests").
  private func waitForNoActiveClock() {
    let deadline = Date(timeIntervalSinceNow: 10)
    while GlobalJobRouting.state.activeClocks > 0, Date() < deadline { usleep(10_000) }
    XCTAssertEqual(GlobalJobRouting.state.activeClocks, 0, "no clock left active by other tests")
  }

  func testAHookInstalledBeforeGetsEveryJobNoClockOwnsAndIsHandedBack() throws {
    waitForNoActiveClock()
    let hook = try self.hook
    let before = hook.pointee
    defer { hook.pointee = before }
    hook.pointee = Self.counting
    do {
      let clock = VirtualAsyncClock()
      XCTAssertTrue(GlobalJobRouting.state.installed)
      XCTAssertNotEqual(address(hook.pointee), address(Self.counting), "the clock's hook is in")
      let counted = Self.counted.load(ordering: .relaxed)
      let ran = DispatchSemaphore(value: 0)
      Task.detached { ran.signal() }
      XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
      XCTAssertGreaterThan(
        Self.counted.load(ordering: .relaxed), counted,
        "a job no clock owns went to the hook before")
      let sleeper = clock.task { try await clock.sleep(for: .seconds(1)) }
      clock.advance(by: .seconds(1))
      XCTAssertNotNil(sleeper.result, "the clock's own jobs still ran on the clock")
      try clock.checkNoPendingWork()
    }
    XCTAssertFalse(GlobalJobRouting.state.installed, "no clock left: the hook is out")
    XCTAssertEqual(address(hook.pointee), address(Self.counting), "the hook before is back")
  }

  func testAHookPutOverAnActiveClocksIsReportedByTheNextMove() throws {
    waitForNoActiveClock()
    let hook = try self.hook
    let clock = VirtualAsyncClock()
    let ours = hook.pointee
    let reported = Locked<[String]>([])
    TestFailure.override.withLock {
      $0 = { message, _, _ in reported.withLock { $0.append(message) } }
    }
    defer { TestFailure.override.withLock { $0 = nil } }
    hook.pointee = Self.counting
    clock.advance()
    clock.advance(by: .seconds(1))
    hook.pointee = ours
    XCTAssertEqual(reported.value.count, 1, "once per clock: \(reported.value)")
    XCTAssertTrue(
      reported.value.first?.contains("withMainSerialExecutor") ?? false, "\(reported.value)")
    XCTAssertTrue(
      reported.value.first?.contains("RuntimeHookTests.swift") ?? false, "\(reported.value)")
  }
}

/// A clock that goes away gives back what it holds.
final class ClockEndTests: XCTestCase {
  func testJobsQueuedOnAClockThatGoesAwayRunOnTheRuntime() {
    let waiting = Locked<CheckedContinuation<Void, Never>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    do {
      let clock = VirtualAsyncClock()
      clock.task {
        // Detached: it does not inherit the clock's scope, so it does not keep the clock alive.
        Task.detached {
          await withCheckedContinuation { continuation in waiting.withLock { $0 = continuation } }
          finished.signal()
        }
      }
      clock.advance()
      // The task's next job is queued on the clock, which nobody moves again.
      waiting.withLock { $0 }?.resume()
    }
    XCTAssertEqual(
      finished.wait(timeout: .now() + 10), .success,
      "handed back to the runtime when the clock went")
  }
}

/// The table of which clock owns which task, read without a lock.
final class TaskOwnersTests: XCTestCase {
  func testClaimsAreFoundUntilReleasedAndTheFirstOwnerStays() {
    let owners = TaskOwners(capacity: 64)
    XCTAssertEqual(owners.claim(7, for: 1), 1)
    XCTAssertEqual(owners.claim(7, for: 2), 1, "a task keeps its first owner")
    XCTAssertEqual(owners.owner(of: 7), 1)
    XCTAssertNil(owners.owner(of: 8))
    XCTAssertNil(owners.claim(0, for: 1), "0 is no task")
    XCTAssertTrue(owners.assign(7, to: 3), "replaced")
    XCTAssertFalse(owners.assign(7, to: 3), "already so")
    XCTAssertEqual(owners.owner(of: 7), 3)
    owners.release([7], ownedBy: 1, ignoring: 0)
    XCTAssertEqual(owners.owner(of: 7), 3, "only the owner lets go")
    owners.release([7], ownedBy: 3, ignoring: 0)
    XCTAssertNil(owners.owner(of: 7))
    XCTAssertEqual(owners.count, 0)
  }

  func testAFullTableSaysSoAndStaysCorrectAsClocksComeAndGo() {
    let owners = TaskOwners(capacity: 16)
    for task in 1...16 { XCTAssertEqual(owners.claim(UInt64(task), for: 1), 1) }
    XCTAssertNil(owners.claim(17, for: 1), "full")
    owners.release((1...16).map(UInt64.init), ownedBy: 1, ignoring: 0)
    XCTAssertEqual(owners.count, 0)
    // Many generations of clocks: lookups stay right, and the table never fills with the gone.
    for generation in UInt64(1)...500 {
      let tasks = (0..<10).map { generation * 100 + $0 }
      for task in tasks { XCTAssertEqual(owners.claim(task, for: generation), generation) }
      for task in tasks { XCTAssertEqual(owners.owner(of: task), generation) }
      owners.release(tasks, ownedBy: generation, ignoring: 0)
      for task in tasks { XCTAssertNil(owners.owner(of: task)) }
    }
    XCTAssertEqual(owners.count, 0)
  }
}
