import ChronoscopeRecording
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeVirtualTime
import Foundation
import Synchronization

/// Records a test's work on virtual time into memory, and writes it to a file when the test
/// fails: the trace of a failing test, one command away from the inspector.
///
/// The `.virtualTime` trait and ``VirtualTimeTestCase`` make one per test; other test drivers
/// (an exploration of orders, a replay) make their own for each run and call ``keep(reason:)``
/// for the run that failed.
///
/// ```swift
/// let clock = VirtualClock()
/// let trace = TestTraceRecorder(clock: clock, testName: "Search.debounce")
/// let model = SearchModel(factory: trace.factory)   // recorded, on `clock`'s time
/// // … the run fails:
/// let kept = trace.keep(reason: "two searches went out")
/// print(kept.message)   // the file, `chronoscope view FILE --at e…`, and what ran there
/// ```
///
/// Recording costs what a ``FlightRecorder``'s does: events go to per-thread buffers and a
/// background thread encodes them into memory (the last 64 MiB are kept). Times in the trace
/// are the virtual clock's: a clock at 5 s records 5 s.
///
/// Where the files go, and which tests keep one, is read from the environment
/// (``TestTraceSettings``): by default a failing test's trace goes to
/// `$TMPDIR/chronoscope-test-traces/<test name>.trace`, and a passing test writes nothing.
///
/// A trace that cannot be written (an unwritable folder, a full disk) is not a second failure:
/// ``KeptTrace/message`` says why, in the failure it was kept for.
public final class TestTraceRecorder: Sendable {
  /// The recorder of the test that is running, when the `.virtualTime` trait runs it.
  @TaskLocal public static var current: TestTraceRecorder?

  /// The test's name, as the file is named after it (sanitized).
  public let testName: String
  /// The clock whose time the trace records.
  public let virtualClock: VirtualClock
  /// The recorder to hand to recording decorators (``RecordingScheduler``, ``RecordingClock``).
  public let recorder: TraceRecorder
  /// Schedulers on ``virtualClock``, recorded: what the code under test should be built with.
  public let factory: RecordingSchedulerFactory
  /// The async clock the recorder was made for, recorded (its sleeps are actions in the trace);
  /// nil when it was made for a ``VirtualClock`` alone.
  public let clock: RecordingClock<VirtualAsyncClock>?
  /// Where the trace goes, and whether a passing test keeps it.
  public let settings: TestTraceSettings

  private let flight: FlightRecorder
  /// The trace kept so far: a test keeps at most one, and says so once.
  private let kept = Mutex<KeptTrace?>(nil)

  /// Starts recording `clock`'s work for the test named `testName`.
  ///
  /// - Parameters:
  ///   - clock: The clock of the test's schedulers.
  ///   - testName: Names the file (characters other than letters, digits, `.`, `_` and `-`
  ///     become `-`).
  ///   - settings: Where the trace goes; from the process's environment by default.
  public convenience init(
    clock: VirtualClock, testName: String,
    settings: TestTraceSettings = .fromEnvironment
  ) {
    self.init(clock: clock, asyncClock: nil, testName: testName, settings: settings)
  }

  /// Starts recording `clock`'s work — sleeps through ``clock``, schedulers of ``factory`` —
  /// for the test named `testName`.
  public convenience init(
    clock: VirtualAsyncClock, testName: String,
    settings: TestTraceSettings = .fromEnvironment
  ) {
    self.init(clock: clock.clock, asyncClock: clock, testName: testName, settings: settings)
  }

  /// Starts recording the work of `factory`'s schedulers, which run on `clock` (a replaying
  /// factory's, say, whose order comes from a trace), for the test named `testName`.
  public convenience init(
    factory: any SchedulerFactory, clock: VirtualClock, testName: String,
    settings: TestTraceSettings = .fromEnvironment
  ) {
    self.init(
      clock: clock, asyncClock: nil, base: factory, testName: testName, settings: settings)
  }

  private init(
    clock: VirtualClock, asyncClock: VirtualAsyncClock?, base: (any SchedulerFactory)? = nil,
    testName: String, settings: TestTraceSettings
  ) {
    self.testName = testName
    virtualClock = clock
    self.settings = settings
    let flight = FlightRecorder(
      keeping: FlightRecorderWindow(keeping: .seconds(1 << 32), maxBytes: 64 << 20),
      clock: .virtual { clock.now }, metadata: ["test": testName])
    self.flight = flight
    recorder = flight.recorder
    factory = RecordingSchedulerFactory(
      wrapping: base ?? VirtualSchedulerFactory(clock: clock), recorder: flight.recorder)
    self.clock = asyncClock.map {
      RecordingClock(wrapping: $0, recorder: flight.recorder, label: "clock")
    }
  }

