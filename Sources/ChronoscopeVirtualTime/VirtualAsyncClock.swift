import CChronoscopeSlots
import ChronoscopeCore
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import Foundation
import Logging
import Synchronization

/// A `Clock` for async/await code whose time moves only when a test moves it — on the same
/// timeline as a ``VirtualClock`` and its schedulers — and whose moves return only once the code
/// they woke has run as far as it can.
///
/// ```swift
/// func testTheRequestTimesOutAtExactlyFiveSeconds() throws {
///   let clock = VirtualAsyncClock()
///   let fetch = clock.task { try await withTimeout(.seconds(5), clock: clock) { try await api.load() } }
///   clock.advance(by: .seconds(5) - .nanoseconds(1))
///   XCTAssertNil(fetch.result)                          // still waiting, a nanosecond before
///   clock.advance(by: .nanoseconds(1))
///   XCTAssertThrowsError(try fetch.result?.get())       // timed out, exactly at 5 s
///   try clock.checkNoPendingWork()
/// }
/// ```
///
/// The rules, each checked by a test in `Tests/ChronoscopeVirtualTimeTests` (docs/AsyncVirtualTime.md
/// says which test hosts and isolations each holds in):
/// - **The clock runs the code it started.** Tasks started by ``task(name:fileID:line:_:)``, by
///   code running on the clock, or by the test that made or moves it, are the clock's: each job
///   the runtime would hand its thread pool for them — child tasks, unstructured `Task {}`s,
///   default actors, resumed continuations — is queued for the thread that moves the clock, and
///   run there. Other code, other tests' clocks among it, is left alone, so tests can run in
///   parallel.
/// - **Moves run everything they make runnable.** A move returns once no job of the clock's is
///   left and nothing is due now. The `async` moves (`await clock.advance(by:)`) also let the
///   main actor run what it has, step by step, so main-actor code under test runs too, wherever
///   the test runs — until two turns of the main queue in a row change nothing on the clock (a
///   chain of longer main-actor hops that touch nothing of the clock's may still be under way).
///   The synchronous moves run main-actor work only from the main thread outside a main-queue
///   job (an XCTest test method).
/// - **Sleepers wake in (deadline, order of sleeping)**, interleaved with scheduler work on the
///   shared ``VirtualClock`` by the same rule; after each wakes, the code it resumed runs until
///   it suspends again or finishes, before the next sleeper or action. A sleep due now — even
///   `sleep(for: .zero)` — wakes at the next move, not before.
/// - **Cancellation**: a cancelled task's sleep throws `CancellationError` at the current
///   instant and leaves nothing pending. ``VirtualTask/cancel()`` cancels and runs the task's
///   reaction, from any caller. A cancelled task needs no move: cancelled while nobody moves the
///   clock, its jobs run on the runtime's threads, and the next move waits for them — a test can
///   cancel a plain `Task {}` and await its value.
/// - **Leftovers**: ``checkNoPendingWork(fileID:line:function:)`` reports sleepers, scheduler
///   work and unfinished tasks, and cancels the tasks so that none outlives the test. A clock
///   left waiting with nobody moving it for ``idleLimit`` says so on standard error, naming the
///   clock, what waits and where, and ends the wait: sleeps throw, tasks are cancelled.
/// - Code inside a job that moves the clock only moves it; the outer move runs what that made
///   runnable.
public final class VirtualAsyncClock: Clock, Sendable {
  /// A point on the clock: its offset from the clock's origin, as ``VirtualClock/now`` reads.
  public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// How far after the clock's start it is.
    public var offset: Duration

    /// The instant `offset` after the clock's start.
    public init(offset: Duration) { self.offset = offset }

    public func advanced(by duration: Duration) -> Instant {
      // SchedulerInstant's `+` saturates at the ends of the range instead of wrapping.
      let later = SchedulerInstant(nanoseconds: offset.clampedNanoseconds) + duration
      return Instant(offset: .nanoseconds(later.nanoseconds))
    }

    public func duration(to other: Instant) -> Duration { other.offset - offset }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

