import BenchmarkSupport
import ChronoscopeRecording
import ChronoscopeVirtualTime
import Foundation

/// What recording a sleep costs: one task sleeps 1 ns `sleeps` times on a `VirtualAsyncClock`,
/// bare and through a `RecordingClock` (whose recorder writes to a file under /tmp), and the clock
/// runs from sleeper to sleeper. Virtual time isolates the cost: no timer, no thread pool, the
/// same jobs on one thread. `ns_per_sleep_recorded − ns_per_sleep_bare` is what recording adds to
/// each sleep (a `schedule`, the `task` line naming the sleeping task, a `begin` and an `end`).
///
///   RecordingBenchmark --child clock-sleep 200000 5
enum ClockSleep {
  static func run(sleeps: Int, repeats: Int) throws -> JSONLine {
    var bare = Double.infinity
    var recorded = Double.infinity
    _ = try time(sleeps: min(sleeps, 10_000), recorded: false)
    _ = try time(sleeps: min(sleeps, 10_000), recorded: true)
    for index in 1...repeats {
      let plain = try time(sleeps: sleeps, recorded: false)
      let traced = try time(sleeps: sleeps, recorded: true)
      bare = min(bare, plain)
      recorded = min(recorded, traced)
      printError(
        "  run \(index): bare \(format(seconds: plain)) recorded \(format(seconds: traced))")
    }
    var line = JSONLine()
    line.add("benchmark", .string("recording-clock-sleep"))
    line.add("sleeps", .int(sleeps))
    line.add("ns_per_sleep_bare", .double(rounded(bare * 1e9 / Double(sleeps), places: 1)))
    line.add("ns_per_sleep_recorded", .double(rounded(recorded * 1e9 / Double(sleeps), places: 1)))
    line.add(
      "ns_added_per_sleep", .double(rounded((recorded - bare) * 1e9 / Double(sleeps), places: 1)))
    return line
  }

  private static func time(sleeps: Int, recorded: Bool) throws -> Double {
    let path = temporaryPath("clock-sleep")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let clock = VirtualAsyncClock()
    let recorder =
      recorded ? try TraceRecorder(path: path, clock: .virtual { clock.now.offset }) : nil
    let start = ContinuousClock.now
    if let recorder {
      let traced = RecordingClock(wrapping: clock, recorder: recorder)
      clock.task { for _ in 0..<sleeps { try await traced.sleep(for: .nanoseconds(1)) } }
    } else {
      clock.task { for _ in 0..<sleeps { try await clock.sleep(for: .nanoseconds(1)) } }
    }
    try clock.run()
    let elapsed = seconds(start.duration(to: .now))
    recorder?.close()
    if let recorder, recorder.counts.written != Int64(4 * sleeps) {
      throw MeasurementError("clock-sleep: \(recorder.counts.written) events, not \(4 * sleeps)")
    }
    return elapsed
  }
}
