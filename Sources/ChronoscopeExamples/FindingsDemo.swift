import ChronoscopeScheduling
import ChronoscopeSchedulingTesting

/// A small app that gets timing wrong in every way `chronoscope check` looks for, for recordings
/// and tests: a main queue blocked long enough to hang (with work due behind it), timers made late
/// and drifting by it, a timer never cancelled, work left on a queue that never frees up, a cancel
/// of work that already ran, a `sync` onto the queue it runs on, and a fan-out of blocking work
/// over many serial queues at once (on Dispatch each serial queue may take a thread of its own, so
/// blocking work there multiplies threads: a thread explosion).
///
/// ```swift
/// let demo = FindingsDemo(factory: DispatchSchedulerFactory()) { Thread.sleep(forTimeInterval: $0.seconds) }
/// demo.run()          // returns once the demonstrations are under way
/// ```
package final class FindingsDemo: Sendable {
  private let factory: any SchedulerFactory
  private let busy: @Sendable (Duration) -> Void
  private let fanOut: Int
  /// The timer it starts and never cancels: keep the demo alive past the recording.
  private let leaked = Locked<SchedulerTask?>(nil)

  /// - Parameters:
  ///   - factory: Where the work runs.
  ///   - fanOut: How many serial queues run blocking work at once. Above four times the cores,
  ///     live Dispatch runs more threads than `chronoscope check` allows by default.
  ///   - busy: Work that takes `duration` (a sleep on live schedulers).
  package init(
    factory: any SchedulerFactory, fanOut: Int = 10,
    busy: @escaping @Sendable (Duration) -> Void
  ) {
    self.factory = factory
    self.fanOut = fanOut
    self.busy = busy
  }

  /// Runs the demonstrations to their end on a clock the caller moves: `advance` moves it by a
  /// step (10 ms of virtual time, say) and is called until `finished` has run, at most 1,000
  /// times. `finished` runs inside the last demonstration, as with ``run(finished:)``.
  package func runToEnd(advance: () -> Void, finished: @escaping @Sendable () -> Void) {
    let done = Locked(false)
    run {
      finished()
      done.withLock { $0 = true }
    }
    for _ in 0..<1_000 where !done.value { advance() }
  }

  /// Starts every demonstration. `finished` runs inside the last one — a long run on the
  /// `demo.stuck` queue with work due behind it — so a recorder closed there leaves that work
  /// pending for good: lost.
  package func run(finished: @escaping @Sendable () -> Void) {
    let main = factory.main
    let database = factory.makeSerial(label: "demo.database")
    let stuck = factory.makeSerial(label: "demo.stuck")
    let busy = self.busy
    // A leaked timer: started, never cancelled.
    leaked.withLock { $0 = database.every(.milliseconds(30)) {} }
    // A timer on main that the hang below makes late and pushes more than an interval behind.
    let ticker = main.every(.milliseconds(20)) {}
    // A cancel of work that already ran.
    let done = database.async {}
    database.sync {}
    done.cancel()
    // A sync onto the queue it runs on: it runs inline instead of deadlocking.
    database.async { database.sync {} }
    // A main-thread hang, with work due behind it.
    main.after(.milliseconds(5)) {}
    main.async { busy(.milliseconds(300)) }
    main.after(.milliseconds(600)) { ticker.cancel() }
    // A fan-out of blocking work, one serial queue per fetch, after the hang is over.
    let fetchers = (0..<fanOut).map { factory.makeSerial(label: "demo.fetch.\($0)") }
    main.after(.milliseconds(650)) {
      for fetcher in fetchers { fetcher.async { busy(.milliseconds(1)) } }
    }
    // A queue that never frees up before the end: the work due during its long run is lost.
    stuck.after(.milliseconds(800)) {
      busy(.milliseconds(400))
      finished()
    }
    stuck.after(.milliseconds(900)) {}
  }
}
