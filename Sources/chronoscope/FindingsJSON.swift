import Analysis
import Foundation
import Replay

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

  /// JSON escapes C0 controls itself; DEL, C1 controls (0x9B is a CSI to some terminals) and
  /// format characters such as bidi overrides it leaves raw. Inside a string their `\u` form
  /// reads back the same; outside strings there are none.
  static func escapingTerminalControls(_ json: String) -> String {
    var out = ""
    out.reserveCapacity(json.utf8.count)
    for scalar in json.unicodeScalars {
      if (0x7F...0x9F).contains(scalar.value)
        || (scalar.properties.generalCategory == .format && scalar.value <= 0xFFFF)
      {
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
