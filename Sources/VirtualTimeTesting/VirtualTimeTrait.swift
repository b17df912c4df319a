import Scheduling
import Testing
import VirtualTime

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
/// outlives the test). It depends on Swift Testing; the `VirtualTime` library itself does not.
public struct VirtualTimeTrait: TestTrait, SuiteTrait, TestScoping {
  /// How long code may wait on the clock with nobody moving it (``VirtualAsyncClock/idleLimit``).
  public let idleLimit: Duration

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
    let reporter: @Sendable (String, StaticString, UInt) -> Void = { message, file, line in
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: "\(file)".contains("/") ? "\(file)" : location.fileID,
          filePath: "\(file)".contains("/") ? "\(file)" : location.filePath,
          line: Int(line), column: 1))
    }
    // The leftovers are checked — and the tasks ended — whether the test returned or threw.
    var failure: (any Error)?
    do {
      try await clock.withCurrent {
        try await TestFailure.$reporter.withValue(reporter) {
          try await function()
        }
      }
    } catch {
      failure = error
    }
    if let leftovers = clock.leftoversEndingThem() {
      Issue.record(
        Comment(rawValue: "left on the virtual clock at the end of the test: \(leftovers)"),
        sourceLocation: location)
    }
    if let failure { throw failure }
  }
}

extension Trait where Self == VirtualTimeTrait {
  /// Gives the test (each test of a suite) its own ``VirtualAsyncClock``, checked at its end.
  public static var virtualTime: Self { VirtualTimeTrait(idleLimit: .seconds(10)) }

  /// ``virtualTime``, with how long code may wait on the clock with nobody moving it.
  public static func virtualTime(idleLimit: Duration) -> Self {
    VirtualTimeTrait(idleLimit: idleLimit)
  }
}
