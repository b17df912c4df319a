import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay

/// Why a run began late: from when it was due to when it began, what held it up, in stretches
/// whose durations add up to the lateness.
///
/// Work on a serial scheduler waits for the runs ahead of it on that scheduler; work on the main scheduler
/// for what runs on the main thread; other work (a concurrent scheduler, a clock, a task) for a
/// worker thread. So the blame looks at the runs under way on the scheduler, on the main thread or
/// on the worker threads between the due time and the begin, and gives each instant to the one
/// of them that had been running longest (the one holding things up the longest). An instant
/// when none of them ran is a stretch of its own, with no action: the scheduler's own delay,
/// or a scheduler waiting for a thread.
///
/// ```swift
/// if let blame = LatenessBlame.worstRun(of: action, in: replay) {
///   for share in blame.shares { print(share.duration, share.action.map { replay.action($0).id }) }
/// }
/// ```
///
/// - Complexity: a seek to the due time (O(keyframe interval), or from the replay's cursor
///   when it has no keyframes), then O(e) for the e events until the begin.
@_spi(Benchmarks) public struct LatenessBlame: Sendable, Equatable {
  /// What the late work waited for.
  package enum Basis: String, Sendable, Equatable {
    /// Its serial scheduler: the runs on it ahead of the late one.
    case scheduler
    /// The main thread: what ran on it.
    case mainThread = "main-thread"
    /// The worker threads: what ran on them (every thread but those that run main work).
    case threads
  }

  /// One stretch of the lateness and the run that held things up during it.
  package struct Share: Sendable, Equatable {
    /// The action whose run held things up; nil for a stretch in which none of the runs looked
    /// at was under way.
    package var action: ActionIndex?
    /// The number of that run (0 when there is no action).
    package var run: Int
    /// The thread it ran on (nil when there is no action).
    package var thread: ThreadID?
    /// Where the stretch starts and ends (trace time, ns).
    package var from: Int64
    package var to: Int64
    /// How many of the runs looked at were under way in the stretch, this one included (for
    /// the threads basis, how many threads were busy): a stretch ends where this changes.
    package var busy: Int

    /// How long the stretch lasted, in ns.
    package var duration: Int64 { to.subtracting(saturating: from) }
  }

  /// The late action.
  package var action: ActionIndex
  /// The number of its late run.
  package var run: Int
  /// When that run was due and when it began (trace time, ns).
  package var due: Int64
  package var began: Int64
  /// What it waited for.
  package var basis: Basis
  /// The stretches from `due` to `began`, in time order; their durations, and those of the
  /// stretches left out, add up to the lateness.
  package var shares: [Share]
  /// How many stretches a limit left out (the shortest), and how long they lasted together, in
  /// ns: 0 unless ``blames(for:in:maxShares:)`` was given a limit the blame passes.
  package var omittedShares = 0
  package var omittedDuration: Int64 = 0

  /// How late the run began, in ns.
  package var lateness: Int64 { began.subtracting(saturating: due) }

  /// The blame for `action`'s worst run (the one that began furthest behind its due time, the
  /// first of equals), if it began late at all.
  ///
  /// - Complexity: O(events after it was scheduled), plus the blame's.
  package static func worstRun(of action: ActionIndex, in replay: ReplayEngine) -> LatenessBlame? {
    let runs = replay.life(of: action).runs
    guard let worst = runs.max(by: { ($0.lateness, $1.number) < ($1.lateness, $0.number) }),
      worst.lateness > 0
    else { return nil }
    var cursor = replay
    return blame(action: action, begunAt: worst.began, using: &cursor)
  }

  /// The blame for the run of `action` that began at `began`; nil if none did, or it was not
  /// late. Moves `cursor` to just before the begin.
  static func blame(action: ActionIndex, begunAt began: Int64, using cursor: inout ReplayEngine)
    -> LatenessBlame?
  {
    guard let request = Request(action: action, begunAt: began, in: cursor) else { return nil }
    let counts = request.counting
    cursor.seek(toTime: request.due)
    var sweep = Sweep(from: request.due)
    for running in cursor.running() {
      if let current = cursor.currentRun(of: running), counts(running, on: current.thread, cursor) {
        sweep.under[running] = current
      }
    }
    while cursor.position < cursor.eventCount {
      let event = cursor.event(EventIndex(cursor.position))
      guard event.time < began else { break }
      sweep.advance(to: event.time)
      cursor.stepForward()
      guard let subject = event.action, event.kind == .begin || event.kind == .end else {
        continue
      }
      // The replay's own answer: a begin it ignores (a stray one) starts no run.
      if let current = cursor.currentRun(of: subject), counts(subject, on: current.thread, cursor) {
        sweep.under[subject] = current
      } else {
        sweep.under[subject] = nil
      }
    }
    sweep.advance(to: began)
    return request.blame(sweep.shares)
  }

