import BenchmarkSupport
import ChronoscopeRecording
import Dispatch
import Foundation

/// What recording an actor's job costs: one task calls an actor `calls` times, the actor on a
/// plain serial executor over a Dispatch queue and on a `RecordingSerialExecutor` (the same
/// queue, plus the records), side by side in one process. Each call is one job on the actor: a
/// `schedule`, a `task` line, a `hop` when the queue's thread differs from the caller's, a
/// `begin` and an `end`. `ns_added_per_job` is the difference; live threads, so the best of the
/// repeats is reported.
///
///   RecordingBenchmark --child actor-job 200000 5
enum ActorJob {
  /// The same executor as `RecordingSerialExecutor`, without the recording.
  final class PlainSerialExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked Sendable: its one stored property is immutable and thread-safe.
    private let queue = DispatchQueue(label: "plain")

    func enqueue(_ job: consuming ExecutorJob) {
      let job = UnownedJob(job)
      queue.async { [self] in job.runSynchronously(on: asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
      UnownedSerialExecutor(ordinary: self)
    }
  }

  actor Counter {
    nonisolated let executor: any SerialExecutor
    private var count = 0
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(executor: any SerialExecutor) { self.executor = executor }

    func add() { count += 1 }
  }

  static func run(calls: Int, repeats: Int) throws -> JSONLine {
    var bare = Double.infinity
    var recorded = Double.infinity
    var eventsPerJob = 0.0
    _ = try time(calls: min(calls, 10_000), recorded: false)
    _ = try time(calls: min(calls, 10_000), recorded: true)
    for index in 1...repeats {
      let plain = try time(calls: calls, recorded: false)
      let traced = try time(calls: calls, recorded: true)
      bare = min(bare, plain.seconds)
      recorded = min(recorded, traced.seconds)
      eventsPerJob = Double(traced.events) / Double(calls)
      printError(
        "  run \(index): bare \(format(seconds: plain.seconds)) recorded \(format(seconds: traced.seconds))"
      )
    }
    var line = JSONLine()
    line.add("benchmark", .string("recording-actor-job"))
    line.add("calls", .int(calls))
    line.add("ns_per_job_bare", .double(rounded(bare * 1e9 / Double(calls), places: 1)))
    line.add("ns_per_job_recorded", .double(rounded(recorded * 1e9 / Double(calls), places: 1)))
    line.add(
      "ns_added_per_job", .double(rounded((recorded - bare) * 1e9 / Double(calls), places: 1)))
    line.add("events_per_job", .double(rounded(eventsPerJob, places: 2)))
    return line
  }

  private static func time(calls: Int, recorded: Bool) throws -> (seconds: Double, events: Int64) {
    let path = temporaryPath("actor-job")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let recorder = recorded ? try TraceRecorder(path: path) : nil
    let executor: any SerialExecutor =
      if let recorder {
        RecordingSerialExecutor(label: "counter", recorder: recorder)
      } else {
        PlainSerialExecutor()
      }
    let counter = Counter(executor: executor)
    let done = DispatchSemaphore(value: 0)
    let start = ContinuousClock.now
    Task.detached {
      for _ in 0..<calls { await counter.add() }
      done.signal()
    }
    done.wait()
    let elapsed = seconds(start.duration(to: .now))
    (executor as? RecordingSerialExecutor)?.waitForEnqueuedJobs()
    recorder?.close()
    return (elapsed, recorder?.counts.written ?? 0)
  }
}
