import CChronoscopeShims
import ChronoscopeCore
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import Synchronization

/// A simulated clock that runs scheduled work only when a test moves time forward.
///
/// Every scheduler made by a ``VirtualSchedulerFactory`` over one clock shares its time. Nothing
/// runs until the test calls ``advance(by:)``, ``advance(to:)`` or ``run(maxSteps:horizon:)``;
/// then work runs in due order, on the calling thread, with ``now`` equal to each action's due
/// time while it runs.
///
/// ```swift
/// let clock = VirtualClock()
/// let factory = VirtualSchedulerFactory(clock: clock)
/// let service = TimeoutService(context: factory.makeSerial(label: "service"), work: slowWork)
/// service.start(timeout: .seconds(3)) { result = $0 }
/// clock.advance(by: .seconds(3) - .nanoseconds(1))   // nothing yet
/// clock.advance(by: .nanoseconds(1))                 // exactly at 3 s: timed out
/// ```
///
/// The rules, each checked by a test in `Tests/ChronoscopeVirtualTimeTests`:
/// - Pending work is ordered by (due time, order of scheduling): equal due times run first in,
///   first out.
/// - A repeating action's next run is queued when its run ends, so it takes its place behind
///   what was queued before that: at an instant two timers share, the one that ran less recently
///   goes first (a 1 s and a 2 s timer started together run 1 s: A; 2 s: B, A; 3 s: A; 4 s: B, A).
///   This is what live Dispatch timers do (each is re-armed after its run) and what swift-nio's
///   `EmbeddedEventLoop` does; combine-schedulers' `TestScheduler` keeps each timer's first
///   place instead.
/// - ``now`` starts at zero and never goes backwards; advancing to the past only runs what is
///   already due. Work scheduled with a negative delay is due ``now``.
/// - All actions due at one instant form a batch that runs before anything they schedule (as
///   with swift-nio's `EmbeddedEventLoop`, which takes the batch off its queue first): work they
///   schedule for that same instant runs after the batch; work they cancel in the batch does not
///   run. The (due time, order of scheduling) key gives exactly this order — new work always
///   sorts after what was already due — so no separate batch queue is kept.
/// - Work due within an advanced span runs in the same call, including work scheduled by work —
///   up to a step limit (a million actions unless the call says otherwise), as
///   ``run(maxSteps:horizon:)`` has: an endless chain of work (a 1 ns repeating timer advanced
///   by years) fails the test at the call's line instead of hanging it.
/// - A `sync` call on a virtual scheduler runs everything already due at ``now`` on the clock,
///   then the block, and returns its value; from inside the same scheduler it runs inline.
/// - Serial contexts never overlap: the clock runs one action at a time.
///
/// Thread safety: every method may be called from any thread; the clock's state is guarded by
/// one lock, never held while user work runs. Runs are deterministic when one thread drives the
/// clock.
///
/// - Complexity: scheduling and firing are O(log n) for n pending actions; cancelling is O(1)
///   (a cancelled action is dropped when it reaches the front of the queue).
public final class VirtualClock: SlotOwner {
  private let state: Mutex<State>

  /// Makes a clock at `start` (zero by default).
  ///
  /// ```swift
  /// let clock = VirtualClock(start: .seconds(1_700_000_000))   // "now" as Unix time, say
  /// ```
  ///
  /// - Parameters:
  ///   - start: Where time starts; a negative start is taken as zero.
  ///   - jitter: Opt-in random lateness for timers; see ``Jitter``.
  ///   - exploring: Runs the work that could run next in an order the exploration chooses
  ///     instead of first in, first out; see ``Exploration``. Inside
  ///     ``explore(iterations:seed:strategy:_:)`` (or the Swift Testing trait that explores), a
  ///     clock made without one explores with the run's seed.
  public init(start: Duration = .zero, jitter: Jitter? = nil, exploring: Exploration? = nil) {
    var state = State(jitter: jitter)
    state.exploration = exploring
    state.now = max(start.clampedNanoseconds, 0)
    self.state = Mutex(state)
    if exploring == nil, let run = Exploration.current {
      let exploration = run.exploration(for: self)
      self.state.withLock { $0.exploration = exploration }
    }
  }

