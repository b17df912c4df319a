import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Foundation
import Synchronization
import Testing

/// A Swift Testing trait that runs each test in its own ``TimeBubble``: code that was never
/// written for virtual time — `Task.sleep`, `DispatchQueue.asyncAfter`, timers, `Date()` — runs
/// on a timeline that moves to the next deadline whenever nothing in the test can run.
///
/// ```swift
/// @Test(.timeBubble) func retriesWithBackoff() async throws {
///   let start = ContinuousClock.now
///   let result = try await FlakyClient().fetchWithRetry()  // Task.sleep(for: .seconds(2 << n))
///   #expect(result == "ok")
///   #expect(ContinuousClock.now - start == .seconds(30))    // at once
/// }
/// ```
///
/// Tests with it run in parallel with any others: each bubble holds only the work its test
/// started, and code outside it keeps real time. Under ``ExplorationTrait`` (`.exploring`, listed
/// after this trait) each run explores another order of the bubble's work.
///
/// The bubble's Dispatch work is recorded, and the first issue that fails the test keeps the trace
/// as `.virtualTime` does (see <doc:KeepingTheTraceOfAFailingTest>).
public struct TimeBubbleTrait: TestTrait, SuiteTrait, TestScoping {
  /// How long, in real time, a bubble waits for something outside it to wake its work when nothing
  /// in it can run and no timer is pending, before the test fails as stuck.
  public let stuckLimit: Duration
  /// Where failing tests' traces go; nil for what the environment says (``TestTraceSettings``).
  public let traces: TestTraceSettings?

  public var isRecursive: Bool { true }

  /// One bubble per test case: a suite and a parameterized test's outer call get none.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let timeline = VirtualClock()
    let location = test.sourceLocation
    let trace = TestTraceRecorder(
      clock: timeline, testName: VirtualTimeTrait.traceName(of: test),
      settings: traces ?? TestTraceSettings.fromEnvironment)
    defer { trace.finish() }
    let keeping = VirtualTimeTrait.keepingTheTrace(of: trace)
    let bubble: TimeBubble
    do {
      bubble = try TimeBubble(
        timeline: timeline, factory: trace.factory, stuckLimit: stuckLimit,
        callSite: CallSite(fileID: #fileID, line: #line, function: #function),
        origin: "\(location.fileID):\(location.line)")
    } catch {
      Issue.record(error, sourceLocation: location)
      return
    }
    let cancelled = Mutex<(any Error)?>(nil)
    try await keeping.provideScope(for: test, testCase: testCase) {
      do {
        // The test function runs as the bubble's body task, which the bubble waits for: it ends
        // before this scope does (`bodyMustEnd`).
        try await withoutActuallyEscaping(function) { test in
          try await TestTraceRecorder.$current.withValue(trace) {
            try await bubble.run(bodyMustEnd: true) { _ in try await test() }
          }
        }
      } catch  where error is CancellationError || Task.isCancelled {
        cancelled.withLock { $0 = error }
      } catch {
        Issue.record(error, sourceLocation: location)
      }
    }
    if let error = cancelled.withLock({ $0 }) { throw error }
  }
}

extension Trait where Self == TimeBubbleTrait {
  /// Runs the test (each test of a suite) in its own ``TimeBubble``, failing it when the bubble
  /// is stuck for a second.
  public static var timeBubble: Self { TimeBubbleTrait(stuckLimit: .seconds(1), traces: nil) }

  /// Runs the test (each test of a suite) in its own ``TimeBubble``.
  /// - Parameters:
  ///   - stuckLimit: How long, in real time, the bubble waits for something outside it when
  ///     nothing in it can run and no timer is pending.
  ///   - traces: Where failing tests' traces go; nil for what the environment says.
  public static func timeBubble(
    stuckLimit: Duration = .seconds(1), traces: TestTraceSettings? = nil
  )
    -> Self
  {
    TimeBubbleTrait(stuckLimit: stuckLimit, traces: traces)
  }
}
