import ArgumentParser
import BenchmarkSupport
import ChronoscopeScheduling
import ChronoscopeVirtualTime
import Clocks
import Dispatch
import Foundation

/// `VirtualTimeBenchmark bubble`: what a time bubble costs, in one process.
///
/// - `sleeps`: 10,000 plain `Task.sleep`s spread over one virtual hour (100 tasks, 100 sleeps
///   each, 36 s apart) in a bubble, against the same work on a `VirtualAsyncClock` (which the code
///   must be changed to take) and on swift-clocks' `TestClock` (the same; 10 tasks only, 1,000
///   sleeps, as it takes minutes for 10,000); the wall time each took. Target: the bubble under
///   1 s.
/// - `outside`: what the rewritten slots cost code outside any bubble: `ContinuousClock.now`,
///   `Date()`, `DispatchTime.now()` and `DispatchQueue.async` per call, before the first bubble
///   (the runtime's own functions in the slots) and after it (the replacements, which forward).
///   The slots cannot be put back, so the rounds before run first.
/// - `async`: a bubble's `DispatchQueue.async`, run to its end, against a `VirtualScheduler`'s
///   `async` action on a `VirtualClock`. Target: at most 2 times the scheduler's.
struct BubbleBenchmark: ParsableCommand {
  static let name = "bubble"

  static let configuration = CommandConfiguration(
    commandName: "VirtualTimeBenchmark \(name)",
    abstract: "What a time bubble costs: sleeps, code outside it, and its Dispatch work.",
    discussion: """
      Writes one JSON line per part. Targets (--check): sleeps "bubble_seconds" < 1; async \
      "ratio" (bubble ns per async over the virtual scheduler's) <= 2.
      """)

  enum Part: String, CaseIterable, ExpressibleByArgument {
    case outside, sleeps, async
  }

  @Option(
    help: ArgumentHelp(
      "Parts to run (default: all).", valueName: Part.allCases.map(\.rawValue).joined(separator: ",")),
    transform: CommandLineValue.list)
  var parts: [Part] = Part.allCases

  @Option(help: ArgumentHelp("Timed rounds of each side (default 7).", valueName: "count"))
  var rounds = 7

  @Flag(help: "Exit 1 when a target is missed.")
  var check = false

  func run() throws {
    var tally = TargetTally(benchmark: "virtual-time-bubble")
    // Outside first: it must time the slots before any bubble rewrote them.
    if parts.contains(.outside) { writeLine(try outside()) }
    if parts.contains(.sleeps) {
      let line = try sleeps()
      writeLine(line.line)
      tally.record([Target.atMost(1, "bubble_seconds").outcome(line.bubbleSeconds, context: "sleeps")])
    }
    if parts.contains(.async) {
      let line = try asyncWork()
      writeLine(line.line)
      tally.record([Target.atMost(2, "ratio").outcome(line.ratio, context: "async")])
    }
    try tally.finish(check: check)
  }

  // MARK: Sleeps

  static let tasks = 100
  static let sleepsPerTask = 100
  static let sleepStep: Duration = .seconds(36)
  /// TestClock's tasks: it takes minutes for the full 100.
  static let testClockTasks = 10

  private func sleeps() throws -> (line: JSONLine, bubbleSeconds: Double) {
    var bubble: [Double] = []
    var testClock: [Double] = []
    var asyncClock: [Double] = []
    for _ in 0..<rounds {
      bubble.append(try Self.blocking { try await Self.bubbleSleeps() })
      testClock.append(try Self.blocking { await Self.testClockSleeps(tasks: Self.testClockTasks) })
      asyncClock.append(try Self.blocking { await Self.asyncClockSleeps() })
    }
    let median = { (values: [Double]) in values.sorted()[(values.count - 1) / 2] }
    var line = JSONLine()
    line.add("benchmark", .string("virtual-time-bubble"))
    line.add("part", .string("sleeps"))
    line.add("sleeps", .int(Self.tasks * Self.sleepsPerTask))
    line.add("virtual_seconds", .int(3600))
    line.add("bubble_seconds", .double(rounded(median(bubble), places: 4)))
    line.add("test_clock_sleeps", .int(Self.testClockTasks * Self.sleepsPerTask))
    line.add("test_clock_seconds", .double(rounded(median(testClock), places: 4)))
    line.add(
      "bubble_us_per_sleep",
      .double(rounded(median(bubble) * 1e6 / Double(Self.tasks * Self.sleepsPerTask), places: 2)))
    line.add(
      "virtual_async_clock_us_per_sleep",
      .double(rounded(median(asyncClock) * 1e6 / Double(Self.tasks * Self.sleepsPerTask), places: 2)))
    line.add(
      "test_clock_us_per_sleep",
      .double(
        rounded(median(testClock) * 1e6 / Double(Self.testClockTasks * Self.sleepsPerTask), places: 2)))
    line.add("virtual_async_clock_seconds", .double(rounded(median(asyncClock), places: 4)))
    line.add("real_time_seconds", .int(3600))
    return (line, median(bubble))
  }

