import ArgumentParser
import Foundation
import Replay
import Screen
import Sharing

/// `chronoscope diff A B`: what differs between an expected and an actual recording.
struct Diff: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Compare two recordings of the same program: expected (A) and actual (B).",
    discussion: """
      Actions are matched by queue label, the function that scheduled them and occurrence, not \
      by id; source lines only tell apart one function's call sites, so an edit that moves lines \
      changes nothing. Reports the first place where the runs differ in order, the actions only \
      one trace has, and timing differences beyond --tolerance, with times from each trace's \
      first event (or --align-mark). Exit status: 0 when the traces do not differ, 1 when they \
      do, 2 for unreadable input or bad options. --json prints one document (docs/Diff.md).
      """
  )

  @Argument(help: "The expected trace.", completion: .file())
  var a: String

  @Argument(help: "The actual trace.", completion: .file())
  var b: String

  @Option(help: "Timing differences up to this much count as equal (0 for exact).")
  var tolerance: String = "1ms"

  @Option(
    help: ArgumentHelp(
      "Count each trace's times from its first mark with this name, not from its first event.",
      valueName: "name"))
  var alignMark: String?

  @Flag(help: "Print the differences as one JSON document.")
  var json = false

  /// The most entries of each list the text shows; the counts say how many more.
  static let shown = 20

  func run() throws {
    let tolerance: Int64
    do {
      tolerance = try Check.duration(self.tolerance, "--tolerance")
    } catch let failure as UsageFailure {
      standardError("chronoscope: \(failure.description)")
      throw ExitCode(2)
    }
    let replayA = try? TraceLoading.loadReplay(a)
    let replayB = try? TraceLoading.loadReplay(b)
    guard let replayA, let replayB else { throw ExitCode(2) }
    let diff: TraceDiff
    do throws(TraceDiff.MissingMark) {
      diff = try TraceDiff(
        replayA, replayB, tolerance: tolerance, origin: alignMark.map { .mark($0) } ?? .firstEvent)
    } catch {
      let file = error.trace == "A" ? a : b
      standardError(
        TextWidth.sanitized(
          "chronoscope: --align-mark: \(file) has no mark named \"\(error.name)\""))
      throw ExitCode(2)
    }
    if json {
      print(DiffJSON.document(diff, a: a, b: b))
    } else {
      for line in Self.text(diff, a: a, b: b) { print(TextWidth.sanitized(line)) }
    }
    if !diff.isSame { throw ExitCode(1) }
  }

  static func text(_ diff: TraceDiff, a: String, b: String) -> [String] {
    let origin =
      switch diff.origin {
      case .firstEvent: "its first event"
      case .mark(let name): "its first mark \"\(name)\""
      }
    var lines = [
      "A: \(a) (times from \(origin), at \(TimeText.seconds(diff.originA)))",
      "B: \(b) (times from \(origin), at \(TimeText.seconds(diff.originB)))",
    ]
    if diff.isSame {
      lines.append(
        "no difference: the same runs in the same order, timing within \(TimeText.duration(diff.tolerance))"
      )
      return lines
    }
    if let divergence = diff.firstDivergence {
      lines.append("first divergence at run \(divergence.position) in begin order:")
      lines.append("  A " + describe(divergence.a))
      lines.append("  B " + describe(divergence.b))
    } else {
      lines.append("the runs began in the same order")
    }
    for (name, only) in [("A", diff.onlyInA), ("B", diff.onlyInB)] where !only.isEmpty {
      lines.append("only in \(name): \(only.count) action(s)")
      for action in only.prefix(shown) {
        lines.append("  \(describe(action)), scheduled at \(TimeText.seconds(action.scheduledAt))")
      }
      if only.count > shown { lines.append("  … \(only.count - shown) more") }
    }
    if !diff.timing.isEmpty {
      lines.append(
        "timing: \(diff.timing.count) difference(s) beyond \(TimeText.duration(diff.tolerance))")
      for difference in diff.timing.prefix(shown) {
        lines.append("  \(describe(difference.a)): \(describe(difference))")
      }
      if diff.timing.count > shown { lines.append("  … \(diff.timing.count - shown) more") }
    }
    return lines
  }

  /// `#12 net (Loader.swift:40 load()) occurrence 3`: id, queue, call site, and which of the
  /// actions its function scheduled on the queue.
  static func describe(_ action: TraceDiff.ActionReference) -> String {
    let site = action.key.site.isEmpty ? "no call site" : action.key.site
    return "\(action.id) \(action.key.queue) (\(site)) occurrence \(action.key.occurrence)"
  }

  static func describe(_ run: TraceDiff.RunReference?) -> String {
    guard let run else { return "ran nothing more" }
    return "ran \(describe(run.action)), run \(run.run), at \(TimeText.seconds(run.began))"
  }

  static func describe(_ difference: TraceDiff.TimingDifference) -> String {
    let delta = difference.delta
    let signed = (delta < 0 ? "-" : "+") + TimeText.duration(Int64(clamping: delta.magnitude))
    switch difference.aspect {
    case .scheduled:
      return
        "scheduled at \(TimeText.seconds(difference.valueA)) in A, \(TimeText.seconds(difference.valueB)) in B (\(signed))"
    case .began(let run):
      return
        "run \(run) began at \(TimeText.seconds(difference.valueA)) in A, \(TimeText.seconds(difference.valueB)) in B (\(signed))"
    case .duration(let run):
      return
        "run \(run) took \(TimeText.duration(difference.valueA)) in A, \(TimeText.duration(difference.valueB)) in B (\(signed))"
    case .runs:
      return "ran \(difference.valueA) time(s) in A, \(difference.valueB) in B"
    }
  }
}