  /// A late run: what its blame is made of before the runs are looked at.
  struct Request {
    let action: ActionIndex
    let run: Int
    let due: Int64
    let began: Int64
    let counting: Counting

    /// The run of `action` begun at `began`, if it began then, late.
    init?(action: ActionIndex, begunAt began: Int64, in replay: ReplayEngine) {
      guard let begin = LatenessBlame.beginEvent(of: action, at: began, in: replay) else {
        return nil
      }
      let info = replay.actionRecord(action)
      let run = replay.runNumber(begunAt: begin)
      let due = info.due(ofRun: run)
      guard due < began else { return nil }
      let basis: Basis =
        switch replay.scheduler(info.scheduler)?.kind {
        case "serial": .scheduler
        case "main": .mainThread
        default: .threads
        }
      self.action = action
      self.run = run
      self.due = due
      self.began = began
      counting = Counting(
        basis: basis, scheduler: info.scheduler, thread: replay.event(begin).thread, in: replay)
    }

    func blame(_ shares: [Share]) -> LatenessBlame {
      LatenessBlame(
        action: action, run: run, due: due, began: began, basis: counting.basis, shares: shares)
    }
  }

  /// The begin of `action` at `time`, if it began then.
  static func beginEvent(of action: ActionIndex, at time: Int64, in replay: ReplayEngine)
    -> EventIndex?
  {
    let end = replay.firstIndex(after: time)
    var offset = end.offset
    while offset > 0 {
      offset -= 1
      let event = replay.event(EventIndex(offset))
      guard event.time == time else { break }
      if event.kind == .begin, event.action == action { return EventIndex(offset) }
    }
    return nil
  }

  /// Which runs count for a basis: on the scheduler, on the main thread, or on a worker thread.
  /// Two late runs that count the same runs have equal countings (a timeline serves both).
  struct Counting: Hashable {
    let basis: Basis
    /// The scheduler, for the scheduler basis.
    let scheduler: SchedulerID?
    /// The main thread, for the main-thread basis.
    let thread: ThreadID?
    /// The threads that run main work, which worker threads are not (unless the late work ran
    /// on one: on a virtual clock everything runs on the thread that drives it), for the
    /// threads basis.
    let mainThreads: Set<ThreadID>

    init(basis: Basis, scheduler: SchedulerID, thread: ThreadID, in replay: ReplayEngine) {
      self.basis = basis
      self.scheduler = basis == .scheduler ? scheduler : nil
      self.thread = basis == .mainThread ? thread : nil
      guard basis == .threads else {
        mainThreads = []
        return
      }
      let main = Set(
        replay.schedulers.filter { $0.kind == "main" }.map { SchedulerID(rawValue: $0.id) })
      let threads = replay.threads.filter { $0.schedulers.contains(where: main.contains) }.map(\.id)
      mainThreads = Set(threads).subtracting([thread])
    }

    func callAsFunction(_ action: ActionIndex, on thread: ThreadID, _ replay: ReplayEngine)
      -> Bool
    {
      switch basis {
      case .scheduler: replay.actionRecord(action).scheduler == scheduler
      case .mainThread: thread == self.thread
      case .threads: !mainThreads.contains(thread)
      }
    }
  }

  /// The stretches so far: each instant goes to the run under way that began first. A stretch
  /// ends where that run or the number under way changes, so that cutting one to a window
  /// changes nothing else of it.
  struct Sweep {
    var under: [ActionIndex: CurrentRun] = [:]
    var shares: [Share] = []
    var time: Int64

    init(from time: Int64) { self.time = time }

    mutating func advance(to next: Int64) {
      guard next > time else { return }
      let holder = under.min { ($0.value.began, $0.key) < ($1.value.began, $1.key) }
      if let last = shares.last, last.action == holder?.key, last.run == holder?.value.number ?? 0,
        last.busy == under.count, last.to == time
      {
        shares[shares.count - 1].to = next
      } else {
        shares.append(
          Share(
            action: holder?.key, run: holder?.value.number ?? 0, thread: holder?.value.thread,
            from: time, to: next, busy: under.count))
      }
      time = next
    }
  }
}
