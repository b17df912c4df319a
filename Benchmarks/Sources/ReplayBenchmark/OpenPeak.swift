import ArgumentParser
import BenchmarkSupport
@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation

/// The peak memory of opening a trace file as `chronoscope view` does, in a process of its own
/// (`ReplayBenchmark --child open FILE`): read and prepared in one pass, the lanes indexed for
/// the first frame, then the keyframes and the findings made beside it. The whole process's
/// peak, so nothing the measuring process did before counts.
///
/// Target (issue 14): at most 48 bytes per event.
struct OpenPeak: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ReplayBenchmark --child open",
    abstract: "Opens a trace file as the inspector does and prints its peak memory (JSON).")

  static let target = Target.atMost(
    48, "open_peak_bytes_per_event", key: "target_open_peak_bytes_per_event")
  /// The trace size the target is stated for, and checked from.
  static let targetEvents = 10_000_000

  @Argument(help: "The trace file.")
  var path: String

  func run() throws {
    // The resident memory after each stage, the peak so far, and the time since the start:
    // where the peak and the wait come from.
    let start = ContinuousClock.now
    var stages: [(String, Int?, Int?, Duration)] = []
    func stage(_ name: String) {
      stages.append(
        (name, currentResidentSetBytes(), peakResidentSetBytes(), ContinuousClock.now - start))
    }
    // Read and prepared in one pass, as `chronoscope view` does.
    guard let replay = ReplayEngine.read(path: path, makingKeyframes: false).replay else {
      throw ValidationError("\(path) is not a readable trace")
    }
    let events = replay.eventCount
    // As `chronoscope view` does after loading: the library leaves trimming to the program.
    _ = releaseFreeMemory()
    stage("prepared")
    var app = InspectorApp.opening(replay: replay, name: path)
    stage("first_frame_ready")
    app.finishPreparing()
    stage("finished")
    var line = JSONLine()
    line.add("events", .int(events))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    for (name, resident, peak, elapsed) in stages {
      line.add("rss_after_\(name)", resident.map { .int($0) })
      line.add("peak_after_\(name)", peak.map { .int($0) })
      line.add("seconds_to_\(name)", .double(rounded(seconds(elapsed), places: 3)))
    }
    print(line)
  }

  /// Runs the child on `path`: its events and peak resident bytes.
  static func measure(path: String) throws -> (events: Int, peakBytes: Int) {
    let output = try ChildProcess.runSelf(arguments: ["--child", "open", path])
    guard let data = output.split(separator: "\n").last.map({ Data($0.utf8) }),
      let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let events = object["events"] as? Int, let peak = object["peak_rss_bytes"] as? Int
    else { throw ValidationError("the open child printed no measurement: \(output)") }
    return (events, peak)
  }
}

#if canImport(Glibc)
  /// glibc's `malloc_trim`, which Swift's Glibc module lacks (the CLI reaches it through the
  /// package's `CMalloc` target, which is no product).
  @_silgen_name("malloc_trim")
  private func mallocTrim(_ pad: Int) -> Int32

  /// Hands the allocator's free memory back to the system.
  private func releaseFreeMemory() -> Bool { mallocTrim(0) != 0 }
#else
  private func releaseFreeMemory() -> Bool { false }
#endif