/// The `--json` document of `chronoscope diff`; its schema is in docs/Diff.md.
enum DiffJSON {
  static func document(_ diff: TraceDiff, a: String, b: String) -> String {
    var root: [String: Any] = [
      "schema": "chronoscope-diff", "version": 2, "a": a, "b": b, "same": diff.isSame,
      "tolerance_ns": diff.tolerance, "origin_a_ns": diff.originA, "origin_b_ns": diff.originB,
      "only_in_a": diff.onlyInA.map(object), "only_in_b": diff.onlyInB.map(object),
      "timing": diff.timing.map(object),
    ]
    switch diff.origin {
    case .firstEvent: root["origin"] = "first-event"
    case .mark(let name):
      root["origin"] = "mark"
      root["origin_mark"] = name
    }
    if let divergence = diff.firstDivergence {
      var entry: [String: Any] = ["position": divergence.position]
      if let run = divergence.a { entry["a"] = object(run) }
      if let run = divergence.b { entry["b"] = object(run) }
      root["first_divergence"] = entry
    }
    return JSONDocument.text(root)
  }

  private static func object(_ action: TraceDiff.ActionReference) -> [String: Any] {
    [
      "action": Int(action.id.rawValue), "queue": action.key.queue, "site": action.key.site,
      "occurrence": action.key.occurrence, "scheduled_ns": action.scheduledAt,
    ]
  }

  private static func object(_ run: TraceDiff.RunReference) -> [String: Any] {
    ["action": object(run.action), "run": run.run, "began_ns": run.began]
  }

  private static func object(_ difference: TraceDiff.TimingDifference) -> [String: Any] {
    var entry: [String: Any] = [
      "action": object(difference.a), "action_b": Int(difference.bID.rawValue),
      "a": difference.valueA, "b": difference.valueB,
    ]
    switch difference.aspect {
    case .scheduled: entry["aspect"] = "scheduled"
    case .began(let run):
      entry["aspect"] = "began"
      entry["run"] = run
    case .duration(let run):
      entry["aspect"] = "duration"
      entry["run"] = run
    case .runs: entry["aspect"] = "runs"
    }
    return entry
  }
}
