@_spi(Benchmarks) import ChronoscopeReplay
import XCTest

/// What the replay library leaves to the program that uses it.
final class ReplayDependenciesTests: XCTestCase {
  /// Handing freed memory back to the system (`malloc_trim`) is a program's choice, which the
  /// CLI's `view` makes: no initializer of the library does it behind its caller. The C target
  /// that reaches it is then no dependency of ChronoscopeReplay, nor so of this test target.
  func testReplayLeavesTrimmingTheAllocatorToTheProgram() {
    #if canImport(CChronoscopeShims)
      XCTFail(
        "ChronoscopeReplay depends on CChronoscopeShims: a library initializer may trim the allocator"
      )
    #endif
  }
}

/// How the replay checks itself.
final class ReplayInvariantCheckingTests: XCTestCase {
  /// A build with `-Xswiftc -DCHRONOSCOPE_INTERNAL_CHECKS` (`scripts/internal-checks.sh`) checks
  /// after every step; any other build, debug included, keeps its documented complexities.
  func testEveryStepIsCheckedExactlyInBuildsWithTheChecksFlag() {
    #if CHRONOSCOPE_INTERNAL_CHECKS
      XCTAssertTrue(ReplayEngine._isConsistencyCheckingEnabled)
    #else
      XCTAssertFalse(ReplayEngine._isConsistencyCheckingEnabled)
    #endif
  }
}
