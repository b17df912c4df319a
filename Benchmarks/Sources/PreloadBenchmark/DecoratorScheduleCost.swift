import BenchmarkSupport
import ChronoscopeRecording
import ChronoscopeScheduling
import Dispatch
import Foundation

/// The decorator's side of `preload-schedule-cost`, by the same method as DispatchHeavyProgram's
/// `schedule-cost` mode: four serial Dispatch queues, suspended, each behind a scheduler
/// (`DispatchSchedulerFactory.scheduler(wrapping:)`); `actions` asyncs round-robin across them
/// are timed (nothing runs meanwhile), then the queues are resumed and the drain is timed. Bare,
/// the schedulers are used as they are; recorded, each is wrapped in a `RecordingScheduler`
/// sharing one `TraceRecorder` whose per-thread buffer holds `bufferCapacity` events (the
/// driver's default is the recorder's default, 65,536, which the preload library's recorder
/// has). Alternating, `repeats` times, best of each.
///
///   PreloadBenchmark --child decorator-schedule-cost 200000 3 65536
enum DecoratorScheduleCost {
  static let queueCount = 4
  static let warmUpActions = 20_000

  /// The figures the driver compares the preload library's with.
  struct Report: Decodable {
    var nsAddedPerSchedule: Double
    var nsAddedPerRun: Double

    enum CodingKeys: String, CodingKey {
      case nsAddedPerSchedule = "ns_added_per_schedule"
      case nsAddedPerRun = "ns_added_per_run"
    }

    init?(line: String) {
      guard let report = try? JSONDecoder().decode(Self.self, from: Data(line.utf8)) else {
        return nil
      }
      self = report
    }
  }

  // What the actions count, in statics, as in DispatchHeavyProgram: the actions capture nothing.
  private static let spacing = 16
  nonisolated(unsafe) private static let counters: UnsafeMutablePointer<Int> = {
    let counters = UnsafeMutablePointer<Int>.allocate(capacity: queueCount * spacing)
    counters.initialize(repeating: 0, count: queueCount * spacing)
    return counters
  }()
  private static let actions: [@Sendable () -> Void] = [
    { counters[0] &+= 1 }, { counters[spacing] &+= 1 }, { counters[2 * spacing] &+= 1 },
    { counters[3 * spacing] &+= 1 },
  ]

  struct TimedRun {
    var schedule: Double
    var drain: Double
    var written: Int64 = 0
    var dropped: Int64 = 0
  }

  static func run(actions: Int, repeats: Int, bufferCapacity: Int) throws -> JSONLine {
    _ = try time(
      actions: min(actions, warmUpActions), recorded: false, index: 0,
      bufferCapacity: bufferCapacity)
    _ = try time(
      actions: min(actions, warmUpActions), recorded: true, index: 0, bufferCapacity: bufferCapacity
    )
    var bare = TimedRun(schedule: .infinity, drain: .infinity)
    var recorded = TimedRun(schedule: .infinity, drain: .infinity)
    for index in 1...repeats {
      let plain = try time(
        actions: actions, recorded: false, index: index, bufferCapacity: bufferCapacity)
      let traced = try time(
        actions: actions, recorded: true, index: index, bufferCapacity: bufferCapacity)
      bare.schedule = min(bare.schedule, plain.schedule)
      bare.drain = min(bare.drain, plain.drain)
      if traced.schedule < recorded.schedule {
        recorded.written = traced.written
        recorded.dropped = traced.dropped
      }
      recorded.schedule = min(recorded.schedule, traced.schedule)
      recorded.drain = min(recorded.drain, traced.drain)
      printError(
        "  decorator run \(index): bare schedule \(format(seconds: plain.schedule)) drain "
          + "\(format(seconds: plain.drain)); recorded schedule \(format(seconds: traced.schedule)) "
          + "drain \(format(seconds: traced.drain)), written \(traced.written), dropped "
          + "\(traced.dropped)")
    }
    let perAction = 1e9 / Double(actions)
    var line = JSONLine()
    line.add("benchmark", .string("decorator-schedule-cost"))
    line.add("actions", .int(actions))
    line.add("queues", .int(queueCount))
    line.add("buffer_capacity", .int(bufferCapacity))
    line.add("bare_schedule_seconds", .double(rounded(bare.schedule, places: 6)))
    line.add("recorded_schedule_seconds", .double(rounded(recorded.schedule, places: 6)))
    line.add("bare_drain_seconds", .double(rounded(bare.drain, places: 6)))
    line.add("recorded_drain_seconds", .double(rounded(recorded.drain, places: 6)))
    line.add("bare_ns_per_schedule", .double(rounded(bare.schedule * perAction, places: 1)))
    line.add(
      "ns_added_per_schedule",
      .double(rounded((recorded.schedule - bare.schedule) * perAction, places: 1)))
    line.add(
      "ns_added_per_run", .double(rounded((recorded.drain - bare.drain) * perAction, places: 1)))
    line.add("events", .int(Int(recorded.written)))
    line.add("dropped", .int(Int(recorded.dropped)))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    return line
  }

  private static func time(actions: Int, recorded: Bool, index: Int, bufferCapacity: Int) throws
    -> TimedRun
  {
    let path =
      "/tmp/chronoscope-preload-benchmark-\(ProcessInfo.processInfo.processIdentifier)-decorator-\(index).trace"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder =
      recorded
      ? try TraceRecorder(
        path: path, metadata: ["benchmark": "decorator-schedule-cost"],
        bufferCapacity: bufferCapacity,
        onError: { printError("recorder: \($0)") }) : nil
    let queues = (0..<queueCount).map { DispatchQueue(label: "decorator.\($0)") }
    let plain = queues.map { DispatchSchedulerFactory.scheduler(wrapping: $0) }
    let schedulers: [any Scheduler] =
      if let recorder {
        plain.map { RecordingScheduler(wrapping: $0, recorder: recorder) }
      } else {
        plain
      }
    for index in 0..<queueCount * spacing { counters[index] = 0 }
    for queue in queues { queue.suspend() }
    let start = ContinuousClock.now
    schedule(actions, on: schedulers)
    let scheduled = ContinuousClock.now
    for queue in queues { queue.resume() }
    // Each queue is serial: a sync after the asyncs runs after them (and after each one's `end`).
    for queue in queues { queue.sync {} }
    let drained = ContinuousClock.now
    let total = (0..<queueCount).reduce(0) { $0 + counters[$1 * spacing] }
    guard total == actions else {
      throw MeasurementError("decorator-schedule-cost: \(total) actions ran, not \(actions)")
    }
    var run = TimedRun(
      schedule: seconds(start.duration(to: scheduled)),
      drain: seconds(scheduled.duration(to: drained)))
    if let recorder {
      recorder.close()
      (run.written, run.dropped) = recorder.counts
    }
    return run
  }

  /// The timed loop, out of line so both sides run the same code.
  @inline(never)
  private static func schedule(_ count: Int, on schedulers: [any Scheduler]) {
    for index in 0..<count {
      schedulers[index & 3].async(actions[index & 3])
    }
  }
}
