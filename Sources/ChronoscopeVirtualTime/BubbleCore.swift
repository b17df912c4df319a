import CChronoscopeSlots
import ChronoscopeCore
import ChronoscopeScheduling
import Foundation
import Synchronization

/// What a ``TimeBubble`` holds for the slots' replacements: its timeline, the Dispatch work and
/// timers handed to it, and who waits for it to be idle. The replacements reach it through the
/// thread's current bubble (`chronoscope_slots_current`), an unretained pointer that is set only
/// while a thread drives the bubble, and so only while the bubble lives.
final class BubbleCore: Sendable {
  let timeline: VirtualClock
  /// What makes the schedulers standing for Dispatch queues: virtual ones on `timeline`, recorded
  /// when a test keeps its trace.
  let factory: any SchedulerFactory
  /// Where the runtime's timed wake-ups (`Task.sleep`) go.
  let sleeps: any Scheduler
  private let state = Mutex(State())

  private struct State {
    var schedulers: [UInt: any Scheduler] = [:]
    /// Work held and not run, newest first: a list threaded through the work itself, so that
    /// holding and running one costs no hashing and no table growth (a table of pending work was
    /// an eighth of a bubble's `async`; Benchmarks/README.md, "bubble").
    var pending: HeldWork?
    /// Event handlers set from bubble work, by source.
    var handlers: [UInt: Handler] = [:]
    var timers: [UInt: TimerState] = [:]
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    var notifications: [GroupNotification] = []
    var blockingFailure: String?
    var closed = false

    /// Takes `held` out of the pending list; false if it was not in it (handed back already).
    mutating func unlink(_ held: HeldWork) -> Bool {
      guard held.listed else { return false }
      held.listed = false
      if let previous = held.previous { previous.next = held.next } else { pending = held.next }
      held.next?.previous = held.previous
      held.next = nil
      held.previous = nil
      return true
    }

    /// Empties the pending list, oldest first.
    mutating func takeAllPending() -> [HeldWork] {
      var taken: [HeldWork] = []
      while let held = pending, unlink(held) { taken.append(held) }
      return taken.reversed()
    }
  }

  /// A `DispatchGroup.notify` from bubble work, waiting for its group to empty.
  private struct GroupNotification: @unchecked Sendable {
    // @unchecked Sendable: the group is retained by the bubble while it waits, and only passed
    // to libdispatch, which is thread-safe.
    let group: UnsafeMutableRawPointer
    let work: RawWork
  }

  /// A source's event handler: a block the bubble copied, or a function called with the source's
  /// context.
  enum Handler: @unchecked Sendable {
    // @unchecked Sendable: the block is a copy only the bubble releases, run on its driving thread.
    case block(UnsafeMutableRawPointer)
    case function(@convention(c) (UnsafeMutableRawPointer?) -> Void)
  }

  /// A timer source the bubble fires.
  private struct TimerState {
    var due: Int64?
    var interval: Int64?
    var leeway: UInt64
    var activated = false
    var suspensions = 0
    var cancelled = false
    var scheduled: SchedulerTask?
    let scheduler: any Scheduler
  }

  /// How long bubble work may block the bubble's thread (the bubble's stuck limit).
  let stuckLimit: Duration
  /// The router of the bubble's clock, set once it is made: where jobs of its tasks go.
  let router = Mutex<JobRouter?>(nil)

  init(timeline: VirtualClock, factory: (any SchedulerFactory)?, stuckLimit: Duration) {
    self.timeline = timeline
    self.stuckLimit = stuckLimit
    let factory = factory ?? VirtualSchedulerFactory(clock: timeline)
    self.factory = factory
    sleeps = factory.makeConcurrent(label: "Task.sleep")
  }

  // MARK: Time

  /// The bubble's reading of a POSIX clock.
  func read(_ clockID: Int32, into time: inout timespec) -> Int32 {
    let elapsed = timeline.now.clampedNanoseconds
    let base =
      clockID == CLOCK_REALTIME || clockID == CLOCK_REALTIME_COARSE
      ? Self.realTimeBase : Self.uptimeBase
    let value = base.adding(saturating: elapsed)
    time.tv_sec = Int(value / 1_000_000_000)
    time.tv_nsec = Int(value % 1_000_000_000)
    return 0
  }

