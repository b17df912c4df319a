import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay

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
  /// The position in the begin order, from 1.
  public var position: Int
  /// What the recording ran there; nil when it had no more runs.
  public var recorded: Run?
  /// What the code would have run there instead, with the id of its own run; nil when it had
  /// nothing more to run.
  public var replayed: Run?

  /// An action as `chronoscope diff` names it across runs: its scheduler, call site and occurrence.
  public struct Action: Sendable, Equatable {
    /// Its id in its own run: the trace's, or, for the code, its number in scheduling order.
    public var id: Int
    /// The label of the scheduler it was scheduled on.
    public var scheduler: String
    /// `file:line function`, or empty when the trace has no call site for it.
    public var site: String
    /// Which of the actions its function scheduled on the scheduler it is (from 1).
    public var occurrence: Int
    /// When it was scheduled, from its run's origin (ns).
    public var scheduledNanoseconds: Int64
  }

  /// One run of an action.
  public struct Run: Sendable, Equatable {
    /// The action that ran.
    public var action: Action
    /// The run's number (from 1).
    public var run: Int
    /// When it began (or, for the code, was due), from its run's origin (ns).
    public var beganNanoseconds: Int64
  }

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
    lines += [
      DivergenceText.heading(position: position),
      "  A " + DivergenceText.ran(recorded.map { ($0.text, $0.run, $0.beganNanoseconds) }),
      "  " + replayedText,
    ]
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
    let action = replayed.text
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

extension ReplayDivergence.Run {
  init(_ run: RunReference) {
    let action = run.action
    self.init(
      action: ReplayDivergence.Action(
        id: Int(action.id.rawValue), scheduler: action.key.scheduler, site: action.key.site,
        occurrence: action.key.occurrence, scheduledNanoseconds: action.scheduledAt),
      run: run.run, beganNanoseconds: run.began)
  }

  /// `#3 search.network (ChronoscopeExamples/StaleResponseSearch.swift:71 search(_:)) occurrence 1`.
  fileprivate var text: String {
    ActionKey(scheduler: action.scheduler, site: action.site, occurrence: action.occurrence)
      .text(id: action.id)
  }
}
