import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeVirtualTime
import Synchronization

/// The state of one replay: which recorded action each action the code schedules is, the work
/// held for each until its recorded turn, and how far the replay has come. Shared by a
/// ``ReplayingSchedulerFactory`` and its schedulers.
///
/// Recorded work is not queued on the clock when the code schedules it: the replay holds it and
/// puts it on the clock at its recorded time, one run at a time in the recorded begin order, so
/// runs recorded at one instant run in the recorded order. Only extra work (when allowed) is
/// queued on the clock as the code asks.
final class ReplayCore: Sendable {
  let schedule: RecordedSchedule
  let options: ReplayOptions
  let clock: VirtualClock
  private let state = Mutex(State())

  /// How the code asked for an action, to forward extra work to the virtual scheduler as asked.
  enum Request {
    case async
    case after(Duration)
    case repeating(every: Duration, firstAfter: Duration)
    case at(SchedulerInstant)
  }

  /// Work the code scheduled that the trace has, held until its recorded runs.
  fileprivate struct Held {
    /// Nil once cancelled, or once a one-shot action has run.
    var work: (@Sendable () -> Void)?
    let scheduler: any Scheduler
    let callSite: CallSite
    let repeats: Bool
    /// The action as the code's own run names it (its id in scheduling order).
    let reference: ActionReference
    /// Runs done, or 1 for a `sync` that ran inline.
    var runs = 0
  }

  fileprivate struct State {
    var numbering = ActionKeyNumbering()
    /// How many actions the code scheduled: its next action's id.
    var scheduled: UInt32 = 0
    /// By recorded action (index in the schedule's actions).
    var held: [Int: Held] = [:]
    /// Recorded runs done.
    var position = 0
    /// The recorded actions whose runs run now, innermost last.
    var running: [Int] = []
    var divergence: ReplayDivergence?
  }

  init(schedule: RecordedSchedule, options: ReplayOptions, clock: VirtualClock) {
    self.schedule = schedule
    self.options = options
    self.clock = clock
  }

  // MARK: - What the code schedules

  /// Takes an action the code schedules on `scheduler`: holds it for its recorded runs when the
  /// trace has it, forwards it to the virtual scheduler when extra work is allowed, else notes
  /// the divergence and drops it.
  func schedule(
    _ work: @escaping @Sendable () -> Void, on scheduler: any Scheduler, from callSite: CallSite,
    _ request: Request
  ) -> SchedulerTask {
    let now = clock.now.clampedNanoseconds
    let repeats = if case .repeating = request { true } else { false }
    let taken = state.withLock { state -> Taken in
      let (recorded, reference) = state.name(scheduler.label, callSite, now: now, in: schedule)
      if let recorded {
        state.held[recorded] = Held(
          work: work, scheduler: scheduler, callSite: callSite, repeats: repeats,
          reference: reference)
        return .held(recorded)
      }
      if options.allowsExtraWork { return .extra }
      state.noteUnrecorded(reference, due: Self.due(request, now: now), in: schedule)
      return .dropped
    }
    switch taken {
    case .held(let recorded):
      return SchedulerTask { [weak self] in self?.cancel(recorded) }
    case .extra:
      return Self.forward(work, request, to: scheduler, from: callSite)
    case .dropped:
      let task = SchedulerTask()
      task.cancel()
      return task
    }
  }

  /// What became of an action the code scheduled.
  private enum Taken {
    /// Held for the runs of this recorded action.
    case held(Int)
    /// Extra work, allowed: queued on the clock as asked.
    case extra
    /// Extra work, not allowed: a divergence.
    case dropped
  }

  /// Notes a `sync` the code makes: it runs now, inline, whatever the trace says; it only
  /// counts, so that the actions after it keep their occurrences, and diverges when the trace
  /// does not have it and extra work is not allowed.
  func noteSync(on scheduler: any Scheduler, from callSite: CallSite) {
    let now = clock.now.clampedNanoseconds
    state.withLock { state in
      let (recorded, reference) = state.name(scheduler.label, callSite, now: now, in: schedule)
      if let recorded {
        var held = Held(
          work: nil, scheduler: scheduler, callSite: callSite, repeats: false,
          reference: reference)
        held.runs = 1
        state.held[recorded] = held
      } else if !options.allowsExtraWork {
        state.noteUnrecorded(reference, due: now, in: schedule)
      }
    }
  }

  private func cancel(_ recorded: Int) {
    let work = state.withLock { $0.held[recorded]?.work.take() }
    withExtendedLifetime(work) {}
  }

  private static func due(_ request: Request, now: Int64) -> Int64 {
    switch request {
    case .async: now
    case .after(let delay): now.adding(saturating: max(delay.clampedNanoseconds, 0))
    case .repeating(_, let first): now.adding(saturating: max(first.clampedNanoseconds, 0))
    case .at(let instant): max(instant.nanoseconds, now)
    }
  }

  private static func forward(
    _ work: @escaping @Sendable () -> Void, _ request: Request, to scheduler: any Scheduler,
    from callSite: CallSite
  ) -> SchedulerTask {
    switch request {
    case .async: scheduler.scheduleAsync(from: callSite, work)
    case .after(let delay): scheduler.scheduleAfter(delay, from: callSite, work)
    case .repeating(let interval, let first):
      scheduler.scheduleRepeating(every: interval, firstAfter: first, from: callSite, work)
    case .at(let instant): scheduler.scheduleAt(instant, from: callSite, work)
    }
  }

  // MARK: - Driving

