import ArgumentParser
import BenchmarkSupport
import ChronoscopeVirtualTime
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `VirtualTimeBenchmark hook-cost`: what a live `VirtualAsyncClock` costs the rest of the
/// process. While any clock is active, every job the runtime enqueues globally passes through
/// the clock's `swift_task_enqueueGlobal_hook`, which looks its task up and hands a job no clock
/// owns on to the runtime's pool. This times jobs no clock owns, enqueued and run on the pool,
/// with the hook out (no clock alive) and in (one idle clock alive), in alternating rounds in
/// one process. See Benchmarks/README.md.
struct HookCost: ParsableCommand {
  /// The word after `VirtualTimeBenchmark` that runs this.
  static let name = "hook-cost"

  static let configuration = CommandConfiguration(
    commandName: "VirtualTimeBenchmark \(name)",
    abstract: "What a live VirtualAsyncClock's enqueue hook adds to jobs no clock owns.",
    discussion: """
      Writes one JSON line per workload to stdout: the median round's ns_per_job with the hook \
      out and in, ns_added_per_job (in - out) and ratio (in / out). Each round of each side \
      runs --jobs jobs; rounds alternate out, in, in, out, … after an untimed warm-up of each. \
      No target applies.
      """)

  /// Jobs no clock owns, started from this thread (which never moves a clock) or from a task
  /// no clock owns.
  enum Workload: String, CaseIterable, ExpressibleByArgument {
    /// `Task.detached {}` from a thread with no task running: one job per task, enqueued on
    /// this thread, each run on the pool.
    case detached
    /// `Task.detached {}` from a task: the same, with a task running where each is enqueued
    /// (the hook then looks up the running task instead of the thread's clocks).
    case detachedInTask = "detached-in-task"
    /// One task calling `Task.yield()`; a job here is a yield. Swift 6.3's runtime enqueues the
    /// yield's own job on the global executor directly, past the hook, and then, unless it
    /// resumes the task in place, the task's next job through the hook, with no task running.
    case yield
  }

  /// Whether a clock is alive (and so the hook installed) while the jobs run.
  enum Side: String, CaseIterable, ExpressibleByArgument {
    case hookOut = "out"
    case hookIn = "in"
  }

  @Option(
    help: ArgumentHelp(
      "Jobs (for yield: yields) per timed round (default 200000).", valueName: "count"),
    transform: CommandLineValue.count)
  var jobs = 200_000

  @Option(
    help: ArgumentHelp(
      "Timed rounds of each side; the median is reported (default 9).", valueName: "count"),
    transform: CommandLineValue.count)
  var rounds = 9

  @Option(
    help: ArgumentHelp(
      "Workloads to run (default: all).",
      valueName: Workload.allCases.map(\.rawValue).joined(separator: ",")),
    transform: CommandLineValue.list)
  var workloads: [Workload] = Workload.allCases

  @Option(
    help: ArgumentHelp(
      "Run one side alone, 'out' or 'in' (for callgrind: see Benchmarks/README.md).",
      valueName: "side"))
  var only: Side?

  /// Jobs in the untimed warm-up round of each side.
  static let warmUpJobs = 10_000

  func run() throws {
    for workload in workloads { writeLine(try measure(workload)) }
  }

  private func measure(_ workload: Workload) throws -> JSONLine {
    let sides = only.map { [$0] } ?? Side.allCases
    for side in sides { _ = try time(workload, side, jobs: min(jobs, Self.warmUpJobs)) }
    var times: [Side: [Double]] = [:]
    for round in 1...rounds {
      // Out first in odd rounds, in first in even ones, so neither side always runs second.
      for side in round % 2 == 1 ? sides : sides.reversed() {
        times[side, default: []].append(try time(workload, side, jobs: jobs))
      }
      printError(
        "[virtual-time-hook] \(workload.rawValue) round \(round): "
          + sides.map { "hook \($0.rawValue) \(nanosecondsPerJob(times[$0]?.last ?? 0)) ns/job" }
          .joined(separator: ", "))
    }

    var line = JSONLine()
    line.add("benchmark", .string("virtual-time-hook"))
    line.add("workload", .string(workload.rawValue))
    line.add("jobs", .int(jobs))
    line.add("rounds", .int(rounds))
    let medians = times.mapValues { $0.sorted()[($0.count - 1) / 2] }
    for side in sides {
      line.add(
        "ns_per_job_hook_\(side.rawValue)", medians[side].map { .double(nanosecondsPerJob($0)) })
    }
    if let out = medians[.hookOut], let hookIn = medians[.hookIn] {
      line.add("ns_added_per_job", .double(nanosecondsPerJob(hookIn - out)))
      line.add("ratio", .double(rounded(hookIn / out, places: 3)))
    }
    for side in sides {
      line.add(
        "fastest_ns_per_job_hook_\(side.rawValue)",
        times[side]?.min().map { .double(nanosecondsPerJob($0)) })
    }
    return line
  }

