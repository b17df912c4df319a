import Analysis
import Foundation
import Replay
import TraceFormat

/// The `--json` document of `chronoscope check`; its schema is in docs/Findings.md.
enum FindingsJSON {
  static func document(_ reports: [(file: String, replay: ReplayEngine, findings: [Finding])])
    -> String
  {
    let files: [[String: Any]] = reports.map { report in
      let blames = LatenessBlame.blames(for: report.findings, in: report.replay)
      return [
        "file": report.file,
        "findings": report.findings.indices.map { offset in
          var finding = object(report.findings[offset], in: report.replay)
          if let blame = blames[offset] { finding["blame"] = object(blame, in: report.replay) }
          return finding
        },
      ]
    }
    return JSONDocument.text(["schema": "chronoscope-findings", "version": 1, "files": files])
  }

  private static func object(_ finding: Finding, in replay: ReplayEngine) -> [String: Any] {
    let id = { (action: ActionIndex) in Int(replay.action(action).id.rawValue) }
    var object: [String: Any] = [
      "kind": finding.kind.rawValue, "severity": finding.severity.rawValue,
      "time_ns": finding.time, "action": id(finding.action),
      "related": finding.related.map(id), "queue_id": Int(finding.queue.rawValue),
      "message": finding.message,
    ]
    if let queue = replay.queue(finding.queue) { object["queue"] = queue.label }
    if let site = replay.callSite(of: finding.action) {
      object["site"] = ["file": site.file, "line": site.line, "function": site.function]
    }
    if let duration = finding.duration { object["duration_ns"] = duration }
    if let work = replay.work(of: finding.action) {
      object["work"] = ["name": work.name, "values": work.fields]
    }
    return object
  }

  /// Why a late finding's run was late: the stretches from its due time to its begin.
  private static func object(_ blame: LatenessBlame, in replay: ReplayEngine) -> [String: Any] {
    var object: [String: Any] = [
      "run": blame.run, "due_ns": blame.due, "began_ns": blame.began,
      "lateness_ns": blame.lateness, "waited_for": blame.basis.rawValue,
      "shares": blame.shares.map { share -> [String: Any] in
        var object: [String: Any] = [
          "from_ns": share.from, "to_ns": share.to, "duration_ns": share.duration,
          "busy": share.busy,
        ]
        if let action = share.action {
          object["action"] = Int(replay.action(action).id.rawValue)
          object["run"] = share.run
        }
        if let thread = share.thread { object["thread"] = Int(thread.rawValue) }
        return object
      },
    ]
    if blame.omittedShares > 0 {
      object["omitted_shares"] = blame.omittedShares
      object["omitted_ns"] = blame.omittedDuration
    }
    return object
  }
}

/// The commands' JSON documents: keys sorted, slashes left alone, and every character that could
/// steer a terminal written as a `\u` escape.
enum JSONDocument {
  static func text(_ root: [String: Any]) -> String {
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes])
    else { return "{}" }
    return escapingTerminalControls(String(decoding: data, as: UTF8.self))
  }

  /// JSON escapes C0 controls itself; DEL, C1 controls, U+2028/U+2029 and format characters
  /// such as bidi overrides are written as `\u` escapes by the rule all the commands' JSON
  /// shares (``JSONEscaping``).
  static func escapingTerminalControls(_ json: String) -> String {
    JSONEscaping.escapingControls(inJSON: json)
  }
}