  /// How long the bubble's main-queue work may wait for the main queue, at least: the main
  /// thread is the process's, and other tests running in parallel (their main-actor code) hold it
  /// for seconds at a time; one second was too short for a full parallel run here.
  static let mainQueuePatience: Duration = .seconds(30)

  static let uptimeBase: Int64 = TimeBubble.uptimeStart.clampedNanoseconds
  /// 2001-01-01 00:00:00 UTC in nanoseconds since 1970.
  static let realTimeBase: Int64 = 978_307_200 * 1_000_000_000

  /// The instant on the bubble's timeline (ns since it started) a `dispatch_time_t` names; nil for
  /// `DISPATCH_TIME_FOREVER`. libdispatch encodes uptime (`CLOCK_MONOTONIC`) as a plain count,
  /// monotonic time (`CLOCK_BOOTTIME`) with bit 63 set, and wall time as a negative count (bits 63
  /// and 62 set); the bubble reads all three from its one timeline.
  func instant(of when: UInt64) -> Int64? {
    if when == ~0 { return nil }
    let now = timeline.now.clampedNanoseconds
    if when == 0 { return now }
    let absolute: Int64
    let base: Int64
    if when & (1 << 63) == 0 {
      absolute = Int64(bitPattern: when)
      base = Self.uptimeBase
    } else if when & (1 << 62) == 0 {
      absolute = Int64(bitPattern: when & ~(1 << 63))
      base = Self.uptimeBase
    } else {
      absolute = Int64(bitPattern: 0 &- when)
      base = Self.realTimeBase
    }
    return max(absolute.subtracting(saturating: base), now)
  }

  // MARK: Work

  /// The virtual scheduler standing for a Dispatch queue: the main queue's one, a concurrent one
  /// per global queue, a serial one per queue the code made (whose attributes the bubble cannot
  /// read: a concurrent queue made by the code runs its work in order, one at a time).
  func scheduler(for queue: UnsafeMutableRawPointer?) -> any Scheduler {
    guard let queue else { return sleeps }
    let key = UInt(bitPattern: queue)
    if let known = state.withLock({ $0.schedulers[key] }) { return known }
    let label = String(cString: chronoscope_slots_queue_label(queue))
    let made: any Scheduler =
      switch chronoscope_slots_queue_kind(queue) {
      case 1: factory.main
      case 2: factory.makeConcurrent(label: label)
      default: factory.makeSerial(label: label)
      }
    return state.withLock { state in
      if let raced = state.schedulers[key] { return raced }
      state.schedulers[key] = made
      return made
    }
  }

  /// Takes a piece of work from a replacement; false when the bubble has ended (the replacement
  /// then calls the real function).
  func take(
    kind: chronoscope_slots_work_kind, when: UInt64, queue: UnsafeMutableRawPointer?,
    group: UnsafeMutableRawPointer?, block: UnsafeMutableRawPointer?,
    context: UnsafeMutableRawPointer?,
    function: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
  ) -> Bool {
    let copy = block.flatMap { chronoscope_slots_copy_block($0) }
    if kind == chronoscope_slots_group_notify, let group, let copy {
      let work = RawWork(queue: queue, group: nil, block: copy, context: nil, function: nil)
      let taken = state.withLock { state -> Bool in
        guard !state.closed else { return false }
        state.notifications.append(GroupNotification(group: group, work: work))
        return true
      }
      if taken { chronoscope_slots_retain(group) } else { work.releaseCopy() }
      return taken
    }
    let inGroup: UnsafeMutableRawPointer? = kind == chronoscope_slots_group ? group : nil
    let given = RawWork(
      queue: queue, group: inGroup, block: copy, context: context, function: function)
    let now = timeline.now.clampedNanoseconds
    // Work for the main queue runs on the main thread, as the bubble's, while its driving thread
    // waits: where main-actor code (and code that assumes it) must run, and alone.
    let isMain = queue != nil && queue == chronoscope_slots_main_queue()
    let work = isMain ? mainThread(given) : given
    switch kind {
    case chronoscope_slots_async_function:
      // The runtime's own enqueues onto Dispatch queues from bubble work: main-actor jobs run on
      // the main thread as the bubble's. A job it hands its global executor's queue directly,
      // past the enqueue hook (a yield's, a sleep's), goes to the bubble's job queue if the hook
      // would have sent it there — not a job of a task no bubble owns. Any other queue (an
      // actor on a `DispatchSerialQueue`) is not the bubble's.
      if isMain { return enqueue(work, due: now, on: factory.main, as: "MainActor") }
      work.releaseCopy()
      guard let queue, let context, chronoscope_slots_queue_kind(queue) == 3,
        let router = router.withLock({ $0 })
      else { return false }
      return GlobalJobRouting.takeDirectEnqueue(
        unsafeBitCast(context, to: UnownedJob.self), for: router)
    case chronoscope_slots_after_function:
      return enqueue(
        work, due: instant(of: when), on: isMain ? factory.main : sleeps, as: "Task.sleep")
    case chronoscope_slots_after:
      return enqueue(work, due: instant(of: when), on: scheduler(for: queue), as: "asyncAfter")
    case chronoscope_slots_group:
      if let group { chronoscope_slots_group_enter(group) }
      return enqueue(work, due: now, on: scheduler(for: queue), as: "async(group:)")
    case chronoscope_slots_barrier:
      return enqueue(work, due: now, on: scheduler(for: queue), as: "async(flags: .barrier)")
    default:
      return enqueue(work, due: now, on: scheduler(for: queue), as: "async")
    }
  }