  /// The exploration the clock runs under, with the choices it made so far; nil without one.
  public var exploration: Exploration? { state.withLock { $0.exploration } }

  /// Whether the clock explores orders (then a ``VirtualAsyncClock`` over it explores its jobs').
  var isExploring: Bool { state.withLock { $0.exploration != nil } }

  /// Which of the ready jobs of a ``VirtualAsyncClock`` over this clock runs next, one chain
  /// (task or actor) per job: the clock's exploration chooses, as it does among actions.
  func chooseJob(among chains: [UInt64]) -> Int {
    state.withLock { $0.exploration?.choose(among: chains) ?? 0 }
  }

  /// The clock's time: its start plus the virtual time that passed since.
  public var now: Duration { .nanoseconds(state.withLock { $0.now }) }

  /// The virtual scheduler whose action is running right now, or nil between actions.
  ///
  /// Use it to assert that a callback arrived on the context it should:
  /// `XCTAssertTrue(clock.currentScheduler === main)`.
  public var currentScheduler: VirtualScheduler? {
    state.withLock { $0.running.last?.takeUnretainedValue() }
  }

  /// Work that has been scheduled and has neither run (for the last time) nor been cancelled,
  /// in the order it will run.
  ///
  /// - Complexity: O(n log n).
  public var pendingActions: [PendingAction] {
    state.withLock { $0.pendingActions }
  }

  /// Runs what is due now — work scheduled without a delay, and what that schedules for now —
  /// without moving time.
  ///
  /// - Parameters:
  ///   - maxSteps: The most actions to run, as in ``advance(by:maxSteps:fileID:line:)``.
  ///   - fileID: Where a failure points: the caller.
  ///   - line: Where a failure points: the caller.
  public func advance(
    maxSteps: Int = 1_000_000, fileID: StaticString = #fileID, line: UInt = #line
  ) {
    advance(by: .zero, maxSteps: maxSteps, fileID: fileID, line: line)
  }

  /// Moves time forward by `duration`, running everything that falls due on the way.
  ///
  /// ```swift
  /// clock.advance(by: .seconds(5))
  /// clock.advance(by: .hours(1), maxSteps: 10_000_000)   // a 100 µs timer for an hour
  /// ```
  ///
  /// - Parameters:
  ///   - duration: How far; a negative one is taken as zero.
  ///   - maxSteps: The most actions to run, as ``run(maxSteps:horizon:)`` takes: an endless
  ///     chain of work (a repeating timer of a nanosecond, advanced by years) hits it. Then the
  ///     running test fails at `fileID`:`line` with the message of
  ///     ``VirtualTimeError/stepLimitExceeded(steps:pending:)``, listing what is pending (through
  ///     XCTest or the Swift Testing trait `.virtualTime`; outside a test, on standard error), and
  ///     time stays where the last action ran.
  ///   - fileID: Where a failure points: the caller.
  ///   - line: Where a failure points: the caller.
  public func advance(
    by duration: Duration, maxSteps: Int = 1_000_000, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    let target = state.withLock { $0.now }.adding(saturating: max(duration.clampedNanoseconds, 0))
    report(move(toNanoseconds: target, maxSteps: maxSteps), fileID: fileID, line: line)
  }

  /// Work that takes `duration` of virtual time: moves time forward without running anything,
  /// so what falls due meanwhile runs afterwards, late — as behind a slow action on a real queue.
  /// Call it from inside an action to give that action a length. Work that fell due meanwhile
  /// runs at the next `advance`, `step` or `run` (an `advance` already under way stops at the
  /// instant it was asked for).
  ///
  /// ```swift
  /// main.async { clock.spend(.milliseconds(300)) }   // a 300 ms run: a hang
  /// ```
  public func spend(_ duration: Duration) {
    state.withLock {
      $0.now =
        $0.now.addingReportingOverflow(max(duration.clampedNanoseconds, 0)).overflow
        ? .max : $0.now + max(duration.clampedNanoseconds, 0)
    }
  }

