import BenchmarkSupport
import ChronoscopeRecording
import ChronoscopeScheduling
import Foundation

/// Records the trace the reader benchmark reads, by running a workload under a recorder, and
/// reports its size on disk per event.
///
/// The workload is mostly immediate schedulers (three events per action, all on the main
/// thread), mixed the way an app's trace is: four recorded immediate lanes taking turns; every
/// 16 steps one action that schedules another on the next lane (so `parent` is set), one `after`
/// (with a delay) and one `sync`; every 256 steps an `async` onto a recorded serial Dispatch
/// queue (four events, with a hop to its thread); every 1,024 steps a delayed action on that
/// queue cancelled before it runs; every 65,536 steps a mark. It stops once about `events` events
/// have been recorded; the exact count is the recorder's.
enum TraceGeneration {
  static let targetBytesPerEvent = 120

  static func run(path: String, events: Int) throws -> JSONLine {
    let recorder = try TraceRecorder(
      path: path, metadata: ["benchmark": "trace-reader", "workload": "mixed"],
      bufferCapacity: events + 4096, onError: { printError("recorder: \($0)") })
    let immediate = RecordingSchedulerFactory(
      wrapping: ImmediateSchedulerFactory(), recorder: recorder)
    let lanes = (0..<4).map { immediate.makeSerial(label: "lane.\($0)") }
    let background = RecordingSchedulerFactory(
      wrapping: DispatchSchedulerFactory(), recorder: recorder
    ).makeSerial(label: "background")

    let started = ContinuousClock.now
    var produced = 0
    var step = 0
    while produced < events {
      let lane = lanes[step & 3]
      let next = lanes[(step + 1) & 3]
      switch step & 15 {
      case 0:
        lane.async { next.async {} }
        produced += 6
      case 1:
        lane.after(.milliseconds(5)) {}
        produced += 3
      case 2:
        lane.sync {}
        produced += 3
      case 3 where step & 255 == 3:
        background.async {}
        produced += 4
      case 4 where step & 1023 == 4:
        background.after(.seconds(3600)) {}.cancel()
        produced += 2
      case 5 where step & 65535 == 5:
        recorder.mark("checkpoint", ["step": String(step)])
        produced += 1
      default:
        lane.async {}
        produced += 3
      }
      step += 1
    }
    background.sync {}  // everything sent to the queue has run
    recorder.close()
    let recording = seconds(started.duration(to: .now))

    let counts = recorder.counts
    let bytes = fileSize(path)
    printError(
      "  recorded \(counts.written) events (\(counts.dropped) dropped), \(bytes) bytes, in "
        + format(seconds: recording))
    guard counts.written > 0 else { throw MeasurementError("trace-size: nothing was recorded") }
    var line = JSONLine()
    line.add("benchmark", .string("trace-size"))
    line.add("events", .int(Int(counts.written)))
    line.add("dropped", .int(Int(counts.dropped)))
    line.add("file_bytes", .int(bytes))
    line.add("bytes_per_event", .double(rounded(Double(bytes) / Double(counts.written), places: 1)))
    line.add("target_bytes_per_event", .int(targetBytesPerEvent))
    return line
  }
}
