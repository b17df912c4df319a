import ChronoscopeCore
import ChronoscopeReplay
import ChronoscopeSharing

/// Where the code under test first differs from the recording it replays, worded as
/// `chronoscope diff` words the first divergence of two traces: A is the recording, B the code
/// replayed.
///
/// The code's side is what it would have run there: the replay stops before running it.
///
/// ```
/// replay of stale-response.trace stopped: the trace ran work the code did not schedule or cancelled
/// A: stale-response.trace (times from its first event, at 0.000412s)
/// B: the code under test, on virtual time
/// first divergence at run 5 in begin order:
///   A ran #3 search.network (ChronoscopeExamples/StaleResponseSearch.swift:71 search(_:)) occurrence 1, run 1, at 0.023105s
///   B ran nothing more
/// ```
public struct ReplayDivergence: Sendable, Equatable, CustomStringConvertible {
  /// What the code did that the trace did not.
  public enum Cause: Sendable, Equatable {
    /// The code scheduled an action the trace does not have (``ReplayDivergence/replayed``).
    case unrecordedWork
    /// The trace ran an action next that the code had not scheduled, or had cancelled
    /// (``ReplayDivergence/recorded``).
    case missingWork
  }

  /// The trace's name.
  public var trace: String
  /// Where the trace's times count from, in its own time (ns).
  public var originNanoseconds: Int64
  /// What the code did.
  public var cause: Cause
  /// The position in the begin order, from 1, and what each side ran there: the recording
  /// (`a`, nil when it had no more runs) and the code (`b`, nil when it had nothing more to
  /// run), with the ids of their own runs.
  public var divergence: DiffReport.Divergence

  /// The position in the begin order, from 1.
  public var position: Int { divergence.position }
  /// What the recording ran there.
  public var recorded: DiffReport.Run? { divergence.a }
  /// What the code ran there instead.
  public var replayed: DiffReport.Run? { divergence.b }

  /// The report's lines, as ``description`` joins them; text from the trace is as it is.
  public var lines: [String] {
    let what =
      switch cause {
      case .unrecordedWork: "the code scheduled work the trace does not have"
      case .missingWork: "the trace ran work the code did not schedule or cancelled"
      }
    var lines = [
      "replay of \(trace) stopped: \(what)",
      "A: \(trace) (times from its first event, at \(TimeText.seconds(originNanoseconds)))",
      "B: the code under test, on virtual time",
    ]
    // `diff`'s wording for the recording; the code's side did not run what it names.
    lines += DiffReport.lines(of: divergence).dropLast()
    lines.append("  " + replayedText)
    if cause == .unrecordedWork {
      lines.append(
        "ReplayOptions(allowsExtraWork: true) lets work the trace does not have run, at the time the code asks for"
      )
    }
    return lines
  }

  /// What the code would have run at the divergence — the replay stopped before running it.
  private var replayedText: String {
    guard let replayed else { return "B ran nothing more" }
    let action = DiffReport.describe(replayed.action)
    let due = "due at \(TimeText.seconds(replayed.beganNanoseconds))"
    return switch cause {
    case .unrecordedWork: "B scheduled \(action), \(due): not run, the trace does not have it"
    case .missingWork: "B's next was \(action), run \(replayed.run), \(due): not run"
    }
  }

  /// The report, one line each, sanitized for a terminal.
  public var description: String {
    lines.map { TextWidth.sanitized($0) }.joined(separator: "\n")
  }
}