  /// `work` (for the main queue) as the bubble runs it: on the main thread, as its work, while the
  /// thread that drives the bubble waits — so that it runs where main-actor code must, and alone,
  /// as all bubble work does.
  private func mainThread(_ work: RawWork) -> RawWork {
    work.onMain(
      bubble: Unmanaged.passUnretained(self).toOpaque(),
      patience: max(stuckLimit, Self.mainQueuePatience),
      onTimeout: { [self] in
        state.withLock { state in
          if state.blockingFailure == nil {
            state.blockingFailure =
              "main-actor work of the bubble waited \(max(stuckLimit, Self.mainQueuePatience)) for the main queue to run it (is the main thread blocked, or is nothing servicing the main queue?); the bubble went on without it"
          }
        }
      })
  }

  /// Holds `work` until `due` (nil: never) on `scheduler`; false when the bubble has ended.
  private func enqueue(
    _ work: RawWork, due: Int64?, on scheduler: any Scheduler, as name: StaticString
  ) -> Bool {
    let held = HeldWork(work: work, due: due)
    let accepted = state.withLock { state -> Bool in
      guard !state.closed else { return false }
      held.next = state.pending
      state.pending?.previous = held
      state.pending = held
      return true
    }
    guard accepted else {
      work.releaseCopy()
      if let group = work.group { chronoscope_slots_group_leave(group) }
      return false
    }
    guard let due else { return true }
    let site = CallSite(fileID: "Dispatch", line: 0, function: name)
    _ = scheduler.scheduleAt(SchedulerInstant(nanoseconds: due), from: site) { [self] in
      guard state.withLock({ $0.unlink(held) }) else { return }
      held.work.run()
    }
    return true
  }

  /// Queues the blocks of `notify` calls whose groups are empty now, on their queues; whether
  /// any was. The bubble looks when nothing else of it can run: a notification runs after the
  /// work that emptied its group, at the same instant, as libdispatch runs it asynchronously.
  func notifyEmptiedGroups() -> Bool {
    let ready = state.withLock { state -> [GroupNotification] in
      var ready: [GroupNotification] = []
      state.notifications.removeAll { notification in
        guard chronoscope_slots_group_is_empty(notification.group) != 0 else { return false }
        ready.append(notification)
        return true
      }
      return ready
    }
    for notification in ready {
      _ = enqueue(
        notification.work, due: timeline.now.clampedNanoseconds,
        on: scheduler(for: notification.work.queue), as: "notify")
      chronoscope_slots_release_object(notification.group)
    }
    return !ready.isEmpty
  }

  // MARK: Timer sources

  /// A timer source's schedule set from bubble work (or again on a source the bubble fires).
  func setTimer(
    _ source: UnsafeMutableRawPointer, start: UInt64, interval: UInt64, leeway: UInt64
  ) -> Bool {
    let key = UInt(bitPattern: source)
    let due = instant(of: start)
    let every: Int64? = interval == ~0 || interval == 0 ? nil : Int64(clamping: interval)
    let (accepted, old) = state.withLock { state -> (Bool, SchedulerTask?) in
      guard !state.closed else { return (false, nil) }
      if var timer = state.timers[key] {
        let old = timer.scheduled
        timer.scheduled = nil
        timer.due = due
        timer.interval = every
        timer.leeway = leeway
        state.timers[key] = timer
        return (true, old)
      }
      state.timers[key] = TimerState(
        due: due, interval: every, leeway: leeway,
        scheduler: factory.makeSerial(label: "DispatchSourceTimer"))
      return (true, nil)
    }
    guard accepted else { return false }
    old?.cancel()
    if old == nil, BubbleSlots.track(source, for: self) { chronoscope_slots_retain(source) }
    arm(key)
    return true
  }

