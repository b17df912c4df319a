import Foundation
import Synchronization
import VirtualTime
import XCTest

/// An XCTest case whose failures carry the trace of the test's work on virtual time: the first
/// failure writes it to a file and its message holds the path, `chronoscope view PATH`, and the
/// inspector's frame at the failing instant.
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
  /// ``TestTraceRecorder/factory``. Calling it again returns the same recorder.
  public func recordTrace(
    of clock: VirtualClock,
    settings: TestTraceSettings = .fromEnvironment
  ) -> TestTraceRecorder {
    started { TestTraceRecorder(clock: clock, testName: name, settings: settings) }
  }

  /// The recorder of this test's work on `clock`: sleep on its ``TestTraceRecorder/clock`` and
  /// build schedulers with its ``TestTraceRecorder/factory``. Calling it again returns the same
  /// recorder.
  public func recordTrace(
    of clock: VirtualAsyncClock,
    settings: TestTraceSettings = .fromEnvironment
  ) -> TestTraceRecorder {
    started { TestTraceRecorder(clock: clock, testName: name, settings: settings) }
  }

  private func started(_ make: () -> TestTraceRecorder) -> TestTraceRecorder {
    let (recorder, isNew) = trace.withLock { trace in
      if let trace { return (trace, false) }
      let made = make()
      trace = made
      return (made, true)
    }
    if isNew {
      addTeardownBlock { [recorder] in recorder.finish() }
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
