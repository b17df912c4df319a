import ChronoscopeVirtualTime
import Foundation
import XCTest

/// The thread that watches async clocks lives while a clock is active, not for the rest of the
/// process: once the last clock is let go (or goes quiet), it ends, and the next clock starts it
/// again. It waits on the wall clock by nature (the thread looks ten times a second).
final class WatchdogLifetimeTests: XCTestCase {
  /// The threads of this process named as the watchdog names itself.
  private func watchdogThreads() -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
      let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
      return name?.trimmingCharacters(in: .newlines) == "chrono-watchdog"
    }.count
  }

  private func waitFor(_ count: Int, seconds: Double) -> Int {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while watchdogThreads() != count, Date() < deadline { usleep(10_000) }
    return watchdogThreads()
  }

  func testTheWatchdogEndsWhenNoClockIsActiveAndComesBackWithTheNext() throws {
    #if !os(Linux)
      throw XCTSkip("reads thread names from /proc")
    #endif
    for _ in 0..<2 {
      do {
        let clock = VirtualAsyncClock()
        let task = clock.task(name: "sleeper") { try await clock.sleep(for: .seconds(1)) }
        XCTAssertEqual(waitFor(1, seconds: 5), 1, "a clock in use is watched")
        clock.advance(by: .seconds(1))
        XCTAssertEqual(task.isFinished, true)
      }
      // Clocks other tests left active end their idle limit (ten seconds) first.
      XCTAssertEqual(waitFor(0, seconds: 15), 0, "no clock is active: no watchdog")
    }
  }
}