  /// Keeps the event handler set from bubble work for a source it may fire.
  func setHandler(_ handler: Handler, for source: UnsafeMutableRawPointer) {
    let key = UInt(bitPattern: source)
    let copied: Handler =
      switch handler {
      case .block(let block): .block(chronoscope_slots_copy_block(block))
      case .function: handler
      }
    let old = state.withLock { state -> Handler? in
      guard !state.closed else { return copied }
      defer { state.handlers[key] = copied }
      return state.handlers[key]
    }
    if case .block(let block) = old { chronoscope_slots_release_block(block) }
  }

  /// A call on a source the bubble fires, from any thread.
  func sourceOperation(_ source: UnsafeMutableRawPointer, _ operation: Int32) {
    let key = UInt(bitPattern: source)
    var ended = false
    let cancelled = state.withLock { state -> SchedulerTask? in
      guard var timer = state.timers[key] else { return nil }
      var unschedule: SchedulerTask?
      switch operation {
      case Int32(chronoscope_slots_resume.rawValue):
        if timer.activated { timer.suspensions = max(timer.suspensions - 1, 0) }
        timer.activated = true
      case Int32(chronoscope_slots_activate.rawValue):
        timer.activated = true
      case Int32(chronoscope_slots_suspend.rawValue):
        timer.suspensions += 1
        unschedule = timer.scheduled
        timer.scheduled = nil
      case Int32(chronoscope_slots_cancel.rawValue):
        timer.cancelled = true
        unschedule = timer.scheduled
        timer.scheduled = nil
        state.timers[key] = nil
        ended = true
        return unschedule
      default:
        return nil
      }
      state.timers[key] = timer
      return unschedule
    }
    cancelled?.cancel()
    if ended {
      BubbleSlots.untrack(source)
      chronoscope_slots_release_object(source)
    } else {
      arm(key)
    }
  }

  /// Schedules a timer's next firing if it is armed: activated, not suspended, with a deadline.
  private func arm(_ key: UInt) {
    let plan = state.withLock { state -> (Int64, any Scheduler)? in
      guard let timer = state.timers[key], timer.activated, timer.suspensions == 0,
        !timer.cancelled, timer.scheduled == nil, let due = timer.due
      else { return nil }
      return (due, timer.scheduler)
    }
    guard let (due, scheduler) = plan else { return }
    let task = scheduler.scheduleAt(
      SchedulerInstant(nanoseconds: due),
      from: CallSite(fileID: "Dispatch", line: 0, function: "DispatchSourceTimer")
    ) { [self] in fire(key) }
    let stale = state.withLock { state -> Bool in
      guard var timer = state.timers[key], timer.scheduled == nil else { return true }
      timer.scheduled = task
      state.timers[key] = timer
      return false
    }
    if stale { task.cancel() }
  }

  /// Fires a timer: its handler runs here, on the thread driving the bubble; a repeating timer
  /// is due again one interval after this deadline (deadlines it missed are coalesced into this
  /// firing, as Dispatch does); a one-shot timer is done.
  private func fire(_ key: UInt) {
    let now = timeline.now.clampedNanoseconds
    let fired = state.withLock { state -> (Handler?, Bool)? in
      guard var timer = state.timers[key], !timer.cancelled else { return nil }
      timer.scheduled = nil
      if let interval = timer.interval, let due = timer.due {
        var next = due.adding(saturating: max(interval, 1))
        if next <= now {
          let missed = (now - next) / max(interval, 1) + 1
          next = next.adding(
            saturating: missed.multipliedReportingOverflow(by: interval).partialValue)
        }
        timer.due = next
        state.timers[key] = timer
        return (state.handlers[key], false)
      }
      // A one-shot timer is done. The code's own (a block handler: `DispatchSourceTimer`) may be
      // scheduled again: it stays, fired, until cancelled. The runtime's (a function handler:
      // `Task.sleep` with a tolerance) is released by its handler and never used again.
      let handler = state.handlers[key]
      if case .block = handler {
        timer.due = nil
        state.timers[key] = timer
        return (handler, false)
      }
      state.timers[key] = nil
      return (handler, true)
    }
    guard let (handler, done) = fired else { return }
    guard let source = UnsafeMutableRawPointer(bitPattern: key) else { return }
    if done { BubbleSlots.untrack(source) }
    switch handler {
    case .block(let block): chronoscope_slots_run_block(block, 0)
    case .function(let function): function(chronoscope_slots_context(source))
    case nil: break
    }
    if done {
      chronoscope_slots_release_object(source)
    } else {
      arm(key)
    }
  }

