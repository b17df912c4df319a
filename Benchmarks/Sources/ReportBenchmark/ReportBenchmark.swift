import ArgumentParser
import BenchmarkSupport
@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation

/// The reports of `chronoscope check` and `stats` on a trace with many schedulers, as text and as
/// JSON side by side: each rendering in a child process of its own, for its seconds and peak
/// memory (issue 29: `--json` built the whole document in memory, > 7.8 GB and > 150 s at 1M
/// schedulers, where the text took 8.8 s and 776 MB; it is streamed now).
///
///   swift run -c release --package-path Benchmarks ReportBenchmark [--schedulers 200000]
///
/// One JSON line per report and format: `render_seconds` (the report alone, to a sink that only
/// counts its bytes), `peak_rss_bytes` (the child's, trace and replay included), `bytes`.
@main
struct ReportBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ReportBenchmark",
    abstract: "check and stats reports as text and as JSON on a trace with many schedulers.")

  @Option(
    help: ArgumentHelp(
      "Schedulers in the generated trace, one action each (default 200000).",
      valueName: "count"),
    transform: CommandLineValue.count)
  var schedulers = 200_000

  /// `--child render REPORT FORMAT QUEUES`: one rendering, in a process of its own.
  @OptionGroup var child: ChildCommandLine

  mutating func run() throws {
    if let words = child.words {
      guard words.count == 4, words[0] == "render", let schedulers = Int(words[3]) else {
        throw ValidationError("unknown child \(words)")
      }
      print(Self.render(report: words[1], format: words[2], schedulers: schedulers))
      return
    }
    for report in ["check", "stats"] {
      for format in ["text", "json"] {
        let line = try ChildProcess.runSelf(arguments: [
          "--child", "render", report, format, String(schedulers),
        ])
        print(line.trimmingCharacters(in: .newlines))
      }
    }
  }

  /// Renders one report of a generated trace to a counting sink; the JSON line that says how
  /// long it took and how much memory the process reached.
  static func render(report: String, format: String, schedulers: Int) -> JSONLine {
    let replay = ReplayEngine(trace: makeTrace(schedulers: schedulers))
    var bytes = 0
    let count = { (chunk: UnsafeBufferPointer<UInt8>) in bytes += chunk.count }
    let clock = ContinuousClock.now
    switch (report, format) {
    case ("check", "text"):
      for finding in FindingsAnalysis.findings(in: replay) {
        bytes +=
          FindingsReport.Entry(finding, blame: nil, in: replay).line(file: "t").utf8.count + 1
      }
    case ("check", _):
      FindingsReport.writeJSON(
        [("t", replay, [], FindingsAnalysis.findings(in: replay))], to: count)
    case ("stats", "text"):
      for line in TraceStatistics(replay).textLines(file: "t") { bytes += line.utf8.count + 1 }
    default:
      StatsReport.writeJSON([("t", TraceStatistics(replay))], to: count)
    }
    let elapsed = ContinuousClock.now - clock
    var line = JSONLine()
    line.add("benchmark", .string("report"))
    line.add("report", .string(report))
    line.add("format", .string(format))
    line.add("schedulers", .int(schedulers))
    line.add("render_seconds", .double(rounded(seconds(elapsed), places: 3)))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    line.add("bytes", .int(bytes))
    return line
  }

  /// `schedulers` serial schedulers with one action each; every other one begins 20 ms late (a `late`
  /// finding with its blame), as in a trace whose app made a scheduler per request.
  static func makeTrace(schedulers: Int) -> Trace {
    var trace = Trace(
      header: TraceHeader(clock: .host, start: "2026-11-21T00:00:00Z", process: "bench", pid: 1))
    trace.threadNames = [1: "main", 2: "worker"]
    var events: [TraceEvent] = []
    events.reserveCapacity(schedulers * 3)
    var time: Int64 = 1_000
    for index in 1...schedulers {
      let id = UInt32(truncatingIfNeeded: index)
      trace.schedulers[id + 1] = SchedulerRecord(
        id: id + 1, label: "app.scheduler.\(index)", kind: "serial", family: "dispatch", time: time)
      let late: Int64 = index % 2 == 1 ? 20_000_000 : 2_000
      events.append(
        .schedule(
          time: time, action: id, scheduler: id + 1, mode: .after, delay: 1_000, due: time + 1_000,
          thread: 1, parent: 0, site: 0))
      events.append(.begin(time: time + late, action: id, thread: 2, run: 1))
      events.append(.end(time: time + late + 500, action: id, thread: 2, run: 1, duration: 500))
      time += late + 1_000
    }
    trace.events = events
    return trace
  }
}
