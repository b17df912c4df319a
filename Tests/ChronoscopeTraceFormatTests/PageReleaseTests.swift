import ChronoscopeTestSupport
import XCTest

@testable import ChronoscopeTraceFormat

/// Handing back the pages a pass has left behind: whole pages only, every chunk, and never a
/// page that holds a byte the pass has not passed or that lies outside the memory it was given.
final class PageReleaseTests: XCTestCase {
  func testOnlyWholePagesBehindThePassAreHandedBackAChunkAtATime() throws {
    #if !os(Linux)
      throw XCTSkip("pages are handed back with Linux's madvise")
    #else
      let memory = AnonymousPages(pages: 64)
      let page = memory.pageSize
      memory.bytes.initializeMemory(as: UInt8.self, repeating: 7)
      // The pass's memory starts and ends inside a page, as an array's elements do.
      let start = page / 2
      let passed = UnsafeRawBufferPointer(
        rebasing: memory.bytes[start..<(memory.bytes.count - page / 2)])
      var release = PageRelease(passed, from: 0, chunk: 8 * page)

      release.passed(7 * page)  // less than a chunk: nothing yet
      XCTAssertTrue(memory.resident().allSatisfy { $0 })

      release.passed(20 * page + 1)
      let resident = memory.resident()
      // Offset 20.5 pages of the memory: pages 1…19 are wholly behind it.
      XCTAssertTrue(resident[0], "the page shared with what lies before stays")
      XCTAssertEqual(resident[1...19].filter { $0 }.count, 0)
      XCTAssertTrue(resident[20...].allSatisfy { $0 }, "the page the pass is in stays")

      release.passed(passed.count, final: true)
      let end = memory.resident()
      XCTAssertEqual(end.filter { $0 }.count, 2, "only the two pages shared with what lies around")
      XCTAssertTrue(end[0] && end[63])
      XCTAssertEqual(memory.bytes[0], 7)
      XCTAssertEqual(memory.bytes[memory.bytes.count - 1], 7)
      XCTAssertEqual(memory.bytes[start + 5 * page], 0, "a page handed back reads as zeros")
    #endif
  }
}
