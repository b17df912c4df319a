import ChronoscopeVirtualTime
import Foundation
import Synchronization
import XCTest

/// An XCTest case whose failures carry the trace of the test's work on virtual time: the first
/// failure writes it to a file and its message holds the path, `chronoscope view PATH`, and the
/// state at the last work that ran before the failure (what ran and what waited).
///
/// ```swift
/// final class SearchTests: VirtualTimeTestCase {
///   func testTheSearchIsDebounced() {
///     let clock = VirtualClock()
///     let model = SearchModel(factory: recordTrace(of: clock).factory)
///     model.type("swift")
///     clock.advance(by: .milliseconds(300))
///     XCTAssertEqual(model.searches, ["swift"])   // on failure: where the trace went
///   }
/// }
/// ```
///
/// Tests that never call `recordTrace` are plain XCTest cases. A passing test writes nothing,
/// unless `CHRONOSCOPE_TRACE_TESTS=all` (see ``TestTraceSettings``). A trace that cannot be
/// written is said once, in the first failure's message, and fails nothing itself.
open class VirtualTimeTestCase: XCTestCase {
  /// The test's recorder, once `recordTrace(of:settings:)` made it.
  private let trace = Mutex<TestTraceRecorder?>(nil)
  /// Where failures go instead of XCTest, while set: for this class's own tests, which check
  /// the messages of failures made on purpose.
  package let failureSink = Mutex<(@Sendable (String) -> Void)?>(nil)

  /// The recorder of this test's work on `clock`: build the code under test with its
  /// ``TestTraceRecorder/factory``. Calling it again for the same clock returns the same
  /// recorder.
  public func recordTrace(
    of clock: VirtualClock,
    settings: TestTraceSettings = .fromEnvironment
  ) -> TestTraceRecorder {
    started(on: clock) { TestTraceRecorder(clock: clock, testName: name, settings: settings) }
  }

  /// The recorder of this test's work on `clock`: sleep on its ``TestTraceRecorder/clock`` and
  /// build schedulers with its ``TestTraceRecorder/factory``. Calling it again for the same clock
  /// returns the same recorder.
  public func recordTrace(
    of clock: VirtualAsyncClock,
    settings: TestTraceSettings = .fromEnvironment
  ) -> TestTraceRecorder {
    started(on: clock.clock) {
      TestTraceRecorder(clock: clock, testName: name, settings: settings)
    }
  }

  /// The test's recorder of `clock`, made now unless it records that clock already. One made
  /// for another clock (each run of `exploreOrders` has its own) is finished first: the test's
  /// trace is its latest clock's.
  private func started(on clock: VirtualClock, _ make: () -> TestTraceRecorder)
    -> TestTraceRecorder
  {
    let (recorder, isNew, replaced) = trace.withLock {
      trace -> (TestTraceRecorder, Bool, TestTraceRecorder?) in
      if let trace, trace.virtualClock === clock { return (trace, false, nil) }
      let previous = trace
      let made = make()
      trace = made
      return (made, true, previous)
    }
    if let replaced {
      replaced.finish()
    } else if isNew {
      // The test's latest recorder, whichever it is by then.
      addTeardownBlock { [weak self] in self?.trace.withLock { $0 }?.finish() }
    }
    return recorder
  }

  open override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
    expected: Bool
  ) {
    var description = description
    if let recorder = trace.withLock({ $0 }), recorder.keptTrace == nil {
      description += "\n" + recorder.keep(reason: description).message
    }
    if let sink = failureSink.withLock({ $0 }) { return sink(description) }
    super.recordFailure(
      withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
  }
}