  // MARK: Blocking waits

  /// What bubble work blocked its thread on.
  enum BlockingWait: String {
    case semaphore = "DispatchSemaphore.wait"
    case group = "DispatchGroup.wait"
  }

  /// How long bubble work may block the bubble's one thread: nothing else of the bubble runs
  /// meanwhile, and its time cannot move, so only a thread outside it can end the wait. As long
  /// as the wait asked, in real time, but never more than the stuck limit.
  func blocking(_ wait: BlockingWait, until when: UInt64) -> UInt64 {
    let limit = stuckLimit.clampedNanoseconds
    guard let due = instant(of: when) else { return Self.realUptime(in: limit) }
    return Self.realUptime(in: min(due - timeline.now.clampedNanoseconds, limit))
  }

  /// A blocking wait ended; one that waited for ever and gave up is the bubble's failure (the code
  /// then went on as if it had been signalled).
  func unblocked(_ wait: BlockingWait, until when: UInt64, timedOut: Bool) {
    guard timedOut, when == ~0 else { return }
    state.withLock { state in
      if state.blockingFailure == nil {
        state.blockingFailure =
          "\(wait.rawValue)() in the bubble's work blocked its one thread for \(stuckLimit), waiting for work only that thread could run (or for a thread outside the bubble that never came); it was ended, and the code went on as if it had been signalled. Use notify(queue:) or await instead."
      }
    }
  }

  /// Why the bubble failed while its work ran, if it did: a blocking wait it had to end.
  var blockingFailure: String? { state.withLock { $0.blockingFailure } }

  // MARK: Idle waiters

  func addIdleWaiter(_ continuation: CheckedContinuation<Void, Never>) {
    state.withLock { $0.idleWaiters.append(continuation) }
  }

  var hasIdleWaiters: Bool { state.withLock { !$0.idleWaiters.isEmpty } }

  /// Resumes the tasks waiting for the bubble to be idle, inside a drive of `clock` (their
  /// resumptions are the bubble's work); false when none waits.
  func resumeIdleWaiters(in clock: VirtualAsyncClock) -> Bool {
    let waiters = state.withLock { state in
      defer { state.idleWaiters = [] }
      return state.idleWaiters
    }
    guard !waiters.isEmpty else { return false }
    clock.drive { for waiter in waiters { waiter.resume() } }
    return true
  }

  func waitingDescription() -> [String] {
    state.withLock { state in
      let timers = state.timers.values.filter { !$0.cancelled }
      let suspended = timers.filter { $0.suspensions > 0 || !$0.activated }.count
      return suspended > 0
        ? ["\(suspended) timer source(s) suspended or never resumed"] : []
    }
  }

  // MARK: Ending

  /// Stops taking work, and sends what the bubble holds to Dispatch, due as far from now in real
  /// time as it was in the bubble's; timers go back to libdispatch's own firing the same way.
  func close() {
    let now = timeline.now.clampedNanoseconds
    let (pending, timers, handlers, waiters, notifications) = state.withLock { state in
      state.closed = true
      defer {
        state.pending = nil
        state.timers = [:]
        state.handlers = [:]
        state.idleWaiters = []
        state.notifications = []
      }
      return (
        state.takeAllPending(), state.timers, state.handlers, state.idleWaiters,
        state.notifications
      )
    }
    for notification in notifications {
      if let block = notification.work.block {
        chronoscope_slots_real_group_notify(notification.group, notification.work.queue, block)
        chronoscope_slots_release_block(block)
      }
      chronoscope_slots_release_object(notification.group)
    }
    for item in pending { item.work.handBack(after: item.due.map { max($0 - now, 0) }) }
    for (key, timer) in timers {
      guard let source = UnsafeMutableRawPointer(bitPattern: key) else { continue }
      timer.scheduled?.cancel()
      BubbleSlots.untrack(source)
      if let due = timer.due {
        chronoscope_slots_real_set_timer(
          source, Self.realUptime(in: max(due - now, 0)),
          timer.interval.map { UInt64($0) } ?? ~0, timer.leeway)
      }
      chronoscope_slots_release_object(source)
    }
    for (_, handler) in handlers {
      if case .block(let block) = handler { chronoscope_slots_release_block(block) }
    }
    for waiter in waiters { waiter.resume() }
  }