    public var description: String { "\(offset)" }
  }

  /// The clock whose scope the running code is in: a test's under the Swift Testing trait
  /// `.virtualTime` (module `ChronoscopeVirtualTimeTesting`), ``withCurrent(_:)``'s, a clock task's.
  public static var current: VirtualAsyncClock? { scope }

  @TaskLocal static var scope: VirtualAsyncClock?

  /// Runs `body` in this clock's scope: ``current`` is this clock, and every task `body` starts
  /// — a `Task {}` that inherits the main actor included, whose first job the clock cannot see —
  /// is the clock's. The calling task itself runs where it would. What the `.virtualTime` trait
  /// does for a Swift Testing test; in an XCTest `async` method, wrap the test's body.
  public func withCurrent<R>(_ body: () async throws -> R) async rethrows -> R {
    enterScope()
    defer { changeActivity { $0.scopes -= 1 } }
    return try await Self.$scope.withValue(self) { try await body() }
  }

  /// ``withCurrent(_:)`` for synchronous code.
  public func withCurrent<R>(_ body: () throws -> R) rethrows -> R {
    enterScope()
    defer { changeActivity { $0.scopes -= 1 } }
    return try Self.$scope.withValue(self) { try body() }
  }

  /// A scope keeps the clock routing (the test may pause between moves as long as it likes).
  private func enterScope() {
    changeActivity { $0.scopes += 1 }
    GlobalJobRouting.adoptCreatorIfUnowned(GlobalJobRouting.currentTaskID(), for: router)
  }

  /// The timeline this clock shares with virtual schedulers.
  public let clock: VirtualClock
  /// How long code may wait on the clock with nobody moving it before the clock says so and ends
  /// the wait (see the type's rules).
  public let idleLimit: Duration
  /// Where the clock was made: messages name it.
  public let createdAt: CallSite
  /// Where the clock says what it cannot throw (see ``init(clock:idleLimit:logger:fileID:line:function:)``).
  let logger: Logger
  let router: JobRouter
  private let sleeps: VirtualScheduler
  private let activity = Mutex<Activity>(Activity())

  /// What keeps the clock active, and what it waits on.
  private struct Activity {
    /// Unfinished tasks started by `task`, by id: how to cancel each, and what to call it.
    var tasks: [ObjectIdentifier: StartedTask] = [:]
    /// Sleeps under way, by id.
    var sleepers: [ObjectIdentifier: Sleeper] = [:]
    /// Sleeps ever started and tasks ever finished: with the router's pushes, what tells a drive
    /// that letting the main actor run made progress.
    var sleepsStarted = 0
    var tasksFinished = 0
    var drives = 0
    /// `withCurrent` scopes under way: the clock stays active through them.
    var scopes = 0
    /// When code last started waiting with nobody moving the clock, or a move ended.
    var idleSince: ContinuousClock.Instant = realNow()
    /// Whether the watchdog already ended a wait since the last move (it says so once).
    var reportedIdle = false
    /// Whether a move already reported that another library's hook replaced the clock's.
    var reportedReplacedHook = false

    var isIdle: Bool { drives == 0 && tasks.isEmpty && sleepers.isEmpty }
    /// Whether the clock may stop routing: idle, and in no scope.
    var isQuiet: Bool { isIdle && scopes == 0 }
  }

  struct StartedTask {
    let title: String
    let cancel: @Sendable () -> Void
  }

  /// A clock on `clock`'s timeline (a new one by default).
  ///
  /// - Parameters:
  ///   - idleLimit: How long code may wait on the clock with nobody moving it; then the clock
  ///     reports it and ends the wait. Ten seconds by default: far above a pause between two
  ///     moves, even when parallel tests keep the runtime's threads busy (two seconds was reached
  ///     on two cores with twenty tests running scenarios at once), and far below a test host's
  ///     time limits (minutes).
  ///   - logger: Where the clock says that nobody moved it for `idleLimit` (an error, once), as
  ///     the sleeps it ends throw; the app's logging, `Logger(label: "chronoscope")`, by default.
  public init(
    clock: VirtualClock = VirtualClock(), idleLimit: Duration = .seconds(10),
    logger: Logger = Logger(label: "chronoscope"),
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
  ) {
    self.clock = clock
    self.idleLimit = idleLimit
    self.logger = logger
    createdAt = CallSite(fileID: fileID, line: line, function: function)
    sleeps = VirtualScheduler(label: "Task.sleep", kind: .concurrent, clock: clock)
    router = GlobalJobRouting.register()
    let router = self.router
    if clock.isExploring {
      router.explore { [weak clock] chains in clock?.chooseJob(among: chains) ?? 0 }
    }
    clock.setAfterEachAction { router.runUntilIdle() }
    GlobalJobRouting.watch(self)
    GlobalJobRouting.adoptCreatorIfUnowned(GlobalJobRouting.currentTaskID(), for: router)
  }

  deinit {
    clock.setAfterEachAction(nil)
    GlobalJobRouting.unregister(router)
  }

  public var now: Instant { Instant(offset: clock.now) }

  public var minimumResolution: Duration { .nanoseconds(1) }

  /// Suspends until the clock reaches `deadline`: until a test moves it there. A deadline now or
  /// past wakes at the next move (``advance(maxSteps:fileID:line:)`` does it without moving time).
  ///
  /// A pending sleep is listed at the line that started the task it is in
  /// (``task(name:fileID:line:_:)``); call ``sleep(for:tolerance:fileID:line:function:)`` on the
  /// clock itself to list it at its own line.
  ///
  /// - Throws: `CancellationError` when the task is cancelled, at once;
  ///   ``VirtualTimeError/notMoved(clock:waiting:idleFor:)`` when nobody moves the clock for
  ///   ``idleLimit``.
  public nonisolated(nonsending) func sleep(
    until deadline: Instant, tolerance: Duration? = nil
  ) async throws {
    let origin = TaskOrigin.current
    try await sleep(
      until: deadline,
      callSite: origin?.site
        ?? CallSite(fileID: "Swift/Task.swift", line: 0, function: "sleep(until:)"),
      in: origin?.title)
  }

  /// Suspends for `duration`, as `Clock.sleep(for:)` does, listing a pending sleep at the
  /// caller's line — and without leaving the caller's actor: main-actor code sleeping on the clock
  /// stays on the main actor, where an `async` move lets it run. (Through `Clock`, as generic code
  /// calls it, a sleep runs off the caller's actor, as every `Clock`'s does.)
  public func sleep(
    for duration: Duration, tolerance: Duration? = nil,
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
  ) async throws {
    try await sleep(
      until: now.advanced(by: duration),
      callSite: CallSite(fileID: fileID, line: line, function: function),
      in: TaskOrigin.current?.title, isolation: isolation)
  }

  private func sleep(
    until deadline: Instant, callSite: CallSite, in task: String?,
    isolation: isolated (any Actor)? = #isolation
  ) async throws {
    try Task.checkCancellation()
    let sleeper = Sleeper(callSite: callSite, task: task, deadline: deadline.offset)
    let id = ObjectIdentifier(sleeper)
    changeActivity { $0.sleepers[id] = sleeper }
    defer { changeActivity { $0.sleepers[id] = nil } }
    // A task sleeping on the clock is the clock's code, if nothing says otherwise: a main-actor
    // task, whose jobs never pass the global hook, is known to the clock from here on, and so
    // are the tasks it starts.
    GlobalJobRouting.claimIfUnknown(GlobalJobRouting.currentTaskID(), for: router)
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation(isolation: isolation) {
        (continuation: CheckedContinuation<Void, any Error>) in
        guard sleeper.wait(continuation) else { return }
        // Under exploration, the wake-up continues the sleeping task's chain (for PCT's
        // priorities, a task is one thread of work).
        let task = GlobalJobRouting.currentTaskID()
        let wake = clock.schedule(
          { sleeper.wake() }, on: sleeps, at: deadline.offset.clampedNanoseconds,
          callSite: callSite, chain: task == 0 ? nil : Chain.job(task: task))
        sleeper.armed(wake)
        // Counted once its wake-up is on the clock: a move that sees the count change (main-actor
        // code started a sleep) finds the wake-up too.
        changeActivity { $0.sleepsStarted += 1 }
      }
    } onCancel: {
      sleeper.end(throwing: CancellationError())
    }
  }

  /// Starts `body` as a task on the clock and runs it until it first suspends (or finishes).
  /// Nothing due runs — a sleep due now waits for the next move.
  ///
  /// - Parameters:
  ///   - name: The task's name (`Task(name:)`), which a recording shows on its lane and
  ///     messages about the task use.
  ///   - fileID: With `line`: where the task was started, where a pending sleep inside it is
  ///     listed when it does not say its own line.
  /// - Returns: A handle whose ``VirtualTask/result`` is set once the body returns or throws.
  @discardableResult
  public func task<Success: Sendable>(
    name: String? = nil, fileID: StaticString = #fileID, line: UInt = #line,
    function: StaticString = #function,
    _ body: @escaping @Sendable () async throws -> Success
  ) -> VirtualTask<Success> {
    let handle = VirtualTask<Success>(clock: self)
    let id = ObjectIdentifier(handle)
    let origin = TaskOrigin(
      name: name, site: CallSite(fileID: fileID, line: line, function: function))
    changeActivity {
      $0.tasks[id] = StartedTask(title: origin.title) { [weak handle] in handle?.cancelOnly() }
    }
    let operation: @Sendable () async -> Void = {
      let outcome: Result<Success, any Error>
      do {
        outcome = .success(
          try await TaskOrigin.$current.withValue(origin) {
            try await Self.$scope.withValue(self) { try await body() }
          })
      } catch {
        outcome = .failure(error)
      }
      handle.finish(outcome)
      self.changeActivity {
        $0.tasks[id] = nil
        $0.tasksFinished += 1
      }
    }
    drive(runningDueWork: false) {
      #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
          handle.started(Task(name: name, operation: operation))
        } else {
          handle.started(Task(operation: operation))
        }
      #else
        handle.started(Task(operation: operation))
      #endif
    }
    return handle
  }

  // MARK: - Moves

  /// Runs the code that can run now — jobs queued and work due now — without moving time.
  ///
  /// - Parameters:
  ///   - maxSteps: The most sleepers and actions to run, as in
  ///     ``advance(by:maxSteps:fileID:line:)``.
  ///   - fileID: Where a failure points: the caller.
  ///   - line: Where a failure points: the caller.
  public func advance(
    maxSteps: Int = 1_000_000, fileID: StaticString = #fileID, line: UInt = #line
  ) {
    moveSynchronously(to: clock.now.clampedNanoseconds, maxSteps: maxSteps, fileID, line)
  }

  /// Moves time forward by `duration`, waking sleepers and running scheduler work as they fall
  /// due, each followed by the code it made runnable.
  ///
  /// - Parameters:
  ///   - duration: How far; a negative one is taken as zero.
  ///   - maxSteps: The most sleepers and actions to run, as
  ///     ``VirtualClock/advance(by:maxSteps:fileID:line:)`` takes: an endless chain of work hits
  ///     it, and the running test fails at `fileID`:`line` saying what is pending; time stays
  ///     where the last one ran.
  ///   - fileID: Where a failure points: the caller.
  ///   - line: Where a failure points: the caller.
  public func advance(
    by duration: Duration, maxSteps: Int = 1_000_000, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let target = clock.now.clampedNanoseconds.adding(
      saturating: max(duration.clampedNanoseconds, 0))
    moveSynchronously(to: target, maxSteps: maxSteps, fileID, line)
  }

  /// Moves time forward to `deadline`, as ``advance(by:maxSteps:fileID:line:)`` does.
  public func advance(
    to deadline: Instant, maxSteps: Int = 1_000_000, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    moveSynchronously(
      to: deadline.offset.clampedNanoseconds, maxSteps: maxSteps, fileID, line)
  }

  /// The synchronous moves: the clock's own, driven from this thread.
  private func moveSynchronously(
    to target: Int64, maxSteps: Int, _ fileID: StaticString, _ line: UInt
  ) {
    var failure: VirtualTimeError?
    drive { failure = clock.move(toNanoseconds: target, maxSteps: maxSteps) }
    clock.report(failure, fileID: fileID, line: line)
  }

  /// Moves time from sleeper to sleeper (and action to action) until nothing is pending.
  ///
  /// - Throws: ``VirtualTimeError`` as ``VirtualClock/run(maxSteps:horizon:)`` does.
  public func run(maxSteps: Int = 1_000_000, horizon: Duration? = nil) throws(VirtualTimeError) {
    var failure: VirtualTimeError?
    drive {
      do throws(VirtualTimeError) {
        try clock.run(maxSteps: maxSteps, horizon: horizon)
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }

  /// Runs the code that can run now, main-actor code included, without moving time; at most
  /// `maxSteps` sleepers and actions, as the synchronous ``advance(maxSteps:fileID:line:)``.
  public nonisolated(nonsending) func advance(
    maxSteps: Int = 1_000_000, fileID: StaticString = #fileID, line: UInt = #line
  ) async {
    await move(to: clock.now.clampedNanoseconds, maxSteps: maxSteps, fileID, line)
  }

  /// Moves time forward by `duration`, as the synchronous ``advance(by:maxSteps:fileID:line:)``
  /// does (its step limit included), and after each sleeper or action also lets the main actor
  /// run what that made runnable there: what main-actor code under test needs, whichever thread
  /// and isolation the test runs on.
  public nonisolated(nonsending) func advance(
    by duration: Duration, maxSteps: Int = 1_000_000, fileID: StaticString = #fileID,
    line: UInt = #line
  ) async {
    let target = clock.now.clampedNanoseconds.adding(
      saturating: max(duration.clampedNanoseconds, 0))
    await move(to: target, maxSteps: maxSteps, fileID, line)
  }

  /// Moves time forward to `deadline`, as ``advance(by:maxSteps:fileID:line:)`` (async) does.
  public nonisolated(nonsending) func advance(
    to deadline: Instant, maxSteps: Int = 1_000_000, fileID: StaticString = #fileID,
    line: UInt = #line
  ) async {
    await move(to: deadline.offset.clampedNanoseconds, maxSteps: maxSteps, fileID, line)
  }

  /// The async moves to `target`, failing the test at `fileID`:`line` at the step limit.
  private nonisolated(nonsending) func move(
    to target: Int64, maxSteps: Int, _ fileID: StaticString, _ line: UInt
  ) async {
    do throws(VirtualTimeError) {
      try await move(to: target, maxSteps: maxSteps, horizon: nil)
    } catch {
      clock.report(error, fileID: fileID, line: line)
    }
  }

  /// Moves time from sleeper to sleeper until nothing is pending, as ``run(maxSteps:horizon:)``
  /// does, letting the main actor run after each as ``advance(by:maxSteps:fileID:line:)`` (async)
  /// does.
  public nonisolated(nonsending) func run(maxSteps: Int = 1_000_000, horizon: Duration? = nil)
    async throws(VirtualTimeError)
  {
    try await move(to: nil, maxSteps: maxSteps, horizon: horizon?.clampedNanoseconds)
  }

  /// Fails, listing what is left, if a sleeper, scheduler work or a task started by
  /// ``task(name:fileID:line:_:)`` is unfinished; call it at a test's end. The error starts with
  /// the caller's file and line. Unfinished tasks are cancelled and run to their end before it
  /// throws, so that none is left waiting on the clock after the test.
  public func checkNoPendingWork(
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
  ) throws(VirtualTimeError) {
    let checkedAt = CallSite(fileID: fileID, line: line, function: function)
    let pending = clock.pendingActions
    let ended = endUnfinishedTasks()
    if !ended.isEmpty {
      throw .unfinishedTasks(count: ended.count, pending: pending, checkedAt: checkedAt)
    }
    try clock.checkNoPendingWork(fileID: fileID, line: line, function: function)
  }

  /// What ``checkNoPendingWork(fileID:line:function:)`` would find, without where it was
  /// called from — unfinished tasks (cancelled and run to their end here), scheduler work and
  /// sleepers — or nil: for a test host's own end-of-test check.
  package func leftoversEndingThem() -> String? {
    let pending = clock.pendingActions.map(\.description)
    let ended = endUnfinishedTasks()
    if !ended.isEmpty {
      return "\(ended.count) unfinished task(s), now cancelled: " + ended.joined(separator: "; ")
        + (pending.isEmpty ? "" : "; pending: " + pending.joined(separator: "; "))
    }
    guard !pending.isEmpty else { return nil }
    return "\(pending.count) action(s) still pending: " + pending.joined(separator: "; ")
  }

  /// Cancels the tasks started by ``task(name:fileID:line:function:_:)`` that have not finished
  /// and runs their reactions here; their titles, sorted (none when every one had finished).
  private func endUnfinishedTasks() -> [String] {
    let unfinished = activity.withLock { Array($0.tasks.values) }
    guard !unfinished.isEmpty else { return [] }
    drive(runningDueWork: false) { for task in unfinished { task.cancel() } }
    return unfinished.map(\.title).sorted()
  }

  /// What waits on the clock now: its unfinished tasks and sleeps, one line each.
  public var waiting: [String] {
    activity.withLock { activity in
      activity.tasks.values.map { "task \($0.title)" }.sorted()
        + activity.sleepers.values.map(\.description).sorted()
    }
  }

  // MARK: - Driving

  /// Runs `body` with this thread driving the clock, then what is runnable until nothing is (and,
  /// with `runningDueWork`, work due now).
  func drive(runningDueWork: Bool = true, _ body: () -> Void) {
    if let missing = GlobalJobRouting.missing { reportOnce(missing) }
    if let replaced = GlobalJobRouting.replacedHook() { reportReplacedHook(replaced) }
    let task = GlobalJobRouting.currentTaskID()
    if task != 0 { GlobalJobRouting.adoptCreatorIfUnowned(task, for: router) }
    changeActivity { $0.drives += 1 }
    router.beginDrive(waitingAtMost: idleLimit)
    GlobalJobRouting.driving(router, fromATask: task != 0) {
      router.runUntilIdle()
      body()
      if runningDueWork { settle() } else { router.runUntilIdle() }
    }
    router.endDrive()
    changeActivity {
      $0.drives -= 1
      $0.idleSince = realNow()
      $0.reportedIdle = false
    }
  }

  /// Runs jobs and work due now until neither is left; at a step limit of work due now (work
  /// that schedules itself again for now, for ever), fails the test at the clock's line.
  private func settle() {
    while true {
      router.runUntilIdle()
      guard let due = clock.nextDue, due <= clock.now else { return }
      if let error = clock.move(toNanoseconds: clock.now.clampedNanoseconds, maxSteps: 1_000_000) {
        return clock.report(error, fileID: createdAt.fileID, line: createdAt.line)
      }
    }
  }

  /// The async moves: one sleeper or action at a time up to `target` (or until nothing is
  /// pending), letting the main actor run after each until nothing more happens.
  private nonisolated(nonsending) func move(to target: Int64?, maxSteps: Int, horizon: Int64?)
    async throws(VirtualTimeError)
  {
    // A move from inside the clock's own code: its task cannot wait for the main actor here
    // (its resumption would queue behind itself), so it only moves time, as a synchronous move.
    if GlobalJobRouting.owners.owner(of: GlobalJobRouting.currentTaskID()) == router.number {
      var failure: VirtualTimeError?
      drive {
        if let target {
          failure = clock.move(toNanoseconds: target, maxSteps: maxSteps)
        } else {
          do throws(VirtualTimeError) {
            try clock.run(maxSteps: maxSteps, horizon: horizon.map { .nanoseconds($0) })
          } catch {
            failure = error
          }
        }
      }
      if let failure { throw failure }
      return
    }
    // The whole move counts as a drive: waiting for a busy main actor is not nobody moving it.
    changeActivity { $0.drives += 1 }
    router.beginDrive(waitingAtMost: idleLimit)
    GlobalJobRouting.asyncMoves.add(1, ordering: .relaxed)
    defer {
      GlobalJobRouting.asyncMoves.subtract(1, ordering: .relaxed)
      router.endDrive()
      changeActivity {
        $0.drives -= 1
        $0.idleSince = realNow()
      }
    }
    var steps = 0
    await settleWithMainActor()
    while let due = clock.nextDue?.clampedNanoseconds {
      if let target, due > target { break }
      if let horizon, due > horizon {
        throw .horizonExceeded(horizon: .nanoseconds(horizon), pending: clock.pendingActions)
      }
      if steps >= maxSteps { throw .stepLimitExceeded(steps: steps, pending: clock.pendingActions) }
      drive { clock.step() }
      steps += 1
      await settleWithMainActor()
    }
    if let target {
      // Nothing is due by `target` now: this only moves time (and runs what is due then).
      var failure: VirtualTimeError?
      drive { failure = clock.move(toNanoseconds: target, maxSteps: maxSteps) }
      if let failure { throw failure }
      await settleWithMainActor()
    }
  }

  /// Runs the clock's jobs and work due now, then lets the main queue run what it holds, until
  /// twice in a row that made no job, sleep, task end or due work of the clock's.
  private nonisolated(nonsending) func settleWithMainActor() async {
    var quiet = 0
    while quiet < 2 {
      drive {}
      let before = progress
      await MainQueue.letRun()
      // Tasks that left the main actor and that no clock knows yet run to their next suspension.
      await GlobalJobRouting.waitForStrays()
      let dueNow = clock.nextDue.map { $0 <= clock.now } ?? false
      quiet = progress == before && router.isEmpty && !dueNow ? quiet + 1 : 0
    }
  }

  private var progress: [Int] {
    let (sleeps, finished) = activity.withLock { ($0.sleepsStarted, $0.tasksFinished) }
    return [
      router.pushes.load(ordering: .relaxed), sleeps, finished,
      GlobalJobRouting.straysRun.load(ordering: .relaxed),
    ]
  }

  /// Changes what the clock waits on. While it drives or has unfinished tasks, a task started
  /// with no task running on the thread that last drove it is its (a synchronous test's `Task {}`).
  private func changeActivity(_ change: (inout Activity) -> Void) {
    activity.withLock { activity in
      // Under the lock, so that the watchdog cannot find the clock quiet and stop it meanwhile.
      GlobalJobRouting.activate(router)
      let wasIdle = activity.isIdle
      change(&activity)
      if wasIdle, !activity.isIdle {
        activity.idleSince = realNow()
        activity.reportedIdle = false
      }
      router.takesThreadStarts.store(
        activity.drives > 0 || !activity.tasks.isEmpty, ordering: .releasing)
    }
  }

  // MARK: - Nobody drives

  /// Called by the watchdog: a clock nothing waits on, and nobody used for ``idleLimit``, stops
  /// routing jobs until its next use.
  func deactivateIfQuiet() {
    activity.withLock { activity in
      guard activity.isQuiet, activity.idleSince.duration(to: .now) >= idleLimit, router.isEmpty
      else { return }
      GlobalJobRouting.deactivate(router)
    }
  }

  /// Called by the watchdog: if code has waited on the clock for ``idleLimit`` with nobody
  /// moving it, says so once through its ``logger``, then ends the wait — sleeps throw
  /// ``VirtualTimeError/notMoved(clock:waiting:idleFor:)`` and tasks started on the clock are
  /// cancelled and run to their end here.
  func endWaitIfNobodyDrives() {
    let stuck = activity.withLock { activity -> (tasks: [StartedTask], sleepers: [Sleeper])? in
      guard activity.drives == 0, !activity.reportedIdle,
        !activity.tasks.isEmpty || !activity.sleepers.isEmpty || !router.isEmpty,
        activity.idleSince.duration(to: .now) >= idleLimit
      else { return nil }
      activity.reportedIdle = true
      return (Array(activity.tasks.values), Array(activity.sleepers.values))
    }
    guard let stuck else { return }
    let waiting = self.waiting
    let error = VirtualTimeError.notMoved(clock: createdAt, waiting: waiting, idleFor: idleLimit)
    logger.error("\(error)")
    for sleeper in stuck.sleepers { sleeper.end(throwing: error) }
    drive(runningDueWork: false) { for task in stuck.tasks { task.cancel() } }
  }

  private func reportOnce(_ missing: RuntimeMissing) {
    Self.runtimeReport.withLock { reported in
      guard !reported else { return }
      reported = true
      TestFailure.report("\(missing)", file: createdAt.fileID, line: createdAt.line)
    }
  }

  private static let runtimeReport = Mutex(false)

  private func reportReplacedHook(_ replacement: String) {
    let first = activity.withLock { activity in
      defer { activity.reportedReplacedHook = true }
      return !activity.reportedReplacedHook
    }
    guard first else { return }
    TestFailure.report(
      "VirtualAsyncClock made at \(createdAt.fileID):\(createdAt.line) no longer receives its jobs: the runtime's global enqueue hook was replaced by \(replacement) while the clock was active (swift-concurrency-extras' withMainSerialExecutor sets it too). Install that one first, or do not use both in one test.",
      file: createdAt.fileID, line: createdAt.line)
  }
}

/// The real continuous clock, even on a thread that runs a time bubble's work (whose clock reads
/// the bubble answers): how long nobody moved a clock is real time.
func realNow() -> ContinuousClock.Instant {
  outsideAnyBubble { .now }
}

/// Which task started on the clock the code running now is part of (its child and unstructured
/// tasks inherit it): where a pending sleep is listed when it does not say its own line.
struct TaskOrigin: Sendable {
  let name: String?
  let site: CallSite

  var title: String {
    let at = "started at \(site.fileID):\(site.line)"
    return name.map { "\"\($0)\" (\(at))" } ?? at
  }

  @TaskLocal static var current: TaskOrigin?
}

/// A task started by ``VirtualAsyncClock/task(name:fileID:line:function:_:)``: its outcome,
/// readable without `await` once the clock has run it to the end.
public final class VirtualTask<Success: Sendable>: Sendable {
  private let clock: VirtualAsyncClock
  private let state = Mutex(State())

  private struct State {
    var task: Task<Void, Never>?
    var outcome: Result<Success, any Error>?
    /// Those awaiting ``value``.
    var waiters: [CheckedContinuation<Result<Success, any Error>, Never>] = []
  }

  init(clock: VirtualAsyncClock) { self.clock = clock }

  /// What the task returned or threw; nil while it has not finished.
  public var result: Result<Success, any Error>? { state.withLock { $0.outcome } }

  /// Whether the task has finished.
  public var isFinished: Bool { result != nil }

  /// What the task returns, awaited: first the clock runs what can run now, time standing still
  /// (as ``VirtualAsyncClock/advance(maxSteps:fileID:line:)`` does, but no sleep or action due
  /// now), then, if the task is still waiting, this waits for it to end — for a move made
  /// elsewhere, or the task's cancellation. ``result`` reads the outcome without waiting.
  ///
  /// - Throws: What the task threw: `CancellationError` when it was cancelled in a sleep.
  public var value: Success {
    get async throws {
      clock.drive(runningDueWork: false) {}
      let outcome = await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<Success, any Error>, Never>) in
        let finished = state.withLock { state -> Result<Success, any Error>? in
          if let outcome = state.outcome { return outcome }
          state.waiters.append(continuation)
          return nil
        }
        if let finished { continuation.resume(returning: finished) }
      }
      return try outcome.get()
    }
  }

  /// Cancels the task and runs its reaction on the calling thread, whoever calls — a synchronous
  /// or an `async` test method — without moving time: a sleep it waits in throws
  /// `CancellationError` at the current instant.
  ///
  /// - Returns: Whether the task has finished. A task that goes on after cancellation (it
  ///   ignores it, or waits for something cancellation does not end) has not; what it waits on
  ///   is in ``VirtualAsyncClock/waiting``.
  @discardableResult
  public func cancel() -> Bool {
    clock.drive(runningDueWork: false) { cancelOnly() }
    return isFinished
  }

  func cancelOnly() { state.withLock { $0.task }?.cancel() }

  func started(_ task: Task<Void, Never>) { state.withLock { $0.task = task } }

  func finish(_ outcome: Result<Success, any Error>) {
    let waiters = state.withLock { state in
      state.outcome = outcome
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: outcome) }
  }
}

