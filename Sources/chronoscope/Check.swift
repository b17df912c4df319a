import Analysis
import ArgumentParser
import Foundation
import Replay
import Screen

/// `chronoscope check FILE…`: the findings of each trace, one line each, or as JSON.
struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Point at what looks like a bug: lost work, late timers, blocked queues, hangs.",
    discussion: """
      Prints one line per finding: FILE: TIME: KIND: #ID QUEUE (SITE): MESSAGE. Kinds: \
      \(Finding.Kind.allCases.map(\.rawValue).joined(separator: ", ")). Exit status: 0 when no \
      file has findings, 1 when some do, 2 for unreadable input or bad options. --json prints \
      one document (docs/Findings.md).
      """
  )

  @Argument(help: "Trace files to check.", completion: .file())
  var files: [String]

  @Option(help: "Lateness past which a begin is late.")
  var late: String = "10ms"

  @Option(help: "Run length past which a serial or main queue's run blocks the work behind it.")
  var block: String = "50ms"

  @Option(help: "Run length past which a main-queue run is a hang.")
  var hang: String = "250ms"

  @Option(
    help:
      "Threads running the trace's work at once past which there are too many (default: 4 × the cores in the trace's header)."
  )
  var threads: Int?

  @Flag(
    help:
      "Treat the files as the processes of one run: one timeline, queues and threads tagged P1, P2… (as view and show do)."
  )
  var merge = false

  @Flag(help: "Print the findings as one JSON document.")
  var json = false

  func run() throws {
    let thresholds: FindingThresholds
    do {
      thresholds = FindingThresholds(
        late: try Self.duration(late, "--late"), block: try Self.duration(block, "--block"),
        hang: try Self.duration(hang, "--hang"), threads: threads)
      if let threads, threads < 1 {
        throw UsageFailure("--threads must be at least 1; got \(threads)")
      }
    } catch let failure as UsageFailure {
      standardError("chronoscope: \(failure.description)")
      throw ExitCode(2)
    }
    var reports: [(file: String, replay: ReplayEngine, findings: [Finding])] = []
    var unreadable = false
    for file in merge ? [TraceLoading.mergedName(files)] : files {
      let paths = merge ? files : [file]
      guard let replay = try? TraceLoading.loadReplay(paths) else {
        unreadable = true
        continue
      }
      reports.append((file, replay, FindingsAnalysis.findings(in: replay, thresholds: thresholds)))
    }
    if json {
      print(FindingsJSON.document(reports.map { ($0.file, $0.replay, $0.findings) }))
    } else {
      for report in reports {
        for finding in report.findings {
          print(TextWidth.sanitized(Self.line(finding, in: report.replay, file: report.file)))
        }
      }
    }
    if unreadable { throw ExitCode(2) }
    if reports.contains(where: { !$0.findings.isEmpty }) { throw ExitCode(1) }
  }

  /// `file: 0.123456s: late: #12 app.network (App/Loader.swift:40): began 35.000ms after…`
  static func line(_ finding: Finding, in replay: ReplayEngine, file: String) -> String {
    let info = replay.action(finding.action)
    let queue = replay.queue(finding.queue)?.label ?? "queue \(finding.queue.rawValue)"
    let site = replay.callSite(of: finding.action).map { " (\($0.file):\($0.line))" } ?? ""
    return
      "\(file): \(TimeText.seconds(finding.time)): \(finding.kind.rawValue): \(info.id) \(queue)\(site): \(finding.message)"
  }

  /// A threshold such as `10ms`: a non-negative duration with a unit.
  static func duration(_ text: String, _ option: String) throws -> Int64 {
    guard case .success(.time(let value)) = TimeText.target(text) else {
      throw UsageFailure("\(option) must be a duration such as 10ms or 1.5s; got \"\(text)\"")
    }
    return value
  }
}
