import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import Foundation

extension TraceStatistics {
  /// The figures as `chronoscope stats` prints them: lines of at most 80 columns (labels cut to
  /// fit), per scheduler counts and percentiles, per thread busy time, an activity line and the
  /// lateness histogram. The text is the trace's as it is: sanitize it before it reaches a
  /// terminal.
  ///
  /// - Parameter file: the name the first line shows.
  @_spi(Benchmarks) public func textLines(file: String) -> [String] {
    var lines = ["\(TextWidth.truncated(file, to: 60)) · \(TimeText.seconds(span))"]
    for scheduler in schedulers {
      lines.append("")
      lines.append("\(TextWidth.truncated(scheduler.label, to: 50)) (\(scheduler.kind))")
      lines.append(
        "  scheduled \(scheduler.scheduled) · ran \(scheduler.ran) · cancelled \(scheduler.cancelled) · lost \(scheduler.lost) · runs \(scheduler.runs) · peak \(scheduler.peakConcurrency)"
      )
      if scheduler.lateness.count > 0 { lines.append(Self.line("late", scheduler.lateness)) }
      if scheduler.wait.count > 0 { lines.append(Self.line("wait", scheduler.wait)) }
      if scheduler.duration.count > 0 { lines.append(Self.line("run ", scheduler.duration)) }
      var busy = "  busy \(String(format: "%.1f", scheduler.utilisation * 100))% of the trace"
      if let window = scheduler.busiestWindow, window.busy > 0 {
        busy +=
          " · busiest 100ms from \(TimeText.seconds(window.start)): \(TimeText.duration(window.busy))"
      }
      lines.append(busy)
    }
    if !threads.isEmpty {
      lines.append("")
      lines.append("threads")
      for thread in threads {
        lines.append(
          "  \(TextWidth.truncated(thread.title, to: 40).padded(to: 42))busy \(TimeText.duration(thread.busy))"
        )
      }
    }
    lines.append("")
    lines.append("activity (begins over the trace)")
    lines.append("  " + Self.sparkline(activity))
    if latenessHistogram.contains(where: { $0 > 0 }) {
      lines.append("")
      lines.append("lateness of timer work")
      let most = latenessHistogram.max() ?? 1
      for (name, count) in zip(Self.latenessBuckets, latenessHistogram) {
        let bar = String(repeating: "█", count: most > 0 ? (count * 50 + most - 1) / most : 0)
        lines.append("  \(name.padded(to: 10))\(bar) \(count)")
      }
    }
    return lines
  }

  private static func line(_ name: String, _ values: Distribution) -> String {
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
