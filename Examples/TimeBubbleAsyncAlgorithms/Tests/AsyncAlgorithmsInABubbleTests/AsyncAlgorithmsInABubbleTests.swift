import AsyncAlgorithms
import ChronoscopeVirtualTime
import ChronoscopeVirtualTimeTesting
import Foundation
import Testing

/// swift-async-algorithms' timing operators on `ContinuousClock`, unchanged. Each scenario runs
/// in a time bubble; with `BARE=1` in the environment it runs in real time instead, to compare.
/// Both must give the same results.
@Suite struct AsyncAlgorithmsInABubbleTests {
  static let bare = ProcessInfo.processInfo.environment["BARE"] == "1"

  /// Runs `body` in a bubble, or bare; what it returned and the real seconds it took.
  static func run<R: Sendable>(_ body: @escaping @Sendable () async throws -> R) async throws
    -> (R, Double)
  {
    let start = Date()
    let result = bare ? try await body() : try await withTimeBubble { _ in try await body() }
    return (result, Date().timeIntervalSince(start))
  }

  /// Keystrokes 100 ms apart with a pause of 1 s, debounced by 300 ms.
  @Test func debounceLetsThroughOnlyWhatWasFollowedByAPause() async throws {
    let (values, seconds) = try await Self.run {
      let (stream, input) = AsyncStream<String>.makeStream()
      let typing = Task {
        for word in ["s", "sw", "swi", "swif", "swift"] {
          input.yield(word)
          try await Task.sleep(for: .milliseconds(word == "swi" ? 1_000 : 100))
        }
        input.finish()
      }
      var seen: [String] = []
      for await value in stream.debounce(for: .milliseconds(300), clock: .continuous) {
        seen.append(value)
      }
      try await typing.value
      return seen
    }
    #expect(values == ["swi", "swift"])
    print("debounce: \(seconds) s \(Self.bare ? "bare" : "in a bubble")")
    if !Self.bare { #expect(seconds < 0.5) }
  }

  /// A timer ticking every second, five ticks, stamped with the continuous clock.
  @Test func aTimerSequenceTicksEverySecond() async throws {
    let (offsets, seconds) = try await Self.run {
      let start = ContinuousClock.now
      var offsets: [Int] = []
      for await tick in AsyncTimerSequence(interval: .seconds(1), clock: .continuous) {
        offsets.append(Int(((tick - start) / .milliseconds(1)).rounded() / 1000))
        if offsets.count == 5 { break }
      }
      return offsets
    }
    #expect(offsets == [1, 2, 3, 4, 5])
    print("timer: \(seconds) s \(Self.bare ? "bare" : "in a bubble")")
    if !Self.bare { #expect(seconds < 0.5) }
  }

  /// Events every 250 ms for 3 s, throttled to one a second (the latest; `_throttle`, as the package spells it until it is stable).
  @Test func throttleLetsOneValueThroughEachSecond() async throws {
    let (values, seconds) = try await Self.run {
      let start = ContinuousClock.now
      let events = AsyncTimerSequence(interval: .milliseconds(250), clock: .continuous)
        .prefix(12).map { tick in Int(((tick - start) / .milliseconds(250)).rounded()) - 1 }
      var seen: [Int] = []
      for await value in events._throttle(for: .seconds(1), clock: .continuous, latest: true) {
        seen.append(value)
      }
      return seen
    }
    #expect(values.count >= 3)
    #expect(values.last == 11)
    print("throttle: \(values) \(seconds) s \(Self.bare ? "bare" : "in a bubble")")
    if !Self.bare { #expect(seconds < 0.5) }
  }
}
