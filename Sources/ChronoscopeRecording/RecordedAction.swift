import ChronoscopeScheduling
import ChronoscopeTraceFormat
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The recorder's view of one scheduled action: its id, where it was scheduled, and a small
/// state machine that makes "cancelled before it started" and "began" mutually exclusive.
///
/// Without it, a cancel racing with the start of a run on another thread could be recorded as
/// "not started" while the action still began, and the trace would contradict itself.
///
/// An action that never left the call that scheduled it (an inline run, a `sync`) is handed back
/// to its thread's buffer and used again for the thread's next action (see
/// ``RecorderCore/recordScheduled(on:_:delay:firstDelay:callSite:work:handOver:)``):
/// allocating, counting and freeing an object per action was a tenth of what recording added to
/// each such action (Benchmarks/README.md, "Figures behind the code").
final class RecordedAction: CancellationObserver {
  private enum State: UInt8 {
    /// Never run yet.
    case fresh
    case running
    /// Ran at least once and waits for its next run (repeating actions).
    case idle
    case cancelled
    case finished
  }

  // `id` and `isRepeating` change only while the action is in its buffer's spare slot or being
  // taken from it, on the owning thread, when nothing else holds the action (see
  // ``ThreadBuffer/spareAction``); from then on they are read only.
  @exclusivity(unchecked) nonisolated(unsafe) private(set) var id: UInt32
  @exclusivity(unchecked) nonisolated(unsafe) private(set) var isRepeating: Bool
  let schedulingThread: UInt32
  private let state = Atomic<UInt8>(State.fresh.rawValue)
  private let runs = Atomic<UInt32>(0)

  /// The core, not held: an action that can outlive the call that scheduled it holds it in
  /// `heldCore` (``holdCore()``). One that cannot is used only while its scheduler, which holds
  /// the core, is in that call; it then waits in the buffer's spare slot, and an owning
  /// reference from there would keep the core (which owns the buffer) alive forever. Not
  /// holding it also keeps every thread's actions off the core's one shared reference count.
  unowned(unsafe) let core: RecorderCore
  /// The core's key to each thread's buffer.
  private let bufferKey: pthread_key_t
  @exclusivity(unchecked) nonisolated(unsafe) private var heldCore: RecorderCore?
  /// The wrapped work (nil for `sync`, whose work runs in place). A one-shot action lets go of it
  /// when its run starts: the observer of a handle that is never cancelled must not keep what the
  /// work captured. Only `fire()` touches it, and a one-shot action fires once, so it needs no
  /// lock; nor a dynamic exclusivity check on each run (see ``ThreadBuffer``).
  @exclusivity(unchecked) nonisolated(unsafe) private var work: (@Sendable () -> Void)?
  /// The work's context (``WorkContext/current`` when it was scheduled), under which each run
  /// runs, so that what the work schedules carries it on. Set with `work`, under the same rules.
  @exclusivity(unchecked) nonisolated(unsafe) private var context: WorkContext?

  init(
    id: UInt32, scheduledOn buffer: ThreadBuffer, isRepeating: Bool, core: RecorderCore,
    work: (@Sendable () -> Void)?, context: WorkContext?
  ) {
    self.id = id
    schedulingThread = buffer.threadID
    self.isRepeating = isRepeating
    self.core = core
    bufferKey = core.bufferKey
    self.work = work
    self.context = context
  }

  /// Keeps the core alive for as long as this action lives: for an action that leaves the call
  /// that scheduled it, in a closure or a handle's observers.
  func holdCore() { heldCore = core }

  /// Lets go of the work (a repeating action's, which an inline scheduler ran once) and waits in
  /// `buffer`, the scheduling thread's, for that thread's next action, while nothing else holds
  /// this action.
  @inline(__always)
  func becomeSpare(in buffer: ThreadBuffer) {
    work = nil
    context = nil
    buffer.spareAction = self
  }

  /// Makes a spare action (see ``ThreadBuffer/spareAction``) a fresh one, on the thread it was
  /// scheduled from, while nothing else holds it.
  @inline(__always)
  func reuse(id: UInt32, isRepeating: Bool, work: (@Sendable () -> Void)?, context: WorkContext?) {
    self.id = id
    self.isRepeating = isRepeating
    self.work = work
    self.context = context
    state.store(State.fresh.rawValue, ordering: .relaxed)
    runs.store(0, ordering: .relaxed)
  }

