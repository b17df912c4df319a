import ArgumentParser
@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import Foundation

/// `chronoscope stats FILE…`: per scheduler and per thread figures, an activity line and a lateness
/// histogram, in 80 columns, or one JSON document.
struct Stats: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Summarise a trace: per scheduler counts, lateness, waits, run times; per thread busy time.",
    discussion: "--json prints one document (docs/Stats.md). Exit status 2 for unreadable input."
  )

  @Argument(help: "Trace files to summarise.", completion: .file())
  var files: [String]

  @Flag(
    help:
      "Treat the files as the processes of one run: one timeline, schedulers and threads tagged P1, P2… (as view and show do)."
  )
  var merge = false

  @Flag(help: "Print the figures as one JSON document.")
  var json = false

  func run() throws {
    let (replays, unreadable) = TraceLoading.replays(of: files, merged: merge)
    let reports = replays.map { (file: $0.file, statistics: TraceStatistics($0.replay)) }
    if json {
      StatsReport.writeJSON(reports, to: standardOutput)
      print("")
    } else {
      for (index, report) in reports.enumerated() {
        if index > 0 { print("") }
        for line in report.statistics.textLines(file: report.file) {
          print(TextWidth.sanitized(line))
        }
      }
    }
    if unreadable { throw ExitCode(2) }
  }
}
