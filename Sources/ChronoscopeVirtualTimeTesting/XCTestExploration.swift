#if canImport(XCTest)
  import ChronoscopeVirtualTime
  import XCTest

  extension XCTestCase {
    /// Runs `body` `iterations` times, each on a fresh clock that explores another order of the
    /// work that could run next (``ChronoscopeVirtualTime/Exploration``), and stops at the first run that
    /// failed — an `XCTAssert…` that failed in it, or an error it threw — failing the test with
    /// the run's seed and how to rerun it alone.
    ///
    /// ```swift
    /// func testTheStockIsNeverSoldTwice() {
    ///   exploreOrders(iterations: 200) { clock in
    ///     let stock = Stock(items: 1, factory: VirtualSchedulerFactory(clock: clock))
    ///     stock.twoCustomersBuy()
    ///     clock.advance()
    ///     XCTAssertEqual(stock.sales.value.count, 1)
    ///   }
    /// }
    /// ```
    ///
    /// A run that threw is run again with its seed to check that the body is deterministic
    /// (see `explore(iterations:seed:strategy:_:)`); one whose assertions failed is not, since
    /// XCTest cannot take back the failures a second run would report.
    ///
    /// `iterations` below 1 runs the body not at all and fails the test, saying so: a test that
    /// runs nothing must not pass.
    ///
    /// In an async test it gives way to the form for a ``ChronoscopeVirtualTime/VirtualAsyncClock``, even
    /// for a body that awaits nothing.
    @_disfavoredOverload
    public func exploreOrders(
      iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
      file: StaticString = #filePath, line: UInt = #line,
      _ body: (VirtualClock) throws -> Void
    ) {
      do {
        try explore(
          iterations: iterations, seed: seed, strategy: strategy,
          rerunning: { !($0 is AssertionsFailed) }
        ) {
          let before = testRun?.totalFailureCount ?? 0
          try body(VirtualClock())
          let failures = (testRun?.totalFailureCount ?? 0) - before
          if failures > 0 { throw AssertionsFailed(count: failures) }
        }
      } catch {
        XCTFail(error.report(calling: "exploreOrders"), file: file, line: line)
      }
    }

    /// ``exploreOrders(iterations:seed:strategy:file:line:_:)`` for async code: each run gets a
    /// fresh ``ChronoscopeVirtualTime/VirtualAsyncClock`` whose actions and ready jobs are explored.
    /// `iterations` below 1 fails the test, as there.
    public func exploreOrders(
      iterations: Int, seed: UInt64 = 0, strategy: Exploration.Strategy = .random,
      file: StaticString = #filePath, line: UInt = #line,
      isolation: isolated (any Actor)? = #isolation,
      _ body: (VirtualAsyncClock) async throws -> Void
    ) async {
      do {
        try await explore(
          iterations: iterations, seed: seed, strategy: strategy,
          rerunning: { !($0 is AssertionsFailed) }
        ) {
          let before = testRun?.totalFailureCount ?? 0
          try await body(VirtualAsyncClock())
          let failures = (testRun?.totalFailureCount ?? 0) - before
          if failures > 0 { throw AssertionsFailed(count: failures) }
        }
      } catch {
        XCTFail(error.report(calling: "exploreOrders"), file: file, line: line)
      }
    }
  }

  /// A run in which assertions failed (XCTest reported them already).
  struct AssertionsFailed: Error, CustomStringConvertible {
    let count: Int
    var description: String {
      count == 1 ? "an assertion failed (above)" : "\(count) assertions failed (above)"
    }
  }
#endif