  /// Runs `body`, the call that hands this action to the wrapped scheduler, on the scheduling
  /// thread, whose buffer is `buffer`, marking the action unpublished meanwhile: its handle does
  /// not exist until the call returns, so nothing can cancel it, and a run inside the call (an
  /// immediate scheduler's) needs none of the atomic steps that keep a cancel and a begin apart.
  @inline(__always)
  func whileUnpublished<R>(on buffer: ThreadBuffer, _ body: () throws -> R) rethrows -> R {
    let outer = buffer.unpublished
    buffer.unpublished = id
    defer { buffer.unpublished = outer }
    return try body()
  }

  /// One run as the wrapped scheduler performs it: begin, the work, end — unless cancelled
  /// first, in which case the work does not run at all.
  func fire() {
    guard let work else { return }
    if !isRepeating { self.work = nil }
    withBuffer { buffer in
      guard let (run, start) = beginRun(on: buffer) else { return }
      // The run sees the context it was scheduled in, not the running thread's: a test moving
      // a virtual clock inside a scope must not lend that scope to the work it runs. A run
      // inside the call that scheduled it (unpublished: an immediate scheduler's) is on the
      // thread and in the scope `context` was read from, so it skips reading the thread's
      // again: a task-local read is not cheap (see Benchmarks/README.md).
      if context != nil || (!isUnpublished(on: buffer) && WorkContext.current != nil) {
        WorkContext.withCurrent(context, operation: work)
      } else {
        work()
      }
      endRun(run, startedAt: start, on: buffer)
    }
  }

  /// Calls `body` with the calling thread's buffer, neither the buffer nor the core retained:
  /// while this action can run, the core is held, by its scheduler during the scheduling call
  /// and by the action after it (``holdCore()``).
  @inline(__always)
  func withBuffer<R, E: Error>(_ body: (ThreadBuffer) throws(E) -> R) throws(E) -> R {
    try RecorderCore.withBuffer(forKey: bufferKey, orMake: core, body)
  }

  /// Whether this action runs inside the call that schedules it, on the thread that schedules
  /// it (see ``whileUnpublished(on:_:)``): only that thread's buffer can name it. A run that
  /// starts unpublished ends unpublished, since the handle comes only after both.
  @inline(__always)
  private func isUnpublished(on buffer: ThreadBuffer) -> Bool { buffer.unpublished == id }

  /// Starts a run and records it (with the hop, if it runs on another thread than it was
  /// scheduled from); returns its number and start time, or nil if the action was cancelled
  /// first. With `force`, a `sync` run starts even if cancelled (its caller waits for it).
  ///
  /// The start time is read before the state moves to running: a cancel that sees it running
  /// reads the clock after that move, so its time is never before the begin it follows.
  @inline(__always)
  func beginRun(on buffer: ThreadBuffer, force: Bool = false) -> (UInt32, Int64)? {
    buffer.stamp { () -> (UInt32, Int64)? in
      let start = buffer.now()
      let started = isUnpublished(on: buffer) ? beginUnpublished() : begin()
      guard let run = started ?? (force ? 1 : nil) else { return nil }
      buffer.appendBegin(of: id, scheduledFrom: schedulingThread, run: run, at: start)
      return (run, start)
    }
  }

  /// Records the end of a run.
  @inline(__always)
  func endRun(_ run: UInt32, startedAt start: Int64, on buffer: ThreadBuffer) {
    buffer.recordEnd(of: id, run: run, startedAt: start)
    if isUnpublished(on: buffer) { endUnpublished() } else { self.end() }
  }

  /// Records the cancel, from the cancelling thread, with who cancelled and whether it started.
  /// The state changes before the clock is read (see ``beginRun(on:force:)``).
  func schedulerTaskCancelled() {
    withBuffer { buffer in
      buffer.stamp {
        let started = cancel()
        buffer.append(
          .cancel(
            time: buffer.now(), action: id, thread: buffer.threadID, by: buffer.currentAction,
            started: started))
      }
    }
  }

