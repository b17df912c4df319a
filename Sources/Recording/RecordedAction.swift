import Scheduling
import Synchronization
import TraceFormat

/// The recorder's view of one scheduled action: its id, where it was scheduled, and a small
/// state machine that makes "cancelled before it started" and "began" mutually exclusive.
///
/// Without it, a cancel racing with the start of a run on another thread could be recorded as
/// "not started" while the action still began, and the trace would contradict itself.
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

  let id: UInt32
  let schedulingThread: UInt32
  /// The scheduling thread's buffer, which the core owns for as long as this action holds the
  /// core: read only on that thread, by ``whileUnpublished(_:)``.
  private unowned(unsafe) let schedulingBuffer: ThreadBuffer
  let isRepeating: Bool
  private let state = Atomic<UInt8>(State.fresh.rawValue)
  private let runs = Atomic<UInt32>(0)

  let core: RecorderCore
  /// The wrapped work (nil for `sync`, whose work runs in place). A one-shot action lets go of it
  /// when its run starts: the observer of a handle that is never cancelled must not keep what the
  /// work captured. Only `fire()` touches it, and a one-shot action fires once, so it needs no
  /// lock; nor a dynamic exclusivity check on each run (see ``ThreadBuffer``).
  @exclusivity(unchecked) nonisolated(unsafe) private var work: (@Sendable () -> Void)?

  init(
    id: UInt32, scheduledOn buffer: ThreadBuffer, isRepeating: Bool, core: RecorderCore,
    work: (@Sendable () -> Void)?
  ) {
    self.id = id
    schedulingThread = buffer.threadID
    schedulingBuffer = buffer
    self.isRepeating = isRepeating
    self.core = core
    self.work = work
  }

  /// Runs `body`, the call that hands this action to the wrapped scheduler, on the scheduling
  /// thread, marking the action unpublished meanwhile: its handle does not exist until the call
  /// returns, so nothing can cancel it, and a run inside the call (an immediate scheduler's)
  /// needs none of the atomic steps that keep a cancel and a begin apart.
  @inline(__always)
  func whileUnpublished<R>(_ body: () throws -> R) rethrows -> R {
    let outer = schedulingBuffer.unpublished
    schedulingBuffer.unpublished = id
    defer { schedulingBuffer.unpublished = outer }
    return try body()
  }

  /// One run as the wrapped scheduler performs it: begin, the work, end — unless cancelled
  /// first, in which case the work does not run at all.
  func fire() {
    guard let work else { return }
    if !isRepeating { self.work = nil }
    let buffer = core.currentBuffer()
    guard let (run, start) = beginRun(on: buffer) else { return }
    work()
    endRun(run, startedAt: start, on: buffer)
  }

  /// Whether this action runs inside the call that schedules it, on the thread that schedules
  /// it (see ``whileUnpublished(_:)``): only that thread's buffer can name it. A run that
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
      let start = core.now()
      let started = isUnpublished(on: buffer) ? beginUnpublished() : begin()
      guard let run = started ?? (force ? 1 : nil) else { return nil }
      if buffer.threadID != schedulingThread {
        buffer.append(.hop(time: start, action: id, from: schedulingThread, to: buffer.threadID))
      }
      buffer.append(.begin(time: start, action: id, thread: buffer.threadID, run: run))
      buffer.running.append(id)
      return (run, start)
    }
  }

  /// Records the end of a run.
  @inline(__always)
  func endRun(_ run: UInt32, startedAt start: Int64, on buffer: ThreadBuffer) {
    buffer.running.removeLast()
    buffer.stamp {
      let end = core.now()
      buffer.append(
        .end(time: end, action: id, thread: buffer.threadID, run: run, duration: end &- start))
    }
    if isUnpublished(on: buffer) { endUnpublished() } else { self.end() }
  }

  /// Records the cancel, from the cancelling thread, with who cancelled and whether it started.
  /// The state changes before the clock is read (see ``beginRun(on:force:)``).
  func schedulerTaskCancelled() {
    let buffer = core.currentBuffer()
    buffer.stamp {
      let started = cancel()
      buffer.append(
        .cancel(
          time: core.now(), action: id, thread: buffer.threadID, by: buffer.currentAction,
          started: started))
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
    return runs.add(1, ordering: .relaxed).newValue
  }

  /// ``begin()`` with no other thread to race: plain loads and stores (relaxed atomics are
  /// plain moves), where `begin` takes two locked read-modify-writes. A later cancel, on any
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

  /// Ends a run: a repeating action waits for its next run, unless cancelled meanwhile.
  func end() {
    let next = isRepeating ? State.idle : State.finished
    _ = state.compareExchange(
      expected: State.running.rawValue, desired: next.rawValue, ordering: .acquiringAndReleasing)
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
  /// and cancel. Without a call site, the line has none (`site` 0). With `task` (a Swift task's
  /// runtime id), a `task` line follows the schedule: the action is that task's work.
  func recordSchedule(
    on scheduler: UInt32, _ mode: TraceEvent.ScheduleMode, delay: Int64, firstDelay: Int64? = nil,
    callSite: CallSite?, work: (@Sendable () -> Void)?, inline: Bool = false, task: UInt64? = nil
  ) -> RecordedAction {
    let buffer = currentBuffer()
    let id = buffer.makeActionID()
    let site = callSite.map { buffer.siteID($0) } ?? 0
    // The format's spans and times stop at 2^62 - 1 ns: a delay of `.seconds(.max)` is written
    // as the longest the format holds, not as a value the reader would reject.
    let limit = TraceLimits.maximumTime
    let written = min(max(delay, 0), limit)
    let untilFirst = min(max(firstDelay ?? delay, 0), limit)
    buffer.stamp {
      let time = now()
      buffer.append(
        .schedule(
          time: time, action: id, scheduler: scheduler, mode: mode, delay: written,
          due: min(time &+ untilFirst, limit), thread: buffer.threadID,
          parent: buffer.currentAction, site: site, inline: inline))
      if let task { buffer.append(.task(time: time, action: id, task: task)) }
    }
    return RecordedAction(
      id: id, scheduledOn: buffer, isRepeating: mode == .repeating, core: self, work: work)
  }
}