  /// The unchanged code: tasks that sleep with `Task.sleep`.
  private static func bubbleSleeps() async throws {
    let elapsed = try await withTimeBubble { bubble in
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
          group.addTask {
            for _ in 0..<sleepsPerTask { try? await Task.sleep(for: sleepStep) }
          }
        }
      }
      return bubble.elapsed
    }
    precondition(elapsed == .seconds(3600), "the bubble ended at \(elapsed)")
  }

  /// The same work changed to sleep on an injected `TestClock`, which the test advances.
  private static func testClockSleeps(tasks: Int) async {
    let clock = TestClock()
    let work = Task {
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
          group.addTask {
            for _ in 0..<sleepsPerTask { try? await clock.sleep(for: sleepStep) }
          }
        }
      }
    }
    // Its default limit (0.5 s of real time) is far too short for 10,000 sleeps.
    await clock.run(timeout: .seconds(600))
    await work.value
  }

  /// The same work on an injected `VirtualAsyncClock`.
  private static func asyncClockSleeps() async {
    let clock = VirtualAsyncClock()
    clock.task {
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<tasks {
          group.addTask {
            for _ in 0..<sleepsPerTask { try? await clock.sleep(for: sleepStep) }
          }
        }
      }
    }
    try? await clock.run()
  }

  // MARK: Outside a bubble

  static let calls = 2_000_000

  private func outside() throws -> JSONLine {
    func measure() -> [String: Double] {
      var results: [String: Double] = [:]
      results["continuous_clock_now"] = Self.perCall(Self.calls) { _ = ContinuousClock.now }
      results["date"] = Self.perCall(Self.calls) { _ = Date() }
      results["dispatch_time_now"] = Self.perCall(Self.calls) { _ = DispatchTime.now() }
      let queue = DispatchQueue(label: "outside")
      results["dispatch_async"] = Self.perCall(Self.calls / 10) { queue.async {} } + {
        queue.sync {}
        return 0
      }()
      return results
    }
    var before: [[String: Double]] = []
    for _ in 0..<rounds { before.append(measure()) }
    try withSynchronousTimeBubble { _ in }
    var after: [[String: Double]] = []
    for _ in 0..<rounds { after.append(measure()) }
    var line = JSONLine()
    line.add("benchmark", .string("virtual-time-bubble"))
    line.add("part", .string("outside"))
    for key in ["continuous_clock_now", "date", "dispatch_time_now", "dispatch_async"] {
      let median = { (rounds: [[String: Double]]) -> Double in
        let values = rounds.compactMap { $0[key] }.sorted()
        return values[(values.count - 1) / 2]
      }
      let (out, inside) = (median(before), median(after))
      line.add("\(key)_ns_before", .double(rounded(out, places: 1)))
      line.add("\(key)_ns_after", .double(rounded(inside, places: 1)))
      line.add("\(key)_ns_added", .double(rounded(inside - out, places: 1)))
    }
    return line
  }

  /// Nanoseconds per call of `body`, `count` calls.
  private static func perCall(_ count: Int, _ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    for _ in 0..<count { body() }
    return seconds(start.duration(to: .now)) * 1e9 / Double(count)
  }

  // MARK: Dispatch work in a bubble

  static let asyncs = 200_000

  private func asyncWork() throws -> (line: JSONLine, ratio: Double) {
    var bubble: [Double] = []
    var scheduler: [Double] = []
    for _ in 0..<rounds {
      bubble.append(try Self.blocking { try await Self.bubbleAsyncs() })
      scheduler.append(Self.schedulerAsyncs())
    }
    let median = { (values: [Double]) in values.sorted()[(values.count - 1) / 2] }
    let (inBubble, onScheduler) = (median(bubble), median(scheduler))
    var line = JSONLine()
    line.add("benchmark", .string("virtual-time-bubble"))
    line.add("part", .string("async"))
    line.add("asyncs", .int(Self.asyncs))
    line.add("bubble_ns_per_async", .double(rounded(inBubble * 1e9 / Double(Self.asyncs), places: 1)))
    line.add(
      "virtual_scheduler_ns_per_async",
      .double(rounded(onScheduler * 1e9 / Double(Self.asyncs), places: 1)))
    line.add("ratio", .double(rounded(inBubble / onScheduler, places: 3)))
    return (line, inBubble / onScheduler)
  }

  /// `asyncs` blocks sent to a serial queue from bubble work, and run.
  private static func bubbleAsyncs() async throws {
    let ran = try await withTimeBubble { _ in
      let queue = DispatchQueue(label: "bench")
      let counter = Counter()
      for _ in 0..<asyncs { queue.async { counter.value += 1 } }
      await withCheckedContinuation { continuation in
        queue.async { continuation.resume() }
      }
      return counter.value
    }
    precondition(ran == asyncs)
  }

  /// The same on a `VirtualScheduler`; seconds.
  private static func schedulerAsyncs() -> Double {
    let clock = VirtualClock()
    let scheduler = VirtualSchedulerFactory(clock: clock).makeSerial(label: "bench")
    let counter = Counter()
    let start = ContinuousClock.now
    for _ in 0..<asyncs { scheduler.async { counter.value += 1 } }
    clock.advance()
    precondition(counter.value == asyncs)
    return seconds(start.duration(to: .now))
  }

  /// Runs `body` on the concurrency runtime and waits for it here; the seconds it took.
  private static func blocking(_ body: @escaping @Sendable () async throws -> Void) throws -> Double {
    let done = DispatchSemaphore(value: 0)
    let failure = Locked<(any Error)?>(nil)
    let start = ContinuousClock.now
    Task {
      do { try await body() } catch { failure.set(error) }
      done.signal()
    }
    // The main thread services the main queue meanwhile, as an app's run loop does: a bubble runs
    // main-queue work there.
    while done.wait(timeout: .now()) == .timedOut {
      RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.001))
    }
    if let error = failure.get() { throw error }
    return seconds(start.duration(to: .now))
  }
}

/// A count touched only by work that runs one piece at a time.
private final class Counter: @unchecked Sendable {
  // @unchecked Sendable: incremented by work of one serial queue or scheduler.
  var value = 0
}

/// A value behind a lock.
private final class Locked<Value>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func set(_ new: Value) { lock.withLock { value = new } }
  func get() -> Value { lock.withLock { value } }
}
