import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Dispatch
import Foundation
import Testing

/// The `.timeBubble` trait under Swift Testing, whose tests run in parallel: bubble tests, tests
/// outside any bubble, and tests that wait in real time, at once.
@Suite struct TimeBubbleTraitTests {
  @Test(.timeBubble) func aRetryWithBackoffTakesThirtyVirtualSecondsAndNoRealOnes() async throws {
    let start = ContinuousClock.now
    let result = try await FlakyClient(failures: 4).fetchWithRetry()
    #expect(result == "ok")
    #expect(ContinuousClock.now - start == .seconds(30))
    #expect(TimeBubble.current?.elapsed == .seconds(30))
  }

  @Test(.timeBubble, arguments: 0..<8)
  func parallelBubblesEachKeepTheirOwnTime(index: Int) async throws {
    let start = ContinuousClock.now
    let date = Date()
    try await Task.sleep(for: .seconds(index * 100))
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(index)) {}
    #expect(ContinuousClock.now - start == .seconds(index * 100))
    #expect(Date().timeIntervalSince(date) == Double(index * 100))
  }

  @Test func aTestOutsideAnyBubbleKeepsRealTimeWhileBubblesRun() async throws {
    for _ in 0..<20 {
      let start = ContinuousClock.now
      let date = Date()
      try await Task.sleep(for: .milliseconds(5))
      let slept = ContinuousClock.now - start
      #expect(slept >= .milliseconds(5))
      #expect(slept < .seconds(5))
      #expect(date.timeIntervalSince1970 > 1_700_000_000)
      let fired = await withCheckedContinuation { continuation in
        let asked = DispatchTime.now()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) {
          continuation.resume(
            returning: DispatchTime.now().uptimeNanoseconds - asked.uptimeNanoseconds)
        }
      }
      #expect(fired >= 5_000_000)
    }
  }

  @Test(.timeBubble) func aDebouncerRunsTheLastCallOnly() async throws {
    let log = Log()
    let debouncer = Debouncer(delay: 0.3)
    for word in ["s", "sw", "swi"] {
      debouncer.call { log.append(word) }
      try await Task.sleep(for: .milliseconds(100))
    }
    try await Task.sleep(for: .seconds(1))
    #expect(log.entries == ["swi"])
  }
}
