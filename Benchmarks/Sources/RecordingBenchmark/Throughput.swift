import BenchmarkSupport
import ChronoscopeRecording
import ChronoscopeScheduling
import Foundation
import Synchronization

/// How much of a serial Dispatch queue's throughput survives recording.
///
/// The calling thread `async`s `actions` actions onto a fresh serial Dispatch scheduler; each
/// increments a counter and the last one signals a semaphore the caller waits on. The timed span
/// runs from the first `async` to that signal. The same is done with the scheduler wrapped in a
/// `RecordingScheduler`, where every action is four events (schedule on the calling thread; hop,
/// begin and end on the queue's thread). `ratio = bare_seconds / recorded_seconds`, the fraction
/// of bare throughput kept while recording. The recorder's close (draining what is left) is not
/// in the timed span; it is reported as `close_seconds`.
///
/// The third side is a ``FlightRecorder`` (a 16 MiB window in memory instead of a file):
/// `flight_ratio = bare_seconds / flight_seconds`, timed the same way in the same runs.
///
/// The fourth is the floor of recording an event (``FloorRings``, as in ``HotPath``), timed on
/// one thread in the same runs. Three of an action's four events are recorded on the queue's
/// thread, which runs the actions one after another, so even a recorder that cost exactly the
/// floor would add 3 × `floor_ns_per_event` to each action there: `ratio_at_floor =
/// bare_seconds / (bare_seconds + 3 · actions · floor)` is the most any recorder could keep.
enum Throughput {
  static let eventsPerAction = 4
  /// The events of an action recorded on the queue's thread: hop, begin and end.
  static let queueEvents = 3
  /// Issue 14: recording keeps at least 80% of bare throughput.
  static let ratioTarget = Target.atLeast(0.8, "ratio")
  static let warmUpActions = 20_000

  // What the actions count, in statics rather than a captured object: a closure capturing a
  // shared object retains it on the calling thread and releases it on the queue's, and that
  // reference count bouncing between two cores would be timed as well. These closures capture
  // nothing. Only one measurement runs at a time.
  private static let finished = Atomic<Int>(0)
  private static let target = Atomic<Int>(0)
  private static let done = DispatchSemaphore(value: 0)

  /// The action: counts itself; the last one wakes the waiting caller.
  private static func actionFinished() {
    if finished.add(1, ordering: .relaxed).newValue == target.load(ordering: .relaxed) {
      done.signal()
    }
  }

  /// Times both sides `repeats` times, alternating, and reports the best of each; `only` runs
  /// one side alone (for profiling), leaving the comparison out.
  static func run(actions: Int, repeats: Int, bufferCapacity: Int, only: Variant? = nil) throws
    -> JSONLine
  {
    let timesBare = only != .recorded
    let timesRecorded = only != .bare && only != .flight
    let timesFlight = only == nil || only == .flight
    if timesBare { _ = timeBare(actions: min(actions, warmUpActions)) }
    if timesRecorded {
      _ = try timeRecorded(
        actions: min(actions, warmUpActions), bufferCapacity: bufferCapacity, index: 0)
    }

    var bare = Double.infinity
    var floor = Double.infinity
    var best: RecordedRun?
    var bestFlight: RecordedRun?
    var dropped: Int64 = 0
    for index in 1...repeats {
      var progress = "  run \(index):"
      if timesBare {
        let run = seconds(timeBare(actions: actions))
        bare = min(bare, run)
        progress += " bare \(format(seconds: run))"
        let floorRun = seconds(HotPath.timeFloor(threads: 1, events: queueEvents * actions))
        floor = min(floor, floorRun)
        progress += " floor \(format(seconds: floorRun))"
      }
      if timesRecorded {
        let run = try timeRecorded(actions: actions, bufferCapacity: bufferCapacity, index: index)
        if run.seconds < best?.seconds ?? .infinity { best = run }
        dropped = max(dropped, run.dropped)
        progress +=
          " recorded \(format(seconds: run.seconds)) (+ close \(format(seconds: run.closeSeconds)))"
          + ", written \(run.written), dropped \(run.dropped)"
      }
      if timesFlight {
        let run = try timeRecorded(
          actions: actions, bufferCapacity: bufferCapacity, index: index, flight: true)
        if run.seconds < bestFlight?.seconds ?? .infinity { bestFlight = run }
        dropped = max(dropped, run.dropped)
        progress += " flight \(format(seconds: run.seconds)), dropped \(run.dropped)"
      }
      printError(progress)
    }

    let ratio = best.flatMap { timesBare ? rounded(bare / $0.seconds, places: 3) : nil }
    var line = JSONLine()
    line.add("benchmark", .string("recording-throughput"))
    line.add("actions", .int(actions))
    line.add("buffer_capacity", timesRecorded ? .int(bufferCapacity) : nil)
    line.add("bare_seconds", timesBare ? .double(rounded(bare, places: 6)) : nil)
    line.add("recorded_seconds", best.map { .double(rounded($0.seconds, places: 6)) })
    line.add("close_seconds", best.map { .double(rounded($0.closeSeconds, places: 6)) })
    line.add("bare_actions_per_second", timesBare ? .int(Int(Double(actions) / bare)) : nil)
    line.add(
      "recorded_actions_per_second", best.map { .int(Int(Double(actions) / $0.seconds)) })
    line.add("ratio", ratio.map { .double($0) })
    line.add("flight_seconds", bestFlight.map { .double(rounded($0.seconds, places: 6)) })
    line.add(
      "flight_ratio",
      bestFlight.flatMap { timesBare ? .double(rounded(bare / $0.seconds, places: 3)) : nil })
    line.add(
      "floor_ns_per_event",
      timesBare ? .double(rounded(floor * 1e9 / Double(queueEvents * actions), places: 1)) : nil)
    line.add(
      "ratio_at_floor", timesBare ? .double(rounded(bare / (bare + floor), places: 3)) : nil)
    line.add("events", timesRecorded ? .int(eventsPerAction * actions) : nil)
    line.add("dropped", timesRecorded ? .int(Int(dropped)) : nil)
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    if let ratio {
      line.add([ratioTarget.outcome(ratio, context: "recording-throughput actions=\(actions)")])
    }
    return line
  }

