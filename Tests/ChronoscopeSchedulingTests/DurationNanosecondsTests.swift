import XCTest

@testable import ChronoscopeScheduling

/// Every delay a scheduler takes becomes whole nanoseconds through `clampedNanoseconds`: rounded
/// toward zero, clamped at `Int64`'s ends, for any `Duration` a caller can make.
final class DurationNanosecondsTests: XCTestCase {
  /// The plain reading of the rule, from the duration's seconds and attoseconds.
  private func expected(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    let (fromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (total, overflow2) = fromSeconds.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflow2 { return seconds < 0 ? .min : .max }
    return total
  }

  func testWholeNanosecondsRoundTowardZeroAndClampAtTheEnds() {
    let cases: [(Duration, Int64)] = [
      (.zero, 0),
      (.nanoseconds(17), 17),
      (.milliseconds(-3), -3_000_000),
      (.seconds(5), 5_000_000_000),
      (Duration(secondsComponent: 3, attosecondsComponent: -5), 2_999_999_999),
      (Duration(secondsComponent: 0, attosecondsComponent: 999_999_999), 0),
      (Duration(secondsComponent: 0, attosecondsComponent: -999_999_999), 0),
      (Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999), 1),
      (Duration(secondsComponent: 0, attosecondsComponent: -1_999_999_999), -1),
      (.nanoseconds(Int64.max), .max),
      (.nanoseconds(Int64.min), .min),
      (.nanoseconds(Int64.max) + .nanoseconds(1), .max),
      (.nanoseconds(Int64.min) - .nanoseconds(1), .min),
      (.seconds(Int64.max), .max),
      (.seconds(Int64.min), .min),
      // Either side of 2^63 attoseconds (about 9.2 s), where the 64-bit path ends.
      (Duration(secondsComponent: 9, attosecondsComponent: 223_372_036_854_775_807), 9_223_372_036),
      (Duration(secondsComponent: 9, attosecondsComponent: 223_372_036_854_775_808), 9_223_372_036),
      (
        Duration(secondsComponent: -9, attosecondsComponent: -223_372_036_854_775_808),
        -9_223_372_036
      ),
      (
        Duration(secondsComponent: -9, attosecondsComponent: -223_372_036_854_775_809),
        -9_223_372_036
      ),
    ]
    for (duration, nanoseconds) in cases {
      XCTAssertEqual(duration.clampedNanoseconds, nanoseconds, "\(duration)")
    }
  }

  func testAgreesWithSecondsAndAttosecondsOnRandomDurations() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<10_000 {
      let seconds = Int64.random(in: -20_000_000_000...20_000_000_000, using: &generator)
      let attoseconds = Int64.random(
        in: -999_999_999_999_999_999...999_999_999_999_999_999, using: &generator)
      let duration = Duration(secondsComponent: seconds, attosecondsComponent: attoseconds)
      XCTAssertEqual(duration.clampedNanoseconds, expected(duration), "\(duration)")
      // And as many under ten seconds, the delays schedulers mostly see.
      let short = Duration(
        secondsComponent: seconds % 10, attosecondsComponent: attoseconds)
      XCTAssertEqual(short.clampedNanoseconds, expected(short), "\(short)")
    }
  }
}
