import ChronoscopeVirtualTime
import InMemoryLogging
import Logging
import XCTest

/// A clock that nobody moves while code waits on it says so through the logger it was given —
/// the app's logging by default, never a bare line on standard error — as its sleeps throw.
final class ClockLoggingTests: XCTestCase {
  func testAClockNobodyMovesSaysSoOnceThroughItsLogger() async {
    let log = InMemoryLogHandler()
    let clock = VirtualAsyncClock(
      idleLimit: .milliseconds(100), logger: Logger(label: "chronoscope") { _ in log })
    do {
      try await clock.sleep(for: .seconds(1))
      XCTFail("the sleep ended without a move")
    } catch {
      XCTAssertEqual(log.entries.map(\.level), [.error])
      XCTAssertEqual(log.entries.first?.message.description, "\(error)")
    }
  }
}
