@_spi(Benchmarks) import ChronoscopeReplay

extension DiffReport {
  /// The most entries of each list ``textLines(shown:)`` shows by default.
  package static let shownByDefault = 20

  /// The report as `chronoscope diff` prints it: each trace's origin, then the first
  /// divergence, the actions only one trace has and the timing differences, at most `shown` of
  /// each list (a count says how many more). The text is the traces' as it is: sanitize it
  /// before it reaches a terminal.
  package func textLines(shown: Int = DiffReport.shownByDefault) -> [String] {
    let from = originMark.map { "its first mark \"\($0)\"" } ?? "its first event"
    var lines = [
      "A: \(a) (times from \(from), at \(TimeText.seconds(originANanoseconds)))",
      "B: \(b) (times from \(from), at \(TimeText.seconds(originBNanoseconds)))",
    ]
    if same {
      lines.append(
        "no difference: the same runs in the same order, timing within \(TimeText.duration(toleranceNanoseconds))"
      )
      return lines
    }
    if let divergence = firstDivergence {
      lines += Self.lines(of: divergence)
    } else {
      lines.append("the runs began in the same order")
    }
    for (name, only) in [("A", onlyInA), ("B", onlyInB)] where !only.isEmpty {
      lines.append("only in \(name): \(only.count) action(s)")
      for action in only.prefix(shown) {
        lines.append(
          "  \(Self.describe(action)), scheduled at \(TimeText.seconds(action.scheduledNanoseconds))"
        )
      }
      if only.count > shown { lines.append("  … \(only.count - shown) more") }
    }
    if !timing.isEmpty {
      lines.append(
        "timing: \(timing.count) difference(s) beyond \(TimeText.duration(toleranceNanoseconds))")
      for difference in timing.prefix(shown) {
        lines.append("  \(Self.describe(difference.action)): \(Self.describe(difference))")
      }
      if timing.count > shown { lines.append("  … \(timing.count - shown) more") }
    }
    return lines
  }

  /// `first divergence at run 5 in begin order:` and what each trace ran there.
  private static func lines(of divergence: Divergence) -> [String] {
    [
      DivergenceText.heading(position: divergence.position),
      "  A "
        + DivergenceText.ran(
          divergence.a.map { (describe($0.action), $0.run, $0.beganNanoseconds) }),
      "  B "
        + DivergenceText.ran(
          divergence.b.map { (describe($0.action), $0.run, $0.beganNanoseconds) }),
    ]
  }

  /// `#12 net (Loader.swift:40 load()) occurrence 3`: id, scheduler, call site, and which of the
  /// actions its function scheduled on the scheduler.
  private static func describe(_ action: Action) -> String {
    ActionKey(scheduler: action.scheduler, site: action.site, occurrence: action.occurrence)
      .text(id: action.action)
  }

  private static func describe(_ difference: Timing) -> String {
    let delta = difference.b.subtracting(saturating: difference.a)
    let signed = (delta < 0 ? "-" : "+") + TimeText.duration(Int64(clamping: delta.magnitude))
    let run = difference.run ?? 0
    switch difference.aspect {
    case "scheduled":
      return
        "scheduled at \(TimeText.seconds(difference.a)) in A, \(TimeText.seconds(difference.b)) in B (\(signed))"
    case "began":
      return
        "run \(run) began at \(TimeText.seconds(difference.a)) in A, \(TimeText.seconds(difference.b)) in B (\(signed))"
    case "duration":
      return
        "run \(run) took \(TimeText.duration(difference.a)) in A, \(TimeText.duration(difference.b)) in B (\(signed))"
    default:
      return "ran \(difference.a) time(s) in A, \(difference.b) in B"
    }
  }
}