  static func timeBare(actions: Int) -> Duration {
    timeActions(on: DispatchSchedulerFactory().makeSerial(label: "throughput"), count: actions)
  }

  struct RecordedRun {
    var seconds: Double
    var closeSeconds: Double
    var written: Int64
    var dropped: Int64
  }

  static func timeRecorded(
    actions: Int, bufferCapacity: Int, index: Int, flight: Bool = false
  ) throws -> RecordedRun {
    let path = temporaryPath("throughput", index)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let metadata = ["benchmark": "recording-throughput"]
    // The flight recorder is held to the end: releasing it closes its recorder.
    let flightRecorder =
      flight ? FlightRecorder(metadata: metadata, bufferCapacity: bufferCapacity) : nil
    let recorder =
      try flightRecorder?.recorder
      ?? TraceRecorder(
        path: path, metadata: metadata, bufferCapacity: bufferCapacity,
        onError: { printError("recorder: \($0)") })
    let queue = DispatchSchedulerFactory().makeSerial(label: "throughput")
    let scheduler = RecordingScheduler(wrapping: queue, recorder: recorder)
    let elapsed = timeActions(on: scheduler, count: actions)
    // The last action signals from inside its work, before the recorder writes its `end`; wait
    // (unrecorded, untimed) for the queue to finish it, or `close()` could come first and the
    // event would be missing from the count.
    queue.sync {}
    let closeStart = ContinuousClock.now
    recorder.close()
    let closeElapsed = closeStart.duration(to: .now)
    withExtendedLifetime(flightRecorder) {}
    let counts = recorder.counts
    let expected = Int64(eventsPerAction * actions)
    guard counts.written + counts.dropped == expected else {
      throw MeasurementError(
        "throughput: expected \(expected) events, recorder counted \(counts.written) written and "
          + "\(counts.dropped) dropped")
    }
    return RecordedRun(
      seconds: seconds(elapsed), closeSeconds: seconds(closeElapsed), written: counts.written,
      dropped: counts.dropped)
  }

  /// The timed span: `count` asyncs from this thread until the last action has run.
  @inline(never)
  static func timeActions(on scheduler: any Scheduler, count: Int) -> Duration {
    finished.store(0, ordering: .relaxed)
    target.store(count, ordering: .relaxed)
    let start = ContinuousClock.now
    for _ in 0..<count {
      scheduler.async { Throughput.actionFinished() }
    }
    done.wait()
    return start.duration(to: .now)
  }
}