  /// Runs the recorded runs in their order, each at its recorded time, with the extra work due
  /// between them; stops at the first divergence.
  func run() throws(ReplayError) {
    let begins = schedule.side.begins
    while true {
      if let divergence = state.withLock({ $0.divergence }) { throw .diverged(divergence) }
      let position = state.withLock { $0.position }
      guard position < begins.count else { break }
      let begin = begins[position]
      let began = max(
        schedule.side.actions[begin.action].runs[begin.run].began, clock.now.clampedNanoseconds)
      try runExtraWork(through: began, before: position + 1)
      let next = state.withLock { state -> Held? in
        if state.divergence != nil { return nil }
        guard var held = state.held[begin.action], held.work != nil || held.runs > begin.run
        else {
          state.noteMissing(at: position, in: schedule)
          return nil
        }
        state.position += 1
        // A sync ran inline when the code made it.
        if held.work == nil { return nil }
        held.runs += 1
        if !held.repeats { held.work = nil }
        let taken = state.held[begin.action]
        state.held[begin.action] = held
        return taken
      }
      guard let next, let work = next.work else { continue }
      // While it runs, what it schedules is matched to the recorded action's children first.
      let recorded = begin.action
      _ = next.scheduler.scheduleAt(
        SchedulerInstant(nanoseconds: began), from: next.callSite
      ) { [weak self] in
        self?.state.withLock { $0.running.append(recorded) }
        work()
        self?.state.withLock { _ = $0.running.popLast() }
      }
      try runExtraWork(through: began, before: position + 1)
    }
    if let divergence = state.withLock({ $0.divergence }) { throw .diverged(divergence) }
  }

  /// Runs what is queued on the clock up to `instant`, and moves the clock there.
  private func runExtraWork(through instant: Int64, before position: Int) throws(ReplayError) {
    do {
      try clock.run(maxSteps: options.extraWorkLimit, horizon: .nanoseconds(instant))
    } catch {
      switch error {
      case .stepLimitExceeded:
        throw .extraWorkLimitExceeded(limit: options.extraWorkLimit, position: position)
      default:
        break  // the horizon: what is left is due later
      }
    }
    clock.advance(to: .nanoseconds(instant))
  }
}

extension ReplayCore.State {
  /// Names the code's next action on `scheduler` from `callSite` as `diff` does, and finds the
  /// recorded action with that name that no action of the code has taken yet.
  fileprivate mutating func name(
    _ scheduler: String, _ callSite: CallSite, now: Int64, in schedule: RecordedSchedule
  ) -> (recorded: Int?, reference: ActionReference) {
    let (key, group) = numbering.key(
      scheduler: scheduler, site: ("\(callSite.fileID)", Int(callSite.line), "\(callSite.function)")
    )
    scheduled &+= 1
    let reference = ActionReference(
      key, id: ActionID(rawValue: scheduled), scheduledAt: now)
    // The k-th action a function schedules on a scheduler is the k-th it scheduled there in the
    // trace: the diff's key, lines aside (an edit moves them).
    guard let inGroup = schedule.side.groups[group], key.occurrence <= inGroup.count else {
      return (nil, reference)
    }
    var recorded = inGroup[key.occurrence - 1]
    // Scheduled from a recorded run: one of that action's own children of this key, if the
    // k-th is not. Two runs on two threads that began in one order and scheduled in the other
    // (one was preempted in between) would otherwise swap their children's turns.
    if let parent = running.last, schedule.parents[recorded] != parent || held[recorded] != nil,
      let child = inGroup.first(where: { schedule.parents[$0] == parent && held[$0] == nil })
    {
      recorded = child
    }
    return (held[recorded] == nil ? recorded : nil, reference)
  }

  /// Notes, unless a divergence is noted already, that the code scheduled `reference`, which
  /// the trace does not have, due at `due`.
  fileprivate mutating func noteUnrecorded(
    _ reference: ActionReference, due: Int64, in schedule: RecordedSchedule
  ) {
    guard divergence == nil else { return }
    let recorded = recordedRun(at: position, in: schedule)
    divergence = ReplayDivergence(
      trace: schedule.name, originNanoseconds: schedule.originNanoseconds,
      cause: .unrecordedWork,
      position: position + 1, recorded: recorded.map(ReplayDivergence.Run.init),
      replayed: ReplayDivergence.Run(RunReference(reference, run: 1, began: due)))
  }

  /// Notes that the trace ran, at `position` (from 0), an action the code did not schedule or
  /// cancelled; what the code runs there instead is its held action due next, if any.
  fileprivate mutating func noteMissing(at position: Int, in schedule: RecordedSchedule) {
    let begins = schedule.side.begins
    var instead: RunReference?
    for later in begins[position...] {
      guard let held = held[later.action], held.work != nil else { continue }
      instead = RunReference(
        held.reference, run: held.runs + 1,
        began: schedule.side.actions[later.action].runs[later.run].began)
      break
    }
    divergence = ReplayDivergence(
      trace: schedule.name, originNanoseconds: schedule.originNanoseconds, cause: .missingWork,
      position: position + 1,
      recorded: recordedRun(at: position, in: schedule).map(ReplayDivergence.Run.init),
      replayed: instead.map(ReplayDivergence.Run.init))
  }

  private func recordedRun(at position: Int, in schedule: RecordedSchedule)
    -> RunReference?
  {
    position < schedule.side.begins.count
      ? schedule.side.reference(schedule.side.begins[position]) : nil
  }
}