/// One sleep: its continuation and its wake-up on the virtual clock; whichever of waking,
/// cancelling and the watchdog comes first resumes it, once.
final class Sleeper: Sendable, CustomStringConvertible {
  private enum Phase {
    case idle
    case waiting(CheckedContinuation<Void, any Error>, SchedulerTask?)
    case ended(any Error)
    case done
  }

  private let phase = Mutex<Phase>(.idle)
  let callSite: CallSite
  let task: String?
  let deadline: Duration

  init(callSite: CallSite, task: String?, deadline: Duration) {
    self.callSite = callSite
    self.task = task
    self.deadline = deadline
  }

  /// `sleep until 1.0 seconds at Tests/X.swift:12 in testY(), in task "load" (started at …)`.
  var description: String {
    "sleep until \(deadline) at \(callSite)" + (task.map { ", in task \($0)" } ?? "")
  }

  /// Takes the continuation; false (having resumed it throwing) if the sleep ended first.
  func wait(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
    let ended = phase.withLock { phase -> (any Error)? in
      if case .ended(let error) = phase { return error }
      phase = .waiting(continuation, nil)
      return nil
    }
    if let ended { continuation.resume(throwing: ended) }
    return ended == nil
  }

  /// Keeps the wake-up, to cancel it if the sleep ends first.
  func armed(_ wake: SchedulerTask) {
    let endedMeanwhile = phase.withLock { phase in
      guard case .waiting(let continuation, nil) = phase else { return true }
      phase = .waiting(continuation, wake)
      return false
    }
    if endedMeanwhile { wake.cancel() }
  }

  func wake() {
    let continuation = phase.withLock { phase -> CheckedContinuation<Void, any Error>? in
      guard case .waiting(let continuation, _) = phase else { return nil }
      phase = .done
      return continuation
    }
    continuation?.resume()
  }

  /// Ends the sleep throwing `error` (cancellation, or nobody moving the clock).
  func end(throwing error: any Error) {
    let (continuation, wake) = phase.withLock {
      phase -> (CheckedContinuation<Void, any Error>?, SchedulerTask?) in
      switch phase {
      case .idle:
        phase = .ended(error)
        return (nil, nil)
      case .waiting(let continuation, let wake):
        phase = .done
        return (continuation, wake)
      case .ended, .done:
        return (nil, nil)
      }
    }
    wake?.cancel()
    continuation?.resume(throwing: error)
  }
}
