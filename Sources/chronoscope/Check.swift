import ArgumentParser
@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope check FILE…`: the findings of each trace, one line each, or as JSON.
struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Point at what looks like a bug: lost work, late timers, blocked schedulers, hangs.",
    discussion: """
      Prints one line per finding: FILE: TIME: SEVERITY: KIND: #ID SCHEDULER (SITE): MESSAGE, the \
      warnings and errors (info too with --fail-on info, and those of the rules --only names). Kinds (the rules): \
      \(Finding.Kind.allCases.map(\.rawValue).joined(separator: ", ")). Exit status: 0 when no \
      finding is as severe as --fail-on, 1 when one is, 2 for unreadable input or bad options. \
      A trace whose recording did not end cleanly (not closed: killed, or still being written; \
      crashed; stopped by a signal; a failed write; dropped events) says so first, once, as \
      validate does, and counts as a warning: the rule "recording", which --only and --ignore \
      name as they name a kind. \
      --json prints one document with every finding of the rules chosen, and for late ones why \
      (docs/Findings.md).
      """
  )

  @Argument(help: "Trace files to check.", completion: .file())
  var files: [String]

  // Unconditional, so that `--late -5ms` reaches the check that explains it.
  @Option(parsing: .unconditional, help: "Lateness past which a begin is late.")
  var late: String = "10ms"

  @Option(
    parsing: .unconditional,
    help: "Run length past which a serial or main scheduler's run blocks the work behind it.")
  var block: String = "50ms"

  @Option(
    parsing: .unconditional,
    help: "Run length past which a main-scheduler run is a hang.")
  var hang: String = "250ms"

  @Option(
    parsing: .unconditional,
    help:
      "Threads running the trace's work at once past which there are too many (default: 4 × the cores in the trace's header)."
  )
  var threads: Int?

  @Flag(
    help:
      "Treat the files as the processes of one run: one timeline, schedulers and threads tagged P1, P2… (as view and show do)."
  )
  var merge = false

  @Flag(help: "Print the findings as one JSON document.")
  var json = false

  @Option(
    help: ArgumentHelp(
      "Exit 1 when a finding is at least this severe: error, warning or info (which also lists the info findings).",
      valueName: "severity"))
  var failOn: String = "warning"

  @Option(
    help: ArgumentHelp(
      "Check only these rules (kinds), comma-separated or repeated: --only late,lost-work; their info findings are listed too.",
      valueName: "rules"))
  var only: [String] = []

  @Option(
    help: ArgumentHelp(
      "Leave out these rules (kinds), comma-separated or repeated: --ignore no-op-cancel.",
      valueName: "rules"))
  var ignore: [String] = []

  func run() throws {
    let thresholds: FindingThresholds
    let failLevel: Finding.Severity
    let rules: Set<Finding.Kind>
    /// Whether notes on the recording are printed, and whether they fail the check.
    let recordingNotes: (shown: Bool, fail: Bool)
    do {
      thresholds = FindingThresholds(
        late: try Self.duration(late, "--late"), block: try Self.duration(block, "--block"),
        hang: try Self.duration(hang, "--hang"), threads: threads)
      if let threads, threads < 1 {
        throw UsageFailure("--threads must be at least 1; got \(threads)")
      }
      guard let level = Finding.Severity(rawValue: failOn) else {
        throw UsageFailure("--fail-on must be error, warning or info; got \"\(failOn)\"")
      }
      failLevel = level
      let chosen = try Self.rules(only, "--only")
      let ignored = try Self.rules(ignore, "--ignore")
      let all = chosen.kinds.isEmpty && !chosen.recording
      rules = (all ? Set(Finding.Kind.allCases) : chosen.kinds).subtracting(ignored.kinds)
      recordingNotes = (!ignored.recording, (all || chosen.recording) && !ignored.recording)
    } catch let failure as UsageFailure {
      standardError("chronoscope: \(TextWidth.sanitized(failure.description))")
      throw ExitCode(2)
    }
    let (replays, unreadable) = TraceLoading.replays(of: files, merged: merge)
    var reports:
      [(file: String, replay: ReplayEngine, recording: [TraceDiagnostic], findings: [Finding])] =
        []
    for (file, replay, recording) in replays {
      let findings = FindingsAnalysis.findings(in: replay, thresholds: thresholds)
      // `--ignore recording` leaves the notes out of the text and the JSON alike.
      reports.append(
        (
          file, replay, recordingNotes.shown ? recording : [],
          findings.filter { rules.contains($0.kind) }
        ))
    }
    if json {
      FindingsReport.writeJSON(reports, to: standardOutput)
      print("")
    } else {
      // Info findings say what is true but not wrong: listed only when they would fail, or
      // when `--only` names their rule.
      let listed = only.isEmpty ? min(failLevel, .warning) : .info
      var unlisted = 0
      for report in reports {
        // How the recording ended, first: it says how far the findings can be trusted.
        for note in report.recording { print(TraceLoading.line(note, of: note.file)) }
        for finding in report.findings {
          guard finding.severity >= listed else {
            unlisted += 1
            continue
          }
          let entry = FindingsReport.Entry(finding, blame: nil, in: report.replay)
          print(TextWidth.sanitized(entry.line(file: report.file)))
        }
      }
      if unlisted > 0 {
        standardError(
          "chronoscope: \(unlisted) info finding\(unlisted == 1 ? "" : "s") not listed (--fail-on info lists them, --json has them all)"
        )
      }
    }
    if unreadable { throw ExitCode(2) }
    if reports.contains(where: { report in
      report.findings.contains { $0.severity >= failLevel }
        || recordingNotes.fail && report.recording.contains { Self.severity(of: $0) >= failLevel }
    }) {
      throw ExitCode(1)
    }
  }

  /// How a note on the recording counts against `--fail-on`: a trace that did not close,
  /// crashed or dropped events is a warning (its findings are not the whole story), a damaged
  /// file an error.
  static func severity(of note: TraceDiagnostic) -> Finding.Severity {
    note.severity == .error ? .error : .warning
  }

  /// A threshold such as `10ms`: a non-negative duration with a unit.
  static func duration(_ text: String, _ option: String) throws -> Int64 {
    if text.trimmingCharacters(in: .whitespaces).hasPrefix("-") {
      throw UsageFailure("\(option): a duration must not be negative: \(text)")
    }
    guard case .success(.time(let value)) = TimeText.target(text) else {
      throw UsageFailure("\(option) must be a duration such as 10ms or 1.5s; got \"\(text)\"")
    }
    return value
  }

  /// The rule that a trace's recording ended cleanly, beside the findings' kinds: its notes
  /// (not closed, crashed, dropped events…) fail the check unless `--only` leaves it out or
  /// `--ignore` names it; they are printed unless `--ignore` names it.
  static let recordingRule = "recording"

  /// The rules named in `values` (each a kind or ``recordingRule``, or several separated by
  /// commas).
  static func rules(_ values: [String], _ option: String) throws -> (
    kinds: Set<Finding.Kind>, recording: Bool
  ) {
    var rules: Set<Finding.Kind> = []
    var recording = false
    for name in values.flatMap({ $0.split(separator: ",") }) {
      let trimmed = name.trimmingCharacters(in: .whitespaces)
      if trimmed == recordingRule {
        recording = true
        continue
      }
      guard let kind = Finding.Kind(rawValue: trimmed) else {
        let known = (Finding.Kind.allCases.map(\.rawValue) + [recordingRule])
          .joined(separator: ", ")
        throw UsageFailure("\(option): no rule \"\(trimmed)\"; the rules are \(known)")
      }
      rules.insert(kind)
    }
    return (rules, recording)
  }
}
