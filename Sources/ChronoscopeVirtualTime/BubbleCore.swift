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
  /// Where the runtime's timed wake-ups (`Task.sleep`) go.
  let sleeps: VirtualScheduler
  private let state = Mutex(State())

  private struct State {
    var schedulers: [UInt: VirtualScheduler] = [:]
    var pending: [UInt64: Pending] = [:]
    var nextPending: UInt64 = 0
    /// Event handlers set from bubble work, by source.
    var handlers: [UInt: Handler] = [:]
    var timers: [UInt: TimerState] = [:]
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    var closed = false
  }

  /// Work the bubble holds and has not run, with what sends it to Dispatch if the bubble ends
  /// first.
  private struct Pending {
    var task: SchedulerTask?
    /// Sends the work to Dispatch, due `remaining` nanoseconds from now (nil: never).
    let handBack: @Sendable (_ remaining: Int64?) -> Void
    let due: Int64?
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
    let scheduler: VirtualScheduler
  }

  init(timeline: VirtualClock) {
    self.timeline = timeline
    sleeps = VirtualScheduler(label: "Task.sleep", kind: .concurrent, clock: timeline)
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
  func scheduler(for queue: UnsafeMutableRawPointer?) -> VirtualScheduler {
    guard let queue else { return sleeps }
    let key = UInt(bitPattern: queue)
    if let known = state.withLock({ $0.schedulers[key] }) { return known }
    let made: VirtualScheduler
    switch chronoscope_slots_queue_kind(queue) {
    case 1: made = timeline.mainScheduler()
    case 2:
      made = VirtualScheduler(
        label: String(cString: chronoscope_slots_queue_label(queue)), kind: .concurrent,
        clock: timeline)
    default:
      made = VirtualScheduler(
        label: String(cString: chronoscope_slots_queue_label(queue)), kind: .serial,
        clock: timeline)
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
    let work = RawWork(
      queue: queue, group: group,
      block: block.map { chronoscope_slots_copy_block($0) }, context: context, function: function)
    let due: Int64?
    let name: StaticString
    switch kind {
    case chronoscope_slots_after_function:
      due = instant(of: when)
      name = "Task.sleep"
    case chronoscope_slots_after:
      due = instant(of: when)
      name = "asyncAfter"
    case chronoscope_slots_group:
      due = timeline.now.clampedNanoseconds
      name = "async(group:)"
      if let group { chronoscope_slots_group_enter(group) }
    case chronoscope_slots_barrier:
      due = timeline.now.clampedNanoseconds
      name = "async(flags: .barrier)"
    default:
      due = timeline.now.clampedNanoseconds
      name = "async"
    }
    let scheduler =
      kind == chronoscope_slots_after_function ? sleeps : self.scheduler(for: queue)
    let site = CallSite(fileID: "Dispatch", line: 0, function: name)
    let accepted = state.withLock { state -> UInt64? in
      guard !state.closed else { return nil }
      state.nextPending += 1
      state.pending[state.nextPending] = Pending(
        task: nil, handBack: { remaining in work.handBack(after: remaining) }, due: due)
      return state.nextPending
    }
    guard let id = accepted else {
      work.releaseCopy()
      if let group { chronoscope_slots_group_leave(group) }
      return false
    }
    guard let due else { return true }
    let task = timeline.schedule(
      { [self] in
        guard state.withLock({ $0.pending.removeValue(forKey: id) }) != nil else { return }
        work.run()
      }, on: scheduler, at: due, callSite: site)
    state.withLock { state in
      if state.pending[id] != nil { state.pending[id]?.task = task }
    }
    return true
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
        scheduler: VirtualScheduler(label: "timer", kind: .serial, clock: timeline))
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
    let plan = state.withLock { state -> (Int64, VirtualScheduler)? in
      guard let timer = state.timers[key], timer.activated, timer.suspensions == 0,
        !timer.cancelled, timer.scheduled == nil, let due = timer.due
      else { return nil }
      return (due, timer.scheduler)
    }
    guard let (due, scheduler) = plan else { return }
    let task = timeline.schedule(
      { [self] in fire(key) }, on: scheduler, at: due,
      callSite: CallSite(fileID: "Dispatch", line: 0, function: "DispatchSourceTimer"))
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
      state.timers[key] = nil
      return (state.handlers[key], true)
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
    let (pending, timers, handlers, waiters) = state.withLock { state in
      state.closed = true
      defer {
        state.pending = [:]
        state.timers = [:]
        state.handlers = [:]
        state.idleWaiters = []
      }
      return (
        Array(state.pending.values), state.timers, state.handlers, state.idleWaiters
      )
    }
    for item in pending {
      item.task?.cancel()
      item.handBack(item.due.map { max($0 - now, 0) })
    }
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
  // @unchecked Sendable: raw pointers the bubble owns (the block is its copy), used on the thread
  // driving it or, once, when the bubble ends.
  let queue: UnsafeMutableRawPointer?
  let group: UnsafeMutableRawPointer?
  let block: UnsafeMutableRawPointer?
  let context: UnsafeMutableRawPointer?
  let function: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

  func run() {
    if let block {
      chronoscope_slots_run_block(block, 1)
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
