import ChronoscopeScheduling
import ChronoscopeVirtualTime

/// Runs the code under test on virtual time in the order a trace recorded: a test that fails
/// the same way every time from a timing bug seen once.
///
/// Hand the factory to the code as any ``SchedulerFactory``, start the code, then call
/// ``run()``. Each action the code schedules is matched to the trace's by what `chronoscope
/// diff` matches: its scheduler's label, the function that scheduled it (file and name) and its
/// occurrence — the second action `search(_:)` schedules on `search.network` is the second one
/// it scheduled there in the trace. Each recorded run then runs at its recorded time from the
/// trace's first event (virtual time is recorded time), and runs recorded at one instant run in
/// the recorded order, whatever delays the code asks for.
///
/// ```swift
/// let replay = try ReplayingSchedulerFactory(replaying: "Recordings/stale-response.trace")
/// let search = StaleResponseSearch(factory: replay)
/// search.type(["a", "b"], gap: .milliseconds(3))
/// try replay.run()                            // throws at the first divergence
/// XCTAssertEqual(search.shownQuery, "b")      // fails as the recording did: "a"
/// ```
///
/// The replay stops with ``ReplayError/diverged(_:)`` at the first place the code differs from
/// the recording — it schedules an action the trace does not have, or the trace ran next an
/// action the code did not schedule or cancelled — with a report worded as `diff`'s
/// (``ReplayDivergence``). Allow work the trace does not have with
/// ``ReplayOptions/allowsExtraWork``: it then runs at the time the code asks for, between the
/// recorded runs.
///
/// Edge cases:
/// - Source lines are not compared: an edit that moves lines changes nothing (as in `diff`).
/// - A `sync` runs when the code makes it (its caller waits), not at its recorded time.
/// - A repeating action runs as many times as the trace ran it; the replay ends after the last
///   recorded run, with the clock at its time: work the code left queued then does not run.
/// - A recorded time before the clock's (times out of order in a hostile trace) runs at once;
///   times near `Int64.max` saturate.
/// - An action the code schedules from inside a recorded run is first matched among that
///   run's own recorded children: two runs on two threads that began in one order and scheduled
///   in the other (one was preempted in between) keep their children's turns.
/// - Drive the replay from one thread, as a ``VirtualClock``; the code may schedule from any.
public final class ReplayingSchedulerFactory: SchedulerFactory {
  /// The virtual clock the code runs on; it starts at zero, the trace's first event.
  public let clock: VirtualClock
  private let core: ReplayCore
  private let virtual: VirtualSchedulerFactory
  private let replayingMain: ReplayingScheduler

  /// A replay of `schedule` on a new virtual clock.
  ///
  /// - Parameters:
  ///   - schedule: The recorded order, read once (``RecordedSchedule/init(contentsOf:)``).
  ///   - options: Whether the code may schedule work the trace does not have.
  public init(replaying schedule: RecordedSchedule, options: ReplayOptions = ReplayOptions()) {
    clock = VirtualClock()
    virtual = VirtualSchedulerFactory(clock: clock)
    core = ReplayCore(schedule: schedule, options: options, clock: clock)
    replayingMain = ReplayingScheduler(wrapping: virtual.main, core: core)
  }

  /// A replay of the trace at `path`.
  ///
  /// - Throws: ``ReplayError/unreadable(path:reason:diagnostics:)`` with the reader's errors.
  public convenience init(replaying path: String, options: ReplayOptions = ReplayOptions())
    throws(ReplayError)
  {
    self.init(replaying: try RecordedSchedule(contentsOf: path), options: options)
  }

  public func makeSerial(label: String) -> any Scheduler {
    replaying(virtual.makeSerial(label: label))
  }

  public func makeConcurrent(label: String) -> any Scheduler {
    replaying(virtual.makeConcurrent(label: label))
  }

  /// The clock's main context, labelled `main` as recordings label it.
  public var main: any Scheduler { replayingMain }

  /// Runs the recorded runs in order, each at its recorded time, with the work they schedule.
  ///
  /// - Throws: ``ReplayError/diverged(_:)`` at the first divergence (what ran before it has
  ///   run), or ``ReplayError/extraWorkLimitExceeded(limit:position:)``.
  /// - Complexity: O(r log n) for r recorded runs and n pending actions.
  public func run() throws(ReplayError) {
    try core.run()
  }

  private func replaying(_ scheduler: any Scheduler) -> any Scheduler {
    ReplayingScheduler(wrapping: scheduler, core: core)
  }
}

extension SchedulerFactory where Self == ReplayingSchedulerFactory {
  /// A replay of `schedule`: `StaleResponseSearch(factory: .replaying(schedule))`.
  public static func replaying(
    _ schedule: RecordedSchedule, options: ReplayOptions = ReplayOptions()
  ) -> ReplayingSchedulerFactory {
    ReplayingSchedulerFactory(replaying: schedule, options: options)
  }
}