  /// Moves time forward to `instant` (measured from the clock's start), running everything that
  /// falls due on the way. An instant in the past leaves time where it is.
  ///
  /// - Parameters:
  ///   - instant: Where to.
  ///   - maxSteps: The most actions to run, as in ``advance(by:maxSteps:fileID:line:)``.
  ///   - fileID: Where a failure points: the caller.
  ///   - line: Where a failure points: the caller.
  public func advance(
    to instant: Duration, maxSteps: Int = 1_000_000, fileID: StaticString = #fileID,
    line: UInt = #line
  ) {
    report(
      move(toNanoseconds: instant.clampedNanoseconds, maxSteps: maxSteps), fileID: fileID,
      line: line)
  }

  /// Runs until no work is pending, moving time to each action's due time.
  ///
  /// - Parameters:
  ///   - maxSteps: The most actions to run; an endless repeating timer hits it.
  ///   - horizon: If given, the latest virtual time to reach.
  /// - Throws: ``VirtualTimeError/stepLimitExceeded(steps:pending:)`` or
  ///   ``VirtualTimeError/horizonExceeded(horizon:pending:)``, listing what is still pending.
  ///   Time stays where the last action ran.
  public func run(maxSteps: Int = 1_000_000, horizon: Duration? = nil) throws(VirtualTimeError) {
    let limit = horizon?.clampedNanoseconds ?? .max
    var steps = 0
    while true {
      guard let next = state.withLock({ $0.nextDue }) else { return }
      if next > limit {
        throw .horizonExceeded(horizon: .nanoseconds(limit), pending: pendingActions)
      }
      if steps >= maxSteps { throw .stepLimitExceeded(steps: steps, pending: pendingActions) }
      guard let due = takeNext(upTo: limit) else { continue }
      runAction(due)
      steps += 1
    }
  }

  /// Runs the next pending action, moving time to its due time; returns false when nothing is
  /// pending.
  @discardableResult
  public func step() -> Bool {
    guard let due = takeNext(upTo: .max) else { return false }
    runAction(due)
    return true
  }

  /// Fails, listing what is left, if any work is still pending; call it in a test's teardown.
  /// The error starts with the caller's file and line, so a failure points at the test.
  ///
  /// ```swift
  /// override func tearDown() { XCTAssertNoThrow(try clock.checkNoPendingWork()) }
  /// ```
  public func checkNoPendingWork(
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
  ) throws(VirtualTimeError) {
    let pending = pendingActions
    if !pending.isEmpty {
      throw .leftoverWork(
        pending: pending, checkedAt: CallSite(fileID: fileID, line: line, function: function))
    }
  }

  /// Advances by `duration` in two steps and checks the world on both sides of the boundary:
  /// `justBefore` runs `epsilon` before the end of the span, `justAfter` at its end.
  ///
  /// ```swift
  /// clock.travel(by: .seconds(5), justBefore: { XCTAssertFalse(fired.value) },
  ///              justAfter: { XCTAssertTrue(fired.value) })
  /// ```
  ///
  /// - Parameters:
  ///   - duration: How far in all; a negative one is taken as zero.
  ///   - epsilon: How long before the end `justBefore` runs (at least 1 ns).
  ///   - maxSteps: The most actions each of the two moves runs, as in
  ///     ``advance(by:maxSteps:fileID:line:)``; a move that hits it fails the test, and the
  ///     checks after it do not run.
  ///   - fileID: Where a failure points: the caller.
  ///   - line: Where a failure points: the caller.
  ///   - justBefore: The checks `epsilon` before the end.
  ///   - justAfter: The checks at the end.
  public func travel(
    by duration: Duration, epsilon: Duration = .microseconds(1), maxSteps: Int = 1_000_000,
    fileID: StaticString = #fileID, line: UInt = #line, justBefore: () -> Void,
    justAfter: () -> Void
  ) {
    let target = state.withLock { $0.now }.adding(saturating: max(duration.clampedNanoseconds, 0))
    let before = target - min(max(epsilon.clampedNanoseconds, 1), target)
    if let error = move(toNanoseconds: before, maxSteps: maxSteps) {
      return report(error, fileID: fileID, line: line)
    }
    justBefore()
    if let error = move(toNanoseconds: target, maxSteps: maxSteps) {
      return report(error, fileID: fileID, line: line)
    }
    justAfter()
  }

