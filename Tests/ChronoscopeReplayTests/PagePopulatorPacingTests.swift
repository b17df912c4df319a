import ChronoscopeTestSupport
import XCTest

@_spi(Benchmarks) @testable import ChronoscopeReplay

#if canImport(Glibc)
  import Glibc
#endif

/// The populator stays its lead ahead of the pass, never further: pages made present early are
/// memory in use while the pass still holds what it is made from.
final class PagePopulatorPacingTests: XCTestCase {
  func testItMakesPresentOnlyTheLeadPastWhatThePassHasPassed() throws {
    #if !os(Linux)
      throw XCTSkip("MADV_POPULATE_WRITE is Linux's")
    #else
      // A kernel without MADV_POPULATE_WRITE (before 5.14) refuses it: asked directly, apart
      // from the populator, so that a populator that makes nothing present fails here.
      let probe = AnonymousPages(pages: 1)
      try XCTSkipIf(
        madvise(probe.bytes.baseAddress, probe.bytes.count, 23) != 0,
        "this kernel cannot populate pages")
      let memory = AnonymousPages(pages: 1024)  // 4 MiB of 4 KiB pages
      let page = memory.pageSize
      let populator = PagePopulator([memory.bytes], lead: 16 * page)
      defer { populator.stop() }
      populator.waitUntilIdle()
      let first = memory.resident()
      XCTAssertEqual(first.count { $0 }, 16, "before the pass moves: exactly the lead")
      XCTAssertTrue(first.prefix(16).allSatisfy { $0 })

      populator.passed([100 * page + 10])
      populator.waitUntilIdle()
      let second = memory.resident()
      XCTAssertEqual(second.firstIndex(of: false), 116, "up to the lead past the pass")
      XCTAssertEqual(second.count { $0 }, 116)

      populator.passed([memory.bytes.count])
      populator.waitUntilIdle()
      XCTAssertTrue(memory.resident().allSatisfy { $0 }, "to the end, and no further")
    #endif
  }
}