  /// Moves to running and returns the run number, or nil if the action was cancelled first.
  func begin() -> UInt32? {
    func start(from: State) -> Bool {
      state.compareExchange(
        expected: from.rawValue, desired: State.running.rawValue, ordering: .acquiringAndReleasing
      ).exchanged
    }
    guard start(from: .fresh) || start(from: .idle) else { return nil }
    // Only the thread that moved the state to running counts the run, and the move acquired
    // the end of the run before: a plain increment, not a locked one.
    let run = runs.load(ordering: .relaxed) &+ 1
    runs.store(run, ordering: .relaxed)
    return run
  }

  /// ``begin()`` with no other thread to race: plain loads and stores (relaxed atomics are
  /// plain moves), where `begin` takes a locked compare-and-exchange. A later cancel, on any
  /// thread, sees them: it can only come through the handle, published after them.
  @inline(__always)
  private func beginUnpublished() -> UInt32? {
    guard state.load(ordering: .relaxed) != State.cancelled.rawValue else { return nil }
    state.store(State.running.rawValue, ordering: .relaxed)
    let run = runs.load(ordering: .relaxed) &+ 1
    runs.store(run, ordering: .relaxed)
    return run
  }

  /// ``end()`` with no other thread to race.
  @inline(__always)
  private func endUnpublished() {
    state.store((isRepeating ? State.idle : State.finished).rawValue, ordering: .relaxed)
  }

  /// Ends a run: a repeating action waits for its next run, unless cancelled meanwhile. A
  /// one-shot action is finished either way: it never begins again, and a cancel during its run
  /// was recorded when it came, so a plain store will do where a repeating one needs a compare.
  func end() {
    guard isRepeating else {
      state.store(State.finished.rawValue, ordering: .releasing)
      return
    }
    _ = state.compareExchange(
      expected: State.running.rawValue, desired: State.idle.rawValue,
      ordering: .acquiringAndReleasing)
  }

  /// Marks the action cancelled; returns whether any run had started.
  func cancel() -> Bool {
    state.exchange(State.cancelled.rawValue, ordering: .acquiringAndReleasing)
      != State.fresh.rawValue
  }
}

extension RecorderCore {
  /// Records a `schedule` of a new action on scheduler `scheduler` from the calling thread, with
  /// the action running on it (if any) as its parent, and returns the action to record its runs
  /// and cancel; it holds the core (see ``RecordedAction/holdCore()``). Without a call site, the
  /// line has none (`site` 0). With `task` (a Swift task's runtime id), a `task` line follows the
  /// schedule: the action is that task's work.
  func recordSchedule(
    on scheduler: UInt32, _ mode: TraceEvent.ScheduleMode, delay: Int64, firstDelay: Int64? = nil,
    callSite: CallSite?, work: (@Sendable () -> Void)?, inline: Bool = false, task: UInt64? = nil
  ) -> RecordedAction {
    let context = WorkContext.current
    let action = withCurrentBuffer { buffer in
      writeSchedule(
        on: scheduler, mode, delay: delay, firstDelay: firstDelay, callSite: callSite,
        work: work, context: context, inline: inline, task: task, buffer: buffer)
    }
    action.holdCore()
    return action
  }

  /// Records a `schedule` as ``recordSchedule(on:_:delay:firstDelay:callSite:work:inline:task:)``
  /// does, then calls `handOver` with the action, unpublished (see
  /// ``RecordedAction/whileUnpublished(on:_:)``), to give its work to the wrapped scheduler, and
  /// returns the handle that call returns.
  ///
  /// If the work already ran to completion (``SchedulerTask/isFinished``) and nothing else kept
  /// the action, it goes back to the thread's buffer for the next action; otherwise it holds the
  /// core and watches the handle for a cancel.
  @inline(__always)
  func recordScheduled(
    on scheduler: UInt32, _ mode: TraceEvent.ScheduleMode, delay: Int64, firstDelay: Int64? = nil,
    callSite: CallSite, work: @escaping @Sendable () -> Void,
    handOver: (RecordedAction) -> SchedulerTask
  ) -> SchedulerTask {
    let context = WorkContext.current
    return withCurrentBuffer { buffer in
      var action = writeSchedule(
        on: scheduler, mode, delay: delay, firstDelay: firstDelay, callSite: callSite,
        work: work, context: context, inline: false, task: nil, buffer: buffer)
      let task = action.whileUnpublished(on: buffer) { handOver(action) }
      // Work that already ran inline cannot be cancelled in any way that matters.
      if task.isFinished, isKnownUniquelyReferenced(&action) {
        action.becomeSpare(in: buffer)
        return task
      }
      action.holdCore()
      if !task.isFinished { task.whenCancelled(notify: action) }
      return task
    }
  }