  // MARK: - Scheduling (for VirtualScheduler)

  /// The clock's one main context.
  func mainScheduler() -> VirtualScheduler {
    state.withLock { state in
      if let main = state.main { return main }
      let main = VirtualScheduler(label: "main", kind: .main, clock: self)
      state.main = main
      return main
    }
  }

  /// Queues `work` on `scheduler`, due `delay` ns from now (at least now).
  func schedule(
    _ work: @escaping @Sendable () -> Void, on scheduler: VirtualScheduler, delay: Int64,
    interval: Int64?, callSite: CallSite
  ) -> SchedulerTask {
    let handle = state.withLock { state in
      let jitter = delay > 0 || interval != nil ? state.nextJitter() : 0
      return state.add(
        work, on: scheduler, interval: interval.map { max($0, 1) } ?? 0, callSite: callSite,
        due: state.now.adding(saturating: max(delay, 0)).adding(saturating: jitter))
    }
    return SlotTask(owner: self, slot: handle.slot, ticket: handle.ticket)
  }

  /// Queues `work` on `scheduler`, due at `instant` ns (at least now, as the clock reads when it
  /// is queued: no race with another thread moving the clock).
  func schedule(
    _ work: @escaping @Sendable () -> Void, on scheduler: VirtualScheduler, at instant: Int64,
    callSite: CallSite, chain: UInt64? = nil
  ) -> SchedulerTask {
    let handle = state.withLock { state in
      // A timer in the future is as late as the clock's jitter makes any timer.
      let jitter = instant > state.now ? state.nextJitter() : 0
      let handle = state.add(
        work, on: scheduler, interval: 0, callSite: callSite,
        due: instant.adding(saturating: jitter))
      if let chain, state.exploration != nil { state.actionChains[handle.ticket] = chain }
      return handle
    }
    return SlotTask(owner: self, slot: handle.slot, ticket: handle.ticket)
  }

  /// Cancels the work in `slot` if it still holds the work given `ticket` (queued or running),
  /// and lets go of it outside the lock: what it captured may do anything when it goes, even
  /// use this clock. What the handles this clock returns (``SlotTask``s) call on cancel.
  package func cancelSlot(_ slot: UInt32, ticket: UInt64) {
    let work = state.withLock { $0.cancel(SlotHandle(slot: slot, ticket: ticket)) }
    withExtendedLifetime(work) {}
  }

  /// Runs `work` on `scheduler` after everything already due now, and returns its result.
  func runSync<T, E: Error>(
    on scheduler: VirtualScheduler, callSite: CallSite, _ work: () throws(E) -> T
  )
    throws(E) -> T
  {
    var result: Result<T, E>?
    withoutActuallyEscaping({ result = Result { () throws(E) -> T in try work() } }) { body in
      let borrowed = BorrowedWork(body)
      let task = schedule(
        { borrowed.runOnce() }, on: scheduler, delay: 0, interval: nil, callSite: callSite)
      let now = state.withLock { $0.now }
      while result == nil, let due = takeNext(upTo: now) {
        runAction(due)
      }
      task.cancel()
      borrowed.release()
    }
    guard let result else { preconditionFailure("\(scheduler.label): sync block did not run") }
    return try result.get()
  }

  // MARK: - Driving

  /// Moves time to `target`, running what falls due on the way, at most `maxSteps` actions.
  /// Returns the step limit's error when work due by `target` is left after them; time then
  /// stays where the last action ran. What every `advance` (this clock's and a
  /// ``VirtualAsyncClock``'s) does.
  func move(toNanoseconds target: Int64, maxSteps: Int) -> VirtualTimeError? {
    if let error = drain(upTo: target, maxSteps: maxSteps) { return error }
    state.withLock { $0.now = max($0.now, target) }
    return nil
  }

  /// Fails the running test at the caller's line with `error`, if any.
  func report(_ error: VirtualTimeError?, fileID: StaticString, line: UInt) {
    guard let error else { return }
    TestFailure.report(error.description, file: fileID, line: line)
  }

