import Analysis
import ArgumentParser
import Foundation
import Replay
import Screen

/// `chronoscope stats FILE…`: per queue and per thread figures, an activity line and a lateness
/// histogram, in 80 columns, or one JSON document.
struct Stats: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Summarise a trace: per queue counts, lateness, waits, run times; per thread busy time.",
    discussion: "--json prints one document (docs/Stats.md). Exit status 2 for unreadable input."
  )

  @Argument(help: "Trace files to summarise.", completion: .file())
  var files: [String]

  @Flag(
    help:
      "Treat the files as the processes of one run: one timeline, queues and threads tagged P1, P2… (as view and show do)."
  )
  var merge = false

  @Flag(help: "Print the figures as one JSON document.")
  var json = false

  func run() throws {
    var reports: [(file: String, stats: TraceStatistics)] = []
    var unreadable = false
    for file in merge ? [TraceLoading.mergedName(files)] : files {
      let paths = merge ? files : [file]
      guard let replay = try? TraceLoading.loadReplay(paths) else {
        unreadable = true
        continue
      }
      reports.append((file, TraceStatistics(replay)))
    }
    if json {
      print(StatsJSON.document(reports))
    } else {
      for (index, report) in reports.enumerated() {
        if index > 0 { print("") }
        for line in Self.text(report.stats, file: report.file) { print(TextWidth.sanitized(line)) }
      }
    }
    if unreadable { throw ExitCode(2) }
  }

  /// The figures as lines of at most 80 columns (labels are cut to fit).
  static func text(_ stats: TraceStatistics, file: String) -> [String] {
    var lines = ["\(TextWidth.truncated(file, to: 60)) · \(TimeText.seconds(stats.span))"]
    for queue in stats.queues {
      lines.append("")
      lines.append("\(TextWidth.truncated(queue.label, to: 50)) (\(queue.kind))")
      lines.append(
        "  scheduled \(queue.scheduled) · ran \(queue.ran) · cancelled \(queue.cancelled) · lost \(queue.lost) · runs \(queue.runs) · peak \(queue.peakConcurrency)"
      )
      if queue.lateness.count > 0 { lines.append(distribution("late", queue.lateness)) }
      if queue.wait.count > 0 { lines.append(distribution("wait", queue.wait)) }
      if queue.duration.count > 0 { lines.append(distribution("run ", queue.duration)) }
      var busy = "  busy \(String(format: "%.1f", queue.utilisation * 100))% of the trace"
      if let window = queue.busiestWindow, window.busy > 0 {
        busy +=
          " · busiest 100ms from \(TimeText.seconds(window.start)): \(TimeText.duration(window.busy))"
      }
      lines.append(busy)
    }
    if !stats.threads.isEmpty {
      lines.append("")
      lines.append("threads")
      for thread in stats.threads {
        lines.append(
          "  \(TextWidth.truncated(thread.title, to: 40).padded(to: 42))busy \(TimeText.duration(thread.busy))"
        )
      }
    }
    lines.append("")
    lines.append("activity (begins over the trace)")
    lines.append("  " + sparkline(stats.activity))
    if stats.latenessHistogram.contains(where: { $0 > 0 }) {
      lines.append("")
      lines.append("lateness of timer work")
      let most = stats.latenessHistogram.max() ?? 1
      for (name, count) in zip(TraceStatistics.latenessBuckets, stats.latenessHistogram) {
        let bar = String(repeating: "█", count: most > 0 ? (count * 50 + most - 1) / most : 0)
        lines.append("  \(name.padded(to: 10))\(bar) \(count)")
      }
    }
    return lines
  }

  private static func distribution(_ name: String, _ values: TraceStatistics.Distribution)
    -> String
  {
    let figure = { (value: Int64?) in value.map(TimeText.duration) ?? "—" }
    return
      "  \(name) p50 \(figure(values.p50)) · p90 \(figure(values.p90)) · p99 \(figure(values.p99)) · max \(figure(values.max))"
  }

  /// Counts as a line of `▁▂▃▄▅▆▇█`, a blank for none.
  static func sparkline(_ counts: [Int]) -> String {
    let bars = Array("▁▂▃▄▅▆▇█")
    let most = counts.max() ?? 0
    guard most > 0 else { return String(repeating: " ", count: counts.count) }
    return String(
      counts.map { count in
        count == 0 ? " " : bars[Swift.min((count * bars.count - 1) / most, bars.count - 1)]
      })
  }
}

/// The `--json` document of `chronoscope stats`; its schema is in docs/Stats.md.
enum StatsJSON {
  static func document(_ reports: [(file: String, stats: TraceStatistics)]) -> String {
    let files: [[String: Any]] = reports.map { report in
      let stats = report.stats
      return [
        "file": report.file, "span_ns": stats.span,
        "queues": stats.queues.map(queue),
        "threads": stats.threads.map {
          ["thread_id": Int($0.id.rawValue), "title": $0.title, "busy_ns": $0.busy] as [String: Any]
        },
        "activity": stats.activity,
        "lateness_histogram": Dictionary(
          uniqueKeysWithValues: zip(TraceStatistics.latenessBuckets, stats.latenessHistogram)),
      ]
    }
    return JSONDocument.text(["schema": "chronoscope-stats", "version": 1, "files": files])
  }

  private static func queue(_ queue: TraceStatistics.Queue) -> [String: Any] {
    var object: [String: Any] = [
      "queue_id": Int(queue.id.rawValue), "label": queue.label, "kind": queue.kind,
      "scheduled": queue.scheduled, "ran": queue.ran, "cancelled": queue.cancelled,
      "lost": queue.lost, "runs": queue.runs, "peak_concurrency": queue.peakConcurrency,
      "utilisation": queue.utilisation, "lateness_ns": distribution(queue.lateness),
      "wait_ns": distribution(queue.wait), "run_ns": distribution(queue.duration),
    ]
    if let window = queue.busiestWindow {
      object["busiest_100ms"] = ["start_ns": window.start, "busy_ns": window.busy]
    }
    return object
  }

  private static func distribution(_ values: TraceStatistics.Distribution) -> [String: Any] {
    var object: [String: Any] = ["count": values.count]
    if let p50 = values.p50 { object["p50"] = p50 }
    if let p90 = values.p90 { object["p90"] = p90 }
    if let p99 = values.p99 { object["p99"] = p99 }
    if let max = values.max { object["max"] = max }
    return object
  }
}
