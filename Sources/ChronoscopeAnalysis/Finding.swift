@_spi(Benchmarks) import ChronoscopeReplay

/// Something in a trace that points at a bug: lost work, a late or drifting timer, a blocked
/// scheduler, a hang, a leaked timer, a cancel that did nothing. Findings name the actions, scheduler and
/// instants involved, with a one-line explanation.
@_spi(Benchmarks) public struct Finding: Sendable, Equatable {
  /// What was found. The raw value is the name `chronoscope check` prints.
  package enum Kind: String, Sendable, CaseIterable, Comparable {
    /// Scheduled, never began and never cancelled.
    case lostWork = "lost-work"
    /// Began more than the late threshold after it was due.
    case late
    /// A long run on a serial or main scheduler kept other work on it waiting past its due time.
    case headOfLineBlocking = "head-of-line-blocking"
    /// A run on the main scheduler longer than the hang threshold.
    case mainThreadHang = "main-thread-hang"
    /// A repeating action still live when a closed trace ended.
    case leakedTimer = "leaked-timer"
    /// A repeating action whose runs drifted more than one interval behind its rhythm.
    case timerFallingBehind = "timer-falling-behind"
    /// A cancel of an action that had already finished.
    case noOpCancel = "no-op-cancel"
    /// A `sync` onto a scheduler its thread already held: it ran inline instead of deadlocking.
    case inlineSync = "inline-sync"
    /// More threads running the trace's work at once than the threshold.
    case threadExplosion = "thread-explosion"

    package static func < (lhs: Kind, rhs: Kind) -> Bool {
      allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
  }

  /// How much it matters. The inspector counts warnings and errors, and `chronoscope check`
  /// fails on a finding as severe as `--fail-on` (by default, a warning).
  @_spi(Benchmarks) public enum Severity: String, Sendable, Comparable, CaseIterable {
    /// True but not wrong: a cancel of a timer that already fired (every debounce and timeout
    /// does one), work pending where a recording, a slice or a window ends.
    case info
    /// Looks wrong: late or lost work, a blocked scheduler, a leaked timer…
    case warning
    /// Wrong for the user: a main-thread hang.
    case error

    @_spi(Benchmarks) public static func < (lhs: Severity, rhs: Severity) -> Bool {
      allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
  }

  /// What was found.
  package var kind: Kind
  /// How much it matters.
  @_spi(Benchmarks) public var severity: Severity
  /// The instant it is reported at (trace time, ns): where the inspector marks it.
  @_spi(Benchmarks) public var time: Int64
  /// The action it is about (the blocker, the late action, the leaked timer…); nil for a wait
  /// of the main thread outside any action (see ``callSite``).
  package var action: ActionIndex?
  /// Other actions involved (the waiters behind a blocker), in order.
  package var related: [ActionIndex]
  /// The scheduler the action was scheduled on.
  @_spi(Benchmarks) public var scheduler: SchedulerID
  /// How long the problem lasted or how far off it was, in ns (lateness, run length, wait), if
  /// one figure says it.
  package var duration: Int64?
  /// One line saying what happened, with the numbers that show it.
  package var message: String
  /// Where a finding without an action happened (a wait's call site), if the trace says.
  package var callSite: UInt32? = nil
}