  /// Takes the next live action due no later than `limit`, and its work, moving `now` to its
  /// due time.
  private func takeNext(upTo limit: Int64) -> DueAction? {
    state.withLock { $0.takeNext(upTo: limit) }
  }

  private func runAction(_ due: borrowing DueAction) {
    ExecutionContext.run(on: due.scheduler, action: due.work)
    settleAfterAction()
    let finished = due.finished
    state.withLock { $0.finish(finished) }
  }

  /// Called after each action: a ``VirtualAsyncClock`` runs the async code the action made
  /// runnable, so that it runs before the next action, on the same timeline.
  // The closure is kept in a struct: a bare closure in a Mutex is re-wrapped in a reabstraction
  // thunk each time `withLock` hands it out through its generic `inout`, so it would grow a
  // level deeper on every call (measured: 240 µs per action after 20,000 actions).
  private let afterEachAction = Mutex<AfterAction>(AfterAction(body: nil))

  /// Whether `afterEachAction` has a body: a clock no async clock shares takes no lock for it.
  private let hasAfterEachAction = Atomic<Bool>(false)

  private struct AfterAction {
    var body: (@Sendable () -> Void)?
  }

  func setAfterEachAction(_ body: (@Sendable () -> Void)?) {
    afterEachAction.withLock {
      $0.body = body
      hasAfterEachAction.store(body != nil, ordering: .releasing)
    }
  }

  private func settleAfterAction() {
    guard hasAfterEachAction.load(ordering: .acquiring) else { return }
    afterEachAction.withLock { $0.body }?()
  }

  /// The time of the earliest live action, if any.
  var nextDue: Duration? { state.withLock { $0.nextDue }.map { .nanoseconds($0) } }

  /// Runs everything due up to `limit`, taking one lock per action, at most `maxSteps` actions;
  /// the step limit's error when work due by `limit` is left after them.
  private func drain(upTo limit: Int64, maxSteps: Int) -> VirtualTimeError? {
    var steps = 0
    var next = maxSteps > 0 ? takeNext(upTo: limit) : nil
    let runner = ExecutionContext.runner()
    while let due = next.take() {
      runner.run(on: due.scheduler, action: due.work)
      settleAfterAction()
      steps += 1
      // Plain values into the lock's closure: capturing `due` would retain what it holds.
      let finished = due.finished
      let more = steps < maxSteps
      next = state.withLock { state in
        state.finish(finished)
        return more ? state.takeNext(upTo: limit) : nil
      }
    }
    guard steps >= maxSteps, let due = state.withLock({ $0.nextDue }), due <= limit else {
      return nil
    }
    return .stepLimitExceeded(steps: steps, pending: pendingActions)
  }
}

// MARK: - State

extension VirtualClock {
  /// Which slot a piece of work was given, and the ticket that tells it from the work the slot
  /// holds after it is freed and given again: a stale handle cancels nothing.
  struct SlotHandle {
    let slot: UInt32
    let ticket: UInt64
  }

  /// One piece of queued or running work. A slot is in use from `add` until its work leaves
  /// both the queue and the running stack for good; then it is freed for the next `add`.
  struct Slot {
    /// Nil once cancelled (or once a one-shot's work was taken to run, when the slot is freed).
    var work: (@Sendable () -> Void)?
    /// Nil while the slot is free, so that a freed slot keeps no scheduler (and through it this
    /// clock) alive.
    var scheduler: VirtualScheduler?
    /// The repeat interval in ns; 0 for one-shot work.
    var interval: Int64
  }

  /// What is known of a slot's work but read only to cancel or describe it, kept apart from
  /// the slots that every run reads, so that those stay at 32 bytes, half a cache line.
  struct SlotRecord {
    /// Given anew each time the slot is taken. A freed slot keeps its last ticket: a handle
    /// that still matches it finds no work to cancel.
    let ticket: UInt64
    /// Where the work was scheduled, in `State.callSites`.
    let callSite: UInt32
  }

