@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeVirtualTime
import Foundation
import Synchronization

/// The five async scenarios, each written once and run from every test host: XCTest methods and
/// Swift Testing functions, synchronous and `async`, on the main actor and off it, one at a time
/// and in parallel. Each drives its own clock with the synchronous moves and returns what it
/// saw, at exact virtual instants; `expected` is what it must see every time.
enum AsyncScenario: String, CaseIterable, Sendable {
  case timeoutRace, debounce, retry, pingPong, timeoutService

  /// How many times each test runs each scenario (`CHRONOSCOPE_ASYNC_REPEATS`, 1000 by default).
  static let repeats =
    Int(ProcessInfo.processInfo.environment["CHRONOSCOPE_ASYNC_REPEATS"] ?? "") ?? 1_000

  var expected: [String] {
    switch self {
    case .timeoutRace:
      [
        "short pending at 1.999999999 seconds", "short timed out", "long pending",
        "long payload at 3.0 seconds",
      ]
    case .debounce: ["swi@0.5 seconds", "swift@0.9 seconds"]
    case .retry: ["3", "attempts at 0.0 seconds, 1.0 seconds, 3.0 seconds"]
    case .pingPong:
      [
        "ping@0.25 seconds", "pong@0.65 seconds", "ping@0.9 seconds", "pong@1.3 seconds",
        "ping@1.55 seconds", "pong@1.95 seconds",
      ]
    case .timeoutService:
      ["first cancelled", "second timed out", "third payload at 3.5 seconds"]
    }
  }

  /// Runs the scenario once on a new clock; what it saw, ending with the leftovers check.
  func run() -> [String] {
    let clock = VirtualAsyncClock()
    var seen: [String]
    switch self {
    case .timeoutRace: seen = Self.timeoutRace(clock)
    case .debounce: seen = Self.debounce(clock)
    case .retry: seen = Self.retry(clock)
    case .pingPong: seen = Self.pingPong(clock)
    case .timeoutService: seen = Self.timeoutService(clock)
    }
    do {
      try clock.checkNoPendingWork()
    } catch {
      seen.append("leftovers: \(error)")
    }
    return seen
  }

  /// Runs the scenario `times` times; the runs that saw something else, with what they saw.
  func runRepeatedly(times: Int = repeats) -> [String] {
    var wrong: [String] = []
    for index in 0..<times {
      let seen = run()
      if seen != expected { wrong.append("run \(index): \(seen)") }
    }
    return wrong
  }

  private static func describe<T>(_ result: Result<T, any Error>?) -> String {
    switch result {
    case nil: "pending"
    case .success(let value): "\(value)"
    case .failure(let error) where error is TimedOut: "timed out"
    case .failure(let error) where error is CancellationError: "cancelled"
    case .failure(let error): "failed: \(error)"
    }
  }

  /// A timeout race: work that takes 3 s against limits of 2 s and 4 s.
  private static func timeoutRace(_ clock: VirtualAsyncClock) -> [String] {
    let work: @Sendable () async throws -> String = {
      try await clock.sleep(for: .seconds(3))
      return "payload"
    }
    let short = clock.task { try await withTimeout(.seconds(2), clock: clock, operation: work) }
    let long = clock.task { try await withTimeout(.seconds(4), clock: clock, operation: work) }
    var seen: [String] = []
    clock.advance(by: .seconds(2) - .nanoseconds(1))
    seen.append("short \(describe(short.result)) at \(clock.now)")
    clock.advance(by: .nanoseconds(1))
    seen.append("short \(describe(short.result))")
    seen.append("long \(describe(long.result))")
    clock.advance(by: .seconds(1))
    seen.append("long \(describe(long.result)) at \(clock.now)")
    return seen
  }

  /// A debounce of an AsyncStream: elements at 0, 100, 200 ms, then 500 ms, with 300 ms of
  /// quiet; the debounce starts an unstructured task per element.
  private static func debounce(_ clock: VirtualAsyncClock) -> [String] {
    let (input, feed) = AsyncStream.makeStream(of: String.self)
    let received = clock.task { () -> [String] in
      var seen: [String] = []
      for await text in debounced(input, for: .milliseconds(300), clock: clock) {
        seen.append("\(text)@\(clock.now.offset)")
      }
      return seen
    }
    for text in ["s", "sw", "swi"] {
      feed.yield(text)
      clock.advance(by: .milliseconds(100))
    }
    clock.advance(by: .milliseconds(300))
    feed.yield("swift")
    clock.advance(by: .milliseconds(299))
    feed.finish()
    clock.advance(by: .milliseconds(1))
    return (try? received.result?.get()) ?? ["unfinished: \(describe(received.result))"]
  }

  /// A retry with exponential backoff: fails twice, then succeeds; waits 1 s, then 2 s.
  private static func retry(_ clock: VirtualAsyncClock) -> [String] {
    let attempts = Mutex<[Duration]>([])
    let outcome = clock.task {
      try await retrying(attempts: 4, firstDelay: .seconds(1), clock: clock) { attempt in
        attempts.withLock { $0.append(clock.now.offset) }
        if attempt < 3 { throw TimedOut() }
        return attempt
      }
    }
    do { try clock.run() } catch { return ["run failed: \(error)"] }
    let times = attempts.withLock { $0.map { "\($0)" } }
    return [describe(outcome.result), "attempts at " + times.joined(separator: ", ")]
  }

  /// An actor ping-pong: two actors hit the ball back after 250 ms and 400 ms, six hits.
  private static func pingPong(_ clock: VirtualAsyncClock) -> [String] {
    let ping = Player(name: "ping", clock: clock, think: .milliseconds(250))
    let pong = Player(name: "pong", clock: clock, think: .milliseconds(400))
    let rally = clock.task { () -> [String] in
      await ping.face(pong)
      await pong.face(ping)
      return try await ping.receive(remaining: 6).map { "\($0.name)@\($0.at.offset)" }
    }
    do { try clock.run() } catch { return ["run failed: \(error)"] }
    return (try? rally.result?.get()) ?? ["unfinished: \(describe(rally.result))"]
  }

  /// The TimeoutService with async/await: a second start cancels the first attempt at once; the
  /// second times out at exactly its limit; a third, given enough time, returns the work.
  private static func timeoutService(_ clock: VirtualAsyncClock) -> [String] {
    let service = AsyncTimeoutService(clock: clock) {
      try await clock.sleep(for: .seconds(2))
      return "payload"
    }
    let first = clock.task { try await service.start(timeout: .seconds(5)) }
    clock.advance(by: .milliseconds(500))
    let second = clock.task { try await service.start(timeout: .seconds(1)) }
    var seen = ["first \(describe(first.result))"]
    clock.advance(by: .seconds(1))
    seen.append("second \(describe(second.result))")
    let third = clock.task { try await service.start(timeout: .seconds(3)) }
    clock.advance(by: .seconds(2))
    seen.append("third \(describe(third.result)) at \(clock.now)")
    return seen
  }
}