  /// A real `dispatch_time_t` (uptime) `nanoseconds` from now.
  static func realUptime(in nanoseconds: Int64) -> UInt64 {
    var time = timespec()
    _ = chronoscope_slots_real_clock_gettime(CLOCK_MONOTONIC, &time)
    let now = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000).partialValue
      .adding(saturating: Int64(time.tv_nsec))
    return UInt64(now.adding(saturating: nanoseconds))
  }
}

/// A piece of Dispatch work the bubble took: a copied block, or a function and its context.
private struct RawWork: @unchecked Sendable {
  /// Where the function runs: where the work was given, or on the main thread for the bubble.
  private var mainThread:
    (bubble: UnsafeMutableRawPointer, patience: Duration, onTimeout: @Sendable () -> Void)?

  init(
    queue: UnsafeMutableRawPointer?, group: UnsafeMutableRawPointer?,
    block: UnsafeMutableRawPointer?, context: UnsafeMutableRawPointer?,
    function: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
  ) {
    self.queue = queue
    self.group = group
    self.block = block
    self.context = context
    self.function = function
  }

  func onMain(
    bubble: UnsafeMutableRawPointer, patience: Duration, onTimeout: @escaping @Sendable () -> Void
  ) -> RawWork {
    var work = self
    work.mainThread = (bubble, patience, onTimeout)
    return work
  }

  // @unchecked Sendable: raw pointers the bubble owns (the block is its copy), used on the thread
  // driving it or, once, when the bubble ends.
  let queue: UnsafeMutableRawPointer?
  let group: UnsafeMutableRawPointer?
  let block: UnsafeMutableRawPointer?
  let context: UnsafeMutableRawPointer?
  let function: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

  func run() {
    if let block, let main = mainThread {
      let ran = chronoscope_slots_run_on_main(
        main.bubble, block, chronoscope_slots_invoke_block, main.patience.clampedNanoseconds)
      if ran == 0 { main.onTimeout() }
    } else if let block {
      chronoscope_slots_run_block(block, 1)
    } else if let function, let main = mainThread {
      let ran = chronoscope_slots_run_on_main(
        main.bubble, context, function, main.patience.clampedNanoseconds)
      if ran == 0 { main.onTimeout() }
    } else if let function {
      function(context)
    }
    if let group { chronoscope_slots_group_leave(group) }
  }

  func releaseCopy() {
    if let block { chronoscope_slots_release_block(block) }
  }

  /// Sends the work to Dispatch, due `remaining` ns from now (nil: never, as it was asked).
  func handBack(after remaining: Int64?) {
    let when = remaining.map { BubbleCore.realUptime(in: $0) } ?? ~0
    if let block {
      if let group {
        let leave: @convention(block) () -> Void = {
          chronoscope_slots_run_block(block, 1)
          chronoscope_slots_group_leave(group)
        }
        chronoscope_slots_real_after(
          when, queue, unsafeBitCast(leave, to: UnsafeMutableRawPointer.self))
      } else {
        chronoscope_slots_real_after(when, queue, block)
        chronoscope_slots_release_block(block)
      }
    } else if let function {
      chronoscope_slots_real_after_f(when, queue, context, function)
    }
  }
}

/// Work a bubble holds until it runs, or until the bubble ends and hands it back: a node of the
/// bubble's pending list.
private final class HeldWork: @unchecked Sendable {
  // @unchecked Sendable: `next`, `previous` and `listed` change only under the bubble's state lock;
  // `work` and `due` never change.
  let work: RawWork
  let due: Int64?
  var next: HeldWork?
  /// Not retained: the node before holds this one through `next`.
  unowned(unsafe) var previous: HeldWork?
  var listed = true

  init(work: RawWork, due: Int64?) {
    self.work = work
    self.due = due
  }
}