  /// Records a `sync` schedule and runs `body` with its action, which then goes back to the
  /// thread's buffer unless something kept it.
  @inline(__always)
  func recordSync<T, E: Error>(
    on scheduler: UInt32, callSite: CallSite, inline: Bool,
    _ body: (RecordedAction) throws(E) -> T
  ) throws(E) -> T {
    let context = WorkContext.current
    return try withCurrentBuffer { (buffer) throws(E) -> T in
      var action = writeSchedule(
        on: scheduler, .sync, delay: 0, firstDelay: nil, callSite: callSite, work: nil,
        context: context, inline: inline, task: nil, buffer: buffer)
      defer {
        if isKnownUniquelyReferenced(&action) {
          action.becomeSpare(in: buffer)
        } else {
          action.holdCore()
        }
      }
      return try body(action)
    }
  }

  /// Writes the `schedule` line (and a `work` line for a `context`) and returns its action: the
  /// buffer's spare one if it has one, else a new one, neither holding the core.
  ///
  /// Callers read `context` (``WorkContext/current``) before they take the thread's buffer: the
  /// task-local read is an opaque call, and made in here it made the compiler keep more
  /// references alive around it.
  @inline(__always)
  private func writeSchedule(
    on scheduler: UInt32, _ mode: TraceEvent.ScheduleMode, delay: Int64, firstDelay: Int64?,
    callSite: CallSite?, work body: (@Sendable () -> Void)?, context: WorkContext?, inline: Bool,
    task: UInt64?, buffer: ThreadBuffer
  ) -> RecordedAction {
    let id = buffer.makeActionID()
    let site = callSite.map { buffer.siteID($0) } ?? 0
    // Named work: its record is queued for the writer before the stamp, which must stay short.
    let work = context.map { workIndex(for: $0) }
    let taskName = task.flatMap(TaskIdentity.name(of:)).map { taskNameIndex(for: $0) } ?? 0
    appendSchedule(
      id: id, on: scheduler, mode, delay: delay, firstDelay: firstDelay, site: site,
      inline: inline, task: task, taskName: taskName, work: work, buffer: buffer)
    let isRepeating = mode == .repeating
    if let spare = buffer.spareAction {
      buffer.spareAction = nil
      spare.reuse(id: id, isRepeating: isRepeating, work: body, context: context)
      return spare
    }
    return RecordedAction(
      id: id, scheduledOn: buffer, isRepeating: isRepeating, core: self, work: body,
      context: context)
  }

  /// Appends a `schedule` line for action `id` to `buffer`, with its `task` and `work` lines
  /// when it has them, all at one time. The parent is the action running on the thread unless
  /// `parent` says otherwise. The first run is due `firstDelay` (else `delay`) after the line,
  /// or at `dueAt` (trace time, never before the line) when the caller knows the deadline itself.
  @inline(__always)
  func appendSchedule(
    id: UInt32, on scheduler: UInt32, _ mode: TraceEvent.ScheduleMode, delay: Int64,
    firstDelay: Int64?, site: UInt32, inline: Bool, task: UInt64?, taskName: UInt32,
    work: UInt32?, parent: UInt32? = nil, dueAt: Int64? = nil, buffer: ThreadBuffer
  ) {
    // The format's spans and times stop at 2^62 - 1 ns: a delay of `.seconds(.max)` is written
    // as the longest the format holds, not as a value the reader would reject.
    let limit = TraceLimits.maximumTime
    let written = min(max(delay, 0), limit)
    let untilFirst = min(max(firstDelay ?? delay, 0), limit)
    buffer.stamp {
      let time = buffer.now()
      buffer.append(
        .schedule(
          time: time, action: id, scheduler: scheduler, mode: mode, delay: written,
          due: min(dueAt.map { max($0, time) } ?? time &+ untilFirst, limit),
          thread: buffer.threadID,
          parent: parent ?? buffer.currentAction, site: site, inline: inline))
      if let task {
        var line = TraceEvent.task(time: time, action: id, task: task)
        line.site = taskName  // for the writer: which name to write on the line
        buffer.append(line)
      }
      if let work { buffer.append(.work(time: time, action: id, work: work)) }
    }
  }
}
