import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import XCTest

/// Stand-ins that fail the test using them, at the call that scheduled.
final class UnimplementedSchedulerTests: XCTestCase {
  private let reports = Locked<[(message: String, file: String, line: UInt)]>([])

  override func setUp() {
    let reports = self.reports
    TestFailure.override.withLock { override in
      override = { message, file, line in reports.withLock { $0.append((message, "\(file)", line)) }
      }
    }
  }

  override func tearDown() {
    TestFailure.override.withLock { $0 = nil }
  }

  func testEveryUseFailsAtTheCallThatScheduledAndRunsNothing() {
    let factory: any SchedulerFactory = .unimplemented
    let cache = factory.makeSerial(label: "cache")
    XCTAssertEqual(cache.family, .unimplemented)
    let ran = Locked(false)
    let line = #line + 1
    cache.async { ran.withLock { $0 = true } }
    cache.after(.seconds(1)) { ran.withLock { $0 = true } }
    cache.every(.seconds(1)) { ran.withLock { $0 = true } }
    cache.at(cache.now) { ran.withLock { $0 = true } }
    XCTAssertEqual(cache.sync { 42 }, 42, "a sync block runs, so the caller gets its value")
    XCTAssertFalse(ran.value, "nothing scheduled runs")
    let seen = reports.value
    XCTAssertEqual(seen.count, 5)
    XCTAssertEqual(seen.map(\.line), Array(UInt(line)...UInt(line + 4)))
    XCTAssertTrue(
      seen.allSatisfy { $0.file == "ChronoscopeSchedulingTests/UnimplementedSchedulerTests.swift" })
    XCTAssertTrue(seen[0].message.hasPrefix("unimplemented: async on scheduler \"cache\" (serial)"))
    XCTAssertTrue(seen[1].message.contains("after(1.0 seconds)"), seen[1].message)
    XCTAssertTrue(factory.main.kind == .main)
  }

  func testFailuresReachXCTestInATestRun() {
    XCTAssertTrue(TestFailure.reachesXCTest, "XCTFail found at run time in this process")
  }
}
