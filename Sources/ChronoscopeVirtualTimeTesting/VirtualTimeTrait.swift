import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Foundation
import Synchronization
import Testing

/// A Swift Testing trait that gives each test its own ``VirtualAsyncClock``
/// (``VirtualAsyncClock/current``), records what goes wrong on it as issues of that test, and
/// checks at the test's end that nothing is left on the clock.
///
/// ```swift
/// @Test(.virtualTime) func theSearchIsDebounced() async throws {
///   let clock = try #require(VirtualAsyncClock.current)
///   let model = SearchModel(clock: clock)
///   model.type("swift")
///   await clock.advance(by: .milliseconds(300))
///   #expect(model.searches == ["swift"])
/// }
/// ```
///
/// On a suite (`@Suite(.virtualTime)`) it applies to each of its tests. Tests with it run in
/// parallel like any others: each clock runs only the code its test started.
///
/// What it reports as an issue of the test: an ``UnimplementedScheduler`` used by code that runs
/// in the test's tasks or on its clock, and — at the test's end — unfinished tasks started on the
/// clock, sleepers and scheduler work still pending (the tasks are cancelled first, so none
/// outlives the test). It depends on Swift Testing; the `ChronoscopeVirtualTime` library itself does not.
///
/// Each test also gets a ``TestTraceRecorder`` (``TestTraceRecorder/current``): work built on its
/// `factory` and `clock` is recorded, and the first issue that fails the test — or the error it
/// throws — writes the trace to a file and carries its path, `chronoscope view` and the
/// state there: what ran and what waited (see <doc:KeepingTheTraceOfAFailingTest>).
public struct VirtualTimeTrait: TestTrait, SuiteTrait, TestScoping {
  /// How long code may wait on the clock with nobody moving it (``VirtualAsyncClock/idleLimit``).
  public let idleLimit: Duration
  /// Where failing tests' traces go; nil for what the environment says (``TestTraceSettings``).
  public let traces: TestTraceSettings?

  public var isRecursive: Bool { true }

  /// One clock per test case: a suite and a parameterized test's outer call get none.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let clock = VirtualAsyncClock(idleLimit: idleLimit)
    let location = test.sourceLocation
    let trace = TestTraceRecorder(
      clock: clock, testName: Self.traceName(of: test),
      settings: traces ?? TestTraceSettings.fromEnvironment)
    defer { trace.finish() }
    let reporter: @Sendable (String, StaticString, UInt) -> Void = { message, file, line in
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: "\(file)".contains("/") ? "\(file)" : location.fileID,
          filePath: "\(file)".contains("/") ? "\(file)" : location.filePath,
          line: Int(line), column: 1))
    }
    let keeping = Self.keepingTheTrace(of: trace)
    // A thrown error is recorded here, in the scope, as the issue the test host would record
    // outside it: so it keeps the trace too. The leftovers are checked — and the tasks ended —
    // whether the test returned or threw.
    let cancelled = Mutex<(any Error)?>(nil)
    try await keeping.provideScope(for: test, testCase: testCase) {
      do {
        try await clock.withCurrent {
          try await TestFailure.$reporter.withValue(TestFailure.Reporter(reporter)) {
            try await TestTraceRecorder.$current.withValue(trace) {
              try await function()
            }
          }
        }
      } catch  where error is CancellationError || Task.isCancelled {
        cancelled.withLock { $0 = error }
      } catch {
        Issue.record(error, sourceLocation: location)
      }
      if let leftovers = clock.leftoversEndingThem() {
        Issue.record(
          Comment(rawValue: "left on the virtual clock at the end of the test: \(leftovers)"),
          sourceLocation: location)
      }
    }
    if let error = cancelled.withLock({ $0 }) { throw error }
  }

  /// The issue handling that keeps `trace` at the first issue that fails the test, at the instant
  /// it was recorded, and carries where it went; the issues after it say nothing more. Shared by
  /// the traits that record a test's work (`.virtualTime`, `.timeBubble`).
  package static func keepingTheTrace(of trace: TestTraceRecorder) -> IssueHandlingTrait {
    IssueHandlingTrait.compactMapIssues { issue in
      guard keepsTraces, issue.isFailure || keepsTracesOfKnownIssues, trace.keptTrace == nil
      else { return issue }
      var issue = issue
      issue.comments.append(Comment(rawValue: trace.keep(reason: "\(issue)").message))
      return issue
    }
  }

  /// Whether issues that are known (`withKnownIssue`) keep the trace: for the trait's own tests,
  /// which can only see its issues as known ones.
  @TaskLocal package static var keepsTracesOfKnownIssues = false

  /// Whether a failure keeps the trace at all: not in the rerun an exploration makes of its
  /// failing run (``ExplorationTrait``), whose trace the first run kept.
  @TaskLocal package static var keepsTraces = true

  /// The name a test's trace file takes: its suites and name (`Suite.test()`); the cases of a
  /// parameterized test are told apart by ``TestTraceSettings``' numbering.
  package static func traceName(of test: Test) -> String {
    (test.id.nameComponents.isEmpty ? [test.name] : test.id.nameComponents)
      .joined(separator: ".")
  }
}

extension Trait where Self == VirtualTimeTrait {
  /// Gives the test (each test of a suite) its own ``VirtualAsyncClock``, checked at its end.
  public static var virtualTime: Self { VirtualTimeTrait(idleLimit: .seconds(10), traces: nil) }

  /// ``virtualTime``, with how long code may wait on the clock with nobody moving it, and where
  /// failing tests' traces go (nil: where the environment says, ``TestTraceSettings``).
  public static func virtualTime(
    idleLimit: Duration = .seconds(10), traces: TestTraceSettings? = nil
  ) -> Self {
    VirtualTimeTrait(idleLimit: idleLimit, traces: traces)
  }
}