  deinit { flight.close() }

  /// Writes the trace up to this instant of the virtual clock — the failing instant — to its
  /// file, with the failure's `reason` in the trace as a mark. Later calls return the first
  /// result, written or not, without writing again.
  ///
  /// - Returns: Where the trace went and how to look at it, or why it could not be kept.
  @discardableResult
  public func keep(reason: String) -> KeptTrace {
    kept.withLock { kept in
      if let kept { return kept }
      let trace = write(reason: reason)
      kept = trace
      return trace
    }
  }

  /// The trace kept so far, if any.
  public var keptTrace: KeptTrace? { kept.withLock { $0 } }

  /// Ends the recording at the end of a test: keeps the trace of a passing test when the
  /// settings keep every test's, then lets the memory go.
  ///
  /// - Returns: The trace written now, if any (not one kept before).
  @discardableResult
  public func finish() -> KeptTrace? {
    defer { flight.close() }
    guard settings.keepsPassingTests, keptTrace == nil else { return nil }
    return keep(reason: "the test passed (\(TestTraceSettings.keepVariable)=all)")
  }

  private func write(reason: String) -> KeptTrace {
    let at = max(virtualClock.now.clampedNanoseconds, 0)
    let path: String
    do {
      path = try settings.path(for: testName)
      recorder.mark("failure", ["reason": reason])
      try flight.dump(to: path)
    } catch {
      return KeptTrace(path: nil, at: at, event: nil, state: nil, problem: "\(error)")
    }
    guard let replay = ReplayEngine.read(path: path).replay else {
      return KeptTrace(path: path, at: at, event: nil, state: nil, problem: nil)
    }
    let event = Self.lastWork(in: replay)
    return KeptTrace(
      path: path, at: at, event: event,
      state: Self.state(of: replay, atEvent: event, orTime: at),
      problem: nil)
  }

  /// The event (from 1) at which the last piece of work before the failure began: the trace's
  /// last `begin`, as the trace ends where the failure was kept (a check inside work that is
  /// still running finds that work). Not the last before the `failure` mark: events of one
  /// instant recorded on several threads are merged in no order of their own, and the mark,
  /// recorded last, can come before the work it follows (seen under `-O`). Nil when no work
  /// began.
  ///
  /// - Complexity: O(events after the last begin).
  private static func lastWork(in replay: ReplayEngine) -> Int? {
    replay.eventIndices.last { replay.event($0).kind == .begin }?.number
  }

  /// What ran and what waited at event `event` (from 1), or at `time` without one, read from the
  /// replay model: the instant and event, the work that began there, what was running and what
  /// was due next (a few of each, with how many). `chronoscope show` draws the same instant as
  /// the inspector's frame.
  ///
  /// - Complexity: O(events from the nearest keyframe; p log 3 for p pending actions).
  private static func state(of replay: ReplayEngine, atEvent event: Int?, orTime time: Int64)
    -> String
  {
    var replay = replay
    if let event { replay.seek(to: event) } else { replay.seek(toTime: min(time, replay.end)) }
    func describe(_ action: ActionIndex) -> String {
      let info = replay.action(action)
      let scheduler =
        replay.scheduler(info.scheduler)?.label ?? "scheduler \(info.scheduler.rawValue)"
      let site = replay.callSite(of: action).map { " from \($0.text)" }
      return "#\(info.id.rawValue) on \(scheduler)\(site ?? "")"
    }
    func list(_ actions: [ActionIndex], of total: Int) -> String {
      let more = total > actions.count ? "; \(total - actions.count) more" : ""
      return actions.map(describe).joined(separator: "; ") + more
    }
    var head =
      "at \(TimeText.seconds(replay.now)), event \(replay.position) of \(replay.eventCount)"
    if let event = replay.currentEvent, event.kind == .begin, let action = event.action {
      head += ": \(describe(action)) began"
    }
    var lines = [head]
    let running = replay.running()
    if !running.isEmpty {
      lines.append(
        "  running (\(running.count)): \(list(Array(running.prefix(3)), of: running.count))")
    }
    let pendingCount = replay.pendingCount()
    if pendingCount > 0 {
      let next = replay.pending(first: 3)
      let due = next.first.map { " (next due at \(TimeText.seconds(replay.action($0).due)))" } ?? ""
      lines.append("  pending (\(pendingCount))\(due): \(list(next, of: pendingCount))")
    }
    return lines.joined(separator: "\n")
  }
}