  /// An action taken to run: a struct, not a tuple, because a closure inside a tuple that comes
  /// out of `withLock`'s generic result is wrapped in a reabstraction thunk on the way out and
  /// back, two allocations per action; inside a struct it is not touched. Not
  /// copyable, so that it is only ever moved and borrowed: a copy retains what it holds.
  struct DueAction: ~Copyable {
    let slot: UInt32
    let scheduler: VirtualScheduler
    let work: @Sendable () -> Void
    let repeats: Bool

    var finished: FinishedAction { FinishedAction(slot: slot, repeats: repeats) }
  }

  /// What `finish` needs of an action that ran.
  struct FinishedAction {
    let slot: UInt32
    let repeats: Bool
  }

  struct State: ~Copyable {
    var now: Int64 = 0
    var queue = DueQueue()
    /// The work, by slot. A queued slot has one queue entry; a cancelled one keeps its entry
    /// until the entry reaches the front (cancelling stays O(1)), and is freed then.
    var slots: [Slot] = []
    /// Each slot's record, beside `slots`.
    var records: [SlotRecord] = []
    var callSites = CallSiteTable()
    var freeSlots: [UInt32] = []
    /// The schedulers whose actions are running, innermost last. Not retained here: each is
    /// held by the ``DueAction`` being run, which outlives its entry (`finish` pops it).
    var running: [Unmanaged<VirtualScheduler>] = []
    /// The clock's main context, shared by every factory over the clock while any holds it.
    weak var main: VirtualScheduler?
    var tickets: UInt64 = 0
    var jitter: Jitter?
    /// Set to run, among the actions due at one instant, one the exploration picks instead of
    /// the first queued.
    var exploration: Exploration?
    /// While exploring: the chain an action on a concurrent scheduler continues, by ticket, when
    /// it is not a chain of its own (a sleep's wake-up continues its task's).
    var actionChains: [UInt64: UInt64] = [:]

    init(jitter: Jitter?) { self.jitter = jitter }

    /// Queues `work` due at `due` (at least now) in a slot of its own.
    mutating func add(
      _ work: consuming @escaping @Sendable () -> Void, on scheduler: consuming VirtualScheduler,
      interval: Int64, callSite: CallSite, due: Int64
    ) -> SlotHandle {
      tickets += 1
      let site = callSites.id(of: callSite)
      let index: UInt32
      if let free = freeSlots.popLast() {
        index = free
        slots[Int(free)] = Slot(work: work, scheduler: scheduler, interval: interval)
        records[Int(free)] = SlotRecord(ticket: tickets, callSite: site)
      } else {
        // More than 2³² − 1 slots in use at once is more memory than any machine has.
        index = UInt32(slots.count)
        slots.append(Slot(work: work, scheduler: scheduler, interval: interval))
        records.append(SlotRecord(ticket: tickets, callSite: site))
      }
      push(index, due: due)
      return SlotHandle(slot: index, ticket: tickets)
    }

    /// Cancels the work `handle` names if its slot still holds it, and returns that work, for
    /// the caller to let go of outside the lock.
    mutating func cancel(_ handle: SlotHandle) -> (@Sendable () -> Void)? {
      let index = Int(handle.slot)
      guard index < records.count, records[index].ticket == handle.ticket else { return nil }
      return slots[index].work.take()
    }

    /// When the next live action is due, dropping cancelled ones from the front.
    var nextDue: Int64? {
      mutating get {
        while let first = queue.min {
          if slots[Int(first.slot)].work != nil { return first.due }
          queue.removeMin()
          free(first.slot)
        }
        return nil
      }
    }

    /// Removes and returns the next live action due by `limit` and its work, moving `now` to
    /// its due time (never to a cancelled action's), and marks its scheduler running. A one-shot
    /// action hands over its work for good, and its slot is freed.
    mutating func takeNext(upTo limit: Int64) -> DueAction? {
      while var first = queue.min, first.due <= limit {
        queue.removeMin()
        if exploration != nil { first = explored(first) }
        let index = Int(first.slot)
        let repeats = slots[index].interval > 0
        // A one-shot's work and scheduler move out of the slot: no reference counting.
        guard
          let work = repeats ? slots[index].work : slots[index].work.take(),
          let scheduler = repeats ? slots[index].scheduler : slots[index].scheduler.take()
        else {
          free(first.slot)
          continue
        }
        // Both were moved out: nothing left to let go of.
        if !repeats { freeSlots.append(first.slot) }
        // The slot of the work due next, a likely cache miss in a large queue, is fetched
        // while this work runs (measured: a sixth of the time per action at a million).
        if let next = queue.min {
          slots.withUnsafeBufferPointer { slots in
            if let base = slots.baseAddress { chronoscope_prefetch(base + Int(next.slot)) }
          }
        }
        now = max(now, first.due)
        running.append(Unmanaged.passUnretained(scheduler))
        return DueAction(slot: first.slot, scheduler: scheduler, work: work, repeats: repeats)
      }
      return nil
    }