  private func nanosecondsPerJob(_ seconds: Double) -> Double {
    rounded(seconds * 1e9 / Double(jobs), places: 1)
  }

  /// One round: `jobs` jobs of `workload`, with a clock alive or not; the seconds from the
  /// first enqueue to the last job done.
  private func time(_ workload: Workload, _ side: Side, jobs: Int) throws -> Double {
    // An idle clock stops routing once nobody used it for its idle limit; this one must not
    // while it is timed.
    let clock = side == .hookIn ? VirtualAsyncClock(idleLimit: .seconds(3600)) : nil
    try Self.expectHook(installed: clock != nil)
    let elapsed: Double
    switch workload {
    case .detached: elapsed = Self.runDetached(jobs)
    case .detachedInTask: elapsed = Self.runDetachedInTask(jobs)
    case .yield: elapsed = Self.runYields(jobs)
    }
    try Self.expectHook(installed: clock != nil)
    withExtendedLifetime(clock) {}
    return elapsed
  }

  private static func runDetached(_ jobs: Int) -> Double {
    let countdown = Countdown(jobs)
    let start = ContinuousClock.now
    for _ in 0..<jobs {
      Task.detached { countdown.finishOne() }
    }
    countdown.wait()
    return seconds(start.duration(to: .now))
  }

  private static func runDetachedInTask(_ jobs: Int) -> Double {
    let countdown = Countdown(jobs)
    let start = ContinuousClock.now
    Task.detached {
      for _ in 0..<jobs {
        Task.detached { countdown.finishOne() }
      }
    }
    countdown.wait()
    return seconds(start.duration(to: .now))
  }

  private static func runYields(_ jobs: Int) -> Double {
    let countdown = Countdown(1)
    let start = ContinuousClock.now
    Task.detached {
      for _ in 0..<jobs { await Task.yield() }
      countdown.finishOne()
    }
    countdown.wait()
    return seconds(start.duration(to: .now))
  }

  /// The runtime's global enqueue hook is set (by a clock) or not, as `installed` says; a
  /// released clock may still be on its way out on the watchdog's thread, so it waits a little.
  private static func expectHook(installed: Bool) throws {
    let giveUp = ContinuousClock.now.advanced(by: .seconds(1))
    while enqueueHookIsSet() != installed {
      guard ContinuousClock.now < giveUp else { throw HookStateError(expectedInstalled: installed) }
      usleep(1000)
    }
  }

  private static func enqueueHookIsSet() -> Bool {
    guard let hook = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else {
      return false
    }
    return UnsafeRawPointer(hook).load(as: UInt.self) != 0
  }
}

/// The runtime's enqueue hook was not as a round needs it: the measurement is invalid.
private struct HookStateError: Error, CustomStringConvertible {
  let expectedInstalled: Bool

  var description: String {
    let (expected, found) = expectedInstalled ? ("in", "out") : ("out", "in")
    return "the runtime's enqueue hook is \(found) where it should be \(expected) (another "
      + "library's hook, or a clock that stopped routing?); measurement invalid"
  }
}

/// Counts jobs down from a number and wakes the waiting thread when the last is done.
private final class Countdown: Sendable {
  private let left: Atomic<Int>
  private let done = DispatchSemaphore(value: 0)

  init(_ count: Int) { left = Atomic(count) }

  func finishOne() {
    if left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.signal() }
  }

  func wait() { done.wait() }
}
