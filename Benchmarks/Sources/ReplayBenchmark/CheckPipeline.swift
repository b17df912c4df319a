import Analysis
import BenchmarkSupport
import Foundation
import Replay
import Sharing
import TraceFormat

/// `chronoscope check` and `stats` on a trace file, phase by phase, beside the floor of any line
/// reader: mapping the file and finding its newlines.
///
///   swift run -c release --package-path Benchmarks ReplayBenchmark --file /tmp/t10m.trace
///
/// Targets: `check` and `stats` ≤ 2 s each on 10M events, reading included (issue 10); `export`
/// ≤ 10 s (issue 11).
enum CheckPipeline {
  static func run(path: String) throws {
    var clock = ContinuousClock.now
    let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    var lines = 0
    data.withUnsafeBytes { raw in
      guard var cursor = raw.baseAddress else { return }
      var left = raw.count
      while left > 0, let newline = memchr(cursor, 0x0A, left) {
        lines += 1
        let consumed = UnsafeRawPointer(newline) - cursor + 1
        cursor += consumed
        left -= consumed
      }
    }
    let floor = ContinuousClock.now - clock
    ReplayBenchmark.progress("floor: \(lines) lines in \(floor)")

    clock = ContinuousClock.now
    let reading = TraceReader.read(path: path)
    let read = ContinuousClock.now - clock
    guard let trace = reading.trace else {
      ReplayBenchmark.progress("not a readable trace: \(reading.diagnostics.prefix(3))")
      return
    }
    ReplayBenchmark.progress("read \(trace.events.count) events in \(read)")
    clock = ContinuousClock.now
    let replay = ReplayEngine(trace: trace)
    let prepared = ContinuousClock.now - clock
    clock = ContinuousClock.now
    let findings = FindingsAnalysis.findings(in: replay)
    let analysed = ContinuousClock.now - clock
    clock = ContinuousClock.now
    let statistics = TraceStatistics(replay)
    let summarised = ContinuousClock.now - clock
    ReplayBenchmark.progress("\(findings.count) findings, \(statistics.queues.count) queues")
    clock = ContinuousClock.now
    // The JSON goes to a sink that only counts it: the formatting, not the disk.
    var exportedBytes = 0
    _ = ChromeTraceExport.export([(replay, "trace")]) { exportedBytes += $0.count }
    let exported = ContinuousClock.now - clock
    ReplayBenchmark.progress("exported \(exportedBytes) bytes of JSON in \(exported)")

    let seconds = ReplayBenchmark.seconds
    var line = JSONLine()
    line.add("benchmark", .string("check-pipeline"))
    line.add("events", .int(trace.events.count))
    line.add("file_bytes", .int(data.count))
    line.add("floor_newlines_seconds", .double(rounded(seconds(floor), places: 3)))
    line.add("read_seconds", .double(rounded(seconds(read), places: 3)))
    line.add("prepare_seconds", .double(rounded(seconds(prepared), places: 3)))
    line.add("findings_seconds", .double(rounded(seconds(analysed), places: 3)))
    line.add("stats_seconds", .double(rounded(seconds(summarised), places: 3)))
    line.add(
      "check_seconds", .double(rounded(seconds(read + prepared + analysed), places: 3)))
    line.add(
      "stats_command_seconds", .double(rounded(seconds(read + prepared + summarised), places: 3)))
    line.add("export_seconds", .double(rounded(seconds(exported), places: 3)))
    line.add(
      "export_command_seconds",
      .double(rounded(seconds(read + prepared + exported), places: 3)))
    line.add("export_bytes", .int(exportedBytes))
    line.add("read_vs_floor", .double(rounded(seconds(read) / seconds(floor), places: 1)))
    line.add("target_seconds", .int(2))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    print(line)
  }
}