    /// The action to run instead of `first`, just taken from the queue: one the exploration
    /// picks among those enabled at `first`'s instant. Enabled: due then, live, and the first
    /// queued of its scheduler unless that scheduler is concurrent (serial and main schedulers
    /// stay first in, first out). The others go back in their places.
    private mutating func explored(_ first: DueQueue.Entry) -> DueQueue.Entry {
      var taken = [first]
      while let next = queue.min, next.due == first.due {
        taken.append(queue.removeMin())
      }
      var seen = Set<ObjectIdentifier>()
      var enabled: [Int] = []
      // What each runs on, for the strategy: its serial scheduler, or the action itself on a
      // concurrent one (which runs beside the others as a thread of its own would).
      var chains: [UInt64] = []
      for (index, entry) in taken.enumerated() {
        guard slots[Int(entry.slot)].work != nil, let scheduler = slots[Int(entry.slot)].scheduler
        else { continue }
        if scheduler.kind == .concurrent {
          enabled.append(index)
          let ticket = records[Int(entry.slot)].ticket
          chains.append(actionChains[ticket] ?? Chain.action(ticket: ticket))
        } else if seen.insert(ObjectIdentifier(scheduler)).inserted {
          enabled.append(index)
          chains.append(scheduler.chain)
        }
      }
      let pick = enabled.isEmpty ? 0 : enabled[exploration?.choose(among: chains) ?? 0]
      for (index, entry) in taken.enumerated() where index != pick { queue.reinsert(entry) }
      return taken[pick]
    }

    /// Records that `action` has run; re-queues it if it repeats and was not cancelled meanwhile.
    mutating func finish(_ action: FinishedAction) {
      running.removeLast()
      guard action.repeats else { return }
      let index = Int(action.slot)
      guard slots[index].work != nil else { return free(action.slot) }
      // A next run past the end of time (the clock saturated there) never comes: not re-queued,
      // or the clock would run it at the same instant for ever.
      let next = now.adding(saturating: slots[index].interval).adding(saturating: nextJitter())
      if next > now { push(action.slot, due: next) } else { free(action.slot) }
    }

    mutating func push(_ slot: UInt32, due: Int64) {
      queue.insert(due: max(due, now), slot: slot)
    }

    /// Frees a slot that is neither queued nor running.
    private mutating func free(_ slot: UInt32) {
      let index = Int(slot)
      slots[index].work = nil
      slots[index].scheduler = nil
      freeSlots.append(slot)
    }

    /// The live queued work, in the order it will run.
    var pendingActions: [PendingAction] {
      let live = queue.unordered.filter { slots[Int($0.slot)].work != nil }
      return live.sorted { $0.precedes($1) }.compactMap { entry in
        let slot = slots[Int(entry.slot)]
        guard let scheduler = slot.scheduler else { return nil }
        return PendingAction(
          scheduler: scheduler, due: entry.due, isRepeating: slot.interval > 0,
          callSite: callSites[records[Int(entry.slot)].callSite])
      }
    }

    mutating func nextJitter() -> Int64 { jitter?.next() ?? 0 }
  }
}

// @unchecked Sendable: the borrowed block is set before it is queued and cleared by the one
// caller that waits for it, on the thread that drives the clock.
private final class BorrowedWork: @unchecked Sendable {
  private var work: (() -> Void)?
  init(_ work: @escaping () -> Void) { self.work = work }
  func runOnce() {
    let work = self.work
    self.work = nil
    work?()
  }
  func release() { work = nil }
}
