import ArgumentParser
import BenchmarkSupport
@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope check` and `stats` on a trace file, phase by phase, beside the floor of any line
/// reader: mapping the file and finding its newlines.
///
///   swift run -c release --package-path Benchmarks ReplayBenchmark --file /tmp/t10m.trace
///
/// Targets: `check` and `stats` ≤ 2 s each on 10M events, reading included (issue 10); `export`
/// ≤ 10 s (issue 11); opening the file (reading and preparing, one pass, then the keyframes) ≤ 3 s
/// (issue 14); and opening it as the inspector does, at most 48 bytes per event at the peak
/// (issue 14, ``OpenPeak``).
enum CheckPipeline {
  static let commandTargets = ["check_seconds", "stats_command_seconds"].map {
    Target.atMost(2, $0, key: "target_seconds")
  }
  static let exportTarget = Target.atMost(10, "export_command_seconds")
  static let openTarget = Target.atMost(3, "open_seconds")

  /// Times each phase and writes one JSON line; with `check`, exits 1 when a target is missed
  /// or the file is not a readable trace.
  static func run(path: String, check: Bool) throws {
    // First, in a process of its own: this one holds more than the inspector would.
    let opened = try OpenPeak.measure(path: path)
    let openPeak = rounded(Double(opened.peakBytes) / Double(max(opened.events, 1)), places: 1)
    ReplayBenchmark.progress("opened as the inspector does: peak \(opened.peakBytes) bytes")
    var clock = ContinuousClock.now
    let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    let lines = data.withUnsafeBytes(newlineCount)
    let floor = ContinuousClock.now - clock
    ReplayBenchmark.progress("floor: \(lines) lines in \(floor)")

    // The reader alone, against the floor.
    clock = ContinuousClock.now
    let read: Duration
    let eventCount: Int
    do {
      let reading = TraceReader.read(path: path)
      read = ContinuousClock.now - clock
      eventCount = reading.trace?.events.count ?? 0
    }
    ReplayBenchmark.progress("read \(eventCount) events in \(read)")
    // As the commands read and prepare it: in one pass, the replay made as the lines are read,
    // and without keyframes, which check, stats and export never use.
    clock = ContinuousClock.now
    let opening = ReplayEngine.read(path: path, makingKeyframes: false)
    let prepared = ContinuousClock.now - clock
    guard let replay = opening.replay else {
      ReplayBenchmark.progress("not a readable trace: \(opening.reading.diagnostics.prefix(3))")
      if check {
        printError("[check-pipeline] check: no trace was read, so no target was met")
        throw ExitCode(1)
      }
      return
    }
    ReplayBenchmark.progress("read and prepared in \(prepared)")
    // What the inspector adds before it can seek (while it finds the findings on another core).
    var seekable = replay
    clock = ContinuousClock.now
    seekable.makeKeyframes()
    let keyframed = ContinuousClock.now - clock
    clock = ContinuousClock.now
    let findings = FindingsAnalysis.findings(in: replay)
    let analysed = ContinuousClock.now - clock
    clock = ContinuousClock.now
    let statistics = TraceStatistics(replay)
    let summarised = ContinuousClock.now - clock
    ReplayBenchmark.progress(
      "\(findings.count) findings, \(statistics.schedulers.count) schedulers")
    clock = ContinuousClock.now
    // The JSON goes to a sink that only counts it: the formatting, not the disk.
    var exportedBytes = 0
    _ = ChromeTraceExport.export([(replay, "trace")]) { exportedBytes += $0.count }
    let exported = ContinuousClock.now - clock
    ReplayBenchmark.progress("exported \(exportedBytes) bytes of JSON in \(exported)")

    let checkSeconds = rounded(seconds(prepared + analysed), places: 3)
    let statsSeconds = rounded(seconds(prepared + summarised), places: 3)
    let exportSeconds = rounded(seconds(prepared + exported), places: 3)
    let openSeconds = rounded(seconds(prepared + keyframed), places: 3)
    var line = JSONLine()
    line.add("benchmark", .string("check-pipeline"))
    line.add("events", .int(eventCount))
    line.add("file_bytes", .int(data.count))
    line.add("floor_newlines_seconds", .double(rounded(seconds(floor), places: 3)))
    line.add("read_seconds", .double(rounded(seconds(read), places: 3)))
    line.add("read_and_prepare_seconds", .double(rounded(seconds(prepared), places: 3)))
    line.add("keyframes_seconds", .double(rounded(seconds(keyframed), places: 3)))
    line.add("findings_seconds", .double(rounded(seconds(analysed), places: 3)))
    line.add("stats_seconds", .double(rounded(seconds(summarised), places: 3)))
    line.add("open_seconds", .double(openSeconds))
    line.add("check_seconds", .double(checkSeconds))
    line.add("stats_command_seconds", .double(statsSeconds))
    line.add("export_seconds", .double(rounded(seconds(exported), places: 3)))
    line.add("export_command_seconds", .double(exportSeconds))
    line.add("export_bytes", .int(exportedBytes))
    line.add("read_vs_floor", .double(rounded(seconds(read) / seconds(floor), places: 1)))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    line.add("open_peak_bytes_per_event", .double(openPeak))
    let context = "check-pipeline events=\(eventCount)"
    var outcomes =
      zip(commandTargets, [checkSeconds, statsSeconds]).map { $0.outcome($1, context: context) }
      + [
        exportTarget.outcome(exportSeconds, context: context),
        openTarget.outcome(openSeconds, context: context),
      ]
    // The memory target is stated for ten million events: on fewer, the process's own memory
    // (the runtime and its libraries, about 20 MB) weighs more per event.
    if opened.events >= OpenPeak.targetEvents {
      outcomes.append(OpenPeak.target.outcome(openPeak, context: context))
    }
    line.add(outcomes)
    print(line)
    var tally = TargetTally(benchmark: "check-pipeline")
    tally.record(outcomes)
    try tally.finish(check: check)
  }
}
