import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// Finds what points at a bug in a replayed trace, in one pass over its events.
///
/// ```swift
/// let findings = FindingsAnalysis.findings(in: replay)
/// for finding in findings { print(finding.kind, finding.message) }
/// ```
///
/// - Complexity: O(n + a) for n events and a actions, plus, for each run long enough to block a
///   scheduler, the actions pending on that scheduler.
@_spi(Benchmarks) public enum FindingsAnalysis {
  /// The findings of `replay`, by time, then kind.
  @_spi(Benchmarks) public static func findings(
    in replay: ReplayEngine, thresholds: FindingThresholds = FindingThresholds()
  ) -> [Finding] {
    var pass = Pass(replay: replay, thresholds: thresholds)
    for index in replay.eventIndices { pass.apply(replay.event(index), at: index) }
    pass.finish()
    let waits = mainThreadWaits(in: replay, thresholds: thresholds)
    return (pass.findings + waits).sorted {
      ($0.time, $0.kind, $0.action.map { Int($0.rawValue) } ?? -1)
        < ($1.time, $1.kind, $1.action.map { Int($0.rawValue) } ?? -1)
    }
  }

  /// The main thread's waits outside any run (``TraceEvent/Kind/wait``, which `chronoscope
  /// record` writes for a semaphore or group wait of the main thread's own code: a top-level
  /// `main`, a test) longer than the hang threshold: the main thread was as stuck as in a long
  /// main-queue job, though no job ran. Reported at the wait's start, with the action whose signal
  /// ended it when one did.
  private static func mainThreadWaits(
    in replay: ReplayEngine, thresholds: FindingThresholds
  ) -> [Finding] {
    replay.waits.compactMap { wait in
      let scheduler = SchedulerID(rawValue: wait.scheduler)
      guard wait.duration > thresholds.hang, wait.scheduler != 0,
        replay.scheduler(scheduler)?.kind == "main",
        let object = wait.waitObject
      else { return nil }
      let signaller = wait.endedBy.flatMap { replay.index(of: ActionID(rawValue: $0)) }
      let until =
        wait.endedBy.map { ", until #\($0) signalled it" }
        ?? (object == .semaphore
          ? ", and no recorded work signalled it (a timeout, or work not recorded)" : "")
      return Finding(
        kind: .mainThreadHang, severity: .error,
        time: wait.time.subtracting(saturating: wait.duration), action: nil,
        related: signaller.map { [$0] } ?? [], scheduler: scheduler, duration: wait.duration,
        message:
          "waited \(TimeText.duration(wait.duration)) on a \(object.name) outside any main-queue job\(until) (a hang: over \(TimeText.duration(thresholds.hang)))",
        callSite: wait.site == 0 ? nil : wait.site)
    }
  }
}

/// The state of one pass: where each action stands, what each scheduler has pending, and the worst
/// lateness and drift seen per action.
private struct Pass {
  let replay: ReplayEngine
  let thresholds: FindingThresholds
  var findings: [Finding] = []

  /// The pending lists and how one-shot work finished, by action slot: one record, so that an
  /// event touches one cache line of it (ten parallel arrays cost a cache miss each on a large
  /// trace).
  private var records: [PendingLink]
  /// Where each action stands, by action slot; apart from the records, which it would make 12
  /// bytes, not 8.
  private var states: [ActionState]
  /// Events before this offset have been applied, the one before it being the current one: a
  /// run's begin is found through the replay as the last before it.
  private var applied = 0
  /// Actions pending on each scheduler (by scheduler slot), for head-of-line blocking: a doubly linked
  /// list through the records' `nextPending` / `previousPending` (by action slot, -1 for none),
  /// so that adding and removing cost no hashing — they happen on nearly every event.
  private var firstPending: [Int32]

  /// 8 bytes: one per action, so on a large trace the largest thing the pass holds. What the
  /// replay says (its last run's begin, and through it when the run began, on which thread, its
  /// number) is found through it.
  ///
  /// An action is in a pending list only while it is pending, and finished by an end only once
  /// it is done, so the first field serves both: it is -1 (`none`) in every other state.
  private struct PendingLink {
    private var link: UInt32 = none
    var previousPending: Int32 = -1

    /// While pending: the next action pending on its scheduler, -1 for none.
    var nextPending: Int32 {
      get { Int32(bitPattern: link) }
      set { link = UInt32(bitPattern: newValue) }
    }

    /// Once done: the offset of the end that finished it, when a run's end did (one-shot work),
    /// for no-op cancels; else `none`. (Cancelled work never gets one: a cancel that takes
    /// effect leaves it pending or running, from where no end is a one-shot finish.)
    var finishedBy: UInt32 {
      get { link }
      set { link = newValue }
    }
  }

  /// "No event" in a record.
  private static let none = UInt32.max

  /// Runs under way per thread, the number of threads with one, and the episode above the
  /// thread limit in progress (its first begin and its peak).
  private var runningOn: [Int32]
  private var busyThreads = 0
  private let threadLimit: Int?
  /// An episode over the limit: its first begin, its peak, and when the count last fell back to
  /// the limit (nil while over it). A rise again within ``explosionGap`` continues the episode, so
  /// one fan-out that flickers around the limit is one finding.
  private var explosion: (action: ActionIndex, at: Int64, peak: Int, calmSince: Int64?)?
  /// How long the count must stay at or under the limit for an explosion to be over: 10 ms.
  static let explosionGap: Int64 = 10_000_000
  /// What kind each scheduler is, by scheduler slot (the last slot: a scheduler the trace never defined),
  /// so that a run's end compares no strings.
  private let schedulerKinds: [SchedulerKind]
  private enum SchedulerKind { case main, serial, other }
  private var late: [Int: (count: Int, worst: Int64, run: Int, at: Int64)] = [:]
  private var drift: [Int: (worst: Int64, run: Int, at: Int64)] = [:]

  init(replay: ReplayEngine, thresholds: FindingThresholds) {
    self.replay = replay
    self.thresholds = thresholds
    let count = replay.actionCount
    records = [PendingLink](repeating: PendingLink(), count: count)
    states = [ActionState](repeating: .unscheduled, count: count)
    firstPending = [Int32](repeating: -1, count: replay.schedulerSlotCount)
    runningOn = [Int32](repeating: 0, count: replay.threadSlotCount)
    threadLimit = thresholds.threads ?? replay.header.cores.map { 4 * $0 }
    schedulerKinds =
      replay.schedulers.map {
        switch $0.kind {
        case "main": .main
        case "serial": .serial
        default: .other
        }
      } + [.other]
  }

  mutating func apply(_ event: ReplayEvent, at index: EventIndex) {
    applied = index.offset + 1
    guard let action = event.action else { return }
    let slot = action.int
    let info = replay.actionRecord(action)

    let prior = states[slot]
    let next = ReplayEngine.transition(event.kind, from: prior, repeating: info.isRepeating)
    if event.kind == .cancel, prior == .done, let finished = eventTime(records[slot].finishedBy) {
      // Done, the record's link is the end that finished it (see `PendingLink`).
      noOpCancel(action, at: event.time, finishedAt: finished)
    }
    guard next != prior else { return }
    states[slot] = next
    if prior == .pending { removePending(slot) }
    if next == .pending { addPending(slot) }
    switch event.kind {
    case .begin:
      // Numbered as the replay numbers it: a window (a slice, a flight recorder's dump) may
      // start after runs it no longer holds.
      began(action, run: replay.runNumber(begunAt: index), at: event.time)
      threadStarted(event.thread, by: action, at: event.time)
    case .end:
      // The run's begin, looked up once for both.
      if let begin = beginOfLastRun(slot) {
        ended(action, begunAt: begin.time, at: event.time)
        threadFinished(begin.thread, at: event.time)
      }
      if next == .done, prior == .running {
        records[slot].finishedBy = UInt32(truncatingIfNeeded: index.offset)
      }
    case .schedule, .hop, .mark, .task, .work, .cancel, .wait:
      break
    }
  }

  /// The number of the last run of the action in `slot` that began (0: none), as the replay
  /// numbers it: a window (a slice, a flight recorder's dump) may start after runs it no longer
  /// holds.
  private func runs(_ slot: Int) -> Int {
    lastBegin(slot).map { replay.runNumber(begunAt: $0) } ?? 0
  }

  /// The begin of the last run of the action in `slot` so far, if any began.
  private func lastBegin(_ slot: Int) -> EventIndex? {
    replay.lastBegin(of: ActionIndex(slot), before: EventIndex(applied))
  }

  /// The begin of the last run of the action in `slot`, if any began.
  private func beginOfLastRun(_ slot: Int) -> ReplayEvent? {
    lastBegin(slot).map { replay.event($0) }
  }

  /// The time of the event at `offset`, or nil for `none`.
  private func eventTime(_ offset: UInt32) -> Int64? {
    offset == Self.none ? nil : replay.event(EventIndex(Int(offset))).time
  }

  // MARK: - Pending per scheduler

  private mutating func addPending(_ slot: Int) {
    let scheduler = replay.schedulerSlot(of: ActionIndex(slot))
    let head = firstPending[scheduler]
    records[slot].nextPending = head
    records[slot].previousPending = -1
    if head >= 0 { records[Int(head)].previousPending = Int32(slot) }
    firstPending[scheduler] = Int32(slot)
  }

  private mutating func removePending(_ slot: Int) {
    let next = records[slot].nextPending
    let previous = records[slot].previousPending
    if previous >= 0 {
      records[Int(previous)].nextPending = next
    } else {
      firstPending[replay.schedulerSlot(of: ActionIndex(slot))] = next
    }
    if next >= 0 { records[Int(next)].previousPending = previous }
    records[slot].nextPending = -1
    records[slot].previousPending = -1
  }

  /// The actions pending on the scheduler of `action`'s slot, in no particular order.
  private func pending(onSchedulerOf action: ActionIndex) -> [ActionIndex] {
    var waiting: [ActionIndex] = []
    var slot = firstPending[replay.schedulerSlot(of: action)]
    while slot >= 0 {
      waiting.append(ActionIndex(Int(slot)))
      slot = records[Int(slot)].nextPending
    }
    return waiting
  }

  // MARK: - Per event

  private mutating func inlineSync(_ action: ActionIndex, at time: Int64) {
    let info = replay.action(action)
    let label = replay.scheduler(info.scheduler)?.label ?? "scheduler \(info.scheduler.rawValue)"
    findings.append(
      Finding(
        kind: .inlineSync, severity: .warning, time: time, action: action,
        related: info.parent.map { [$0] } ?? [], scheduler: info.scheduler, duration: nil,
        message:
          "a sync onto \(label) from code already holding it ran inline; waiting would have deadlocked"
      ))
  }

  private mutating func threadStarted(_ thread: ThreadID, by action: ActionIndex, at time: Int64) {
    guard let slot = replay.threadSlot(of: thread) else { return }
    runningOn[slot] += 1
    guard runningOn[slot] == 1 else { return }
    busyThreads += 1
    guard let limit = threadLimit, busyThreads > limit else { return }
    if let episode = explosion, let calm = episode.calmSince,
      time.subtracting(saturating: calm) > Self.explosionGap
    {
      reportExplosion(limit: limit)
    }
    if let episode = explosion {
      explosion = (episode.action, episode.at, max(episode.peak, busyThreads), nil)
    } else {
      explosion = (action, time, busyThreads, nil)
    }
  }

  private mutating func threadFinished(_ thread: ThreadID, at time: Int64) {
    guard let slot = replay.threadSlot(of: thread), runningOn[slot] > 0 else { return }
    let running = runningOn[slot]
    runningOn[slot] = running - 1
    guard running == 1 else { return }
    busyThreads -= 1
    if let limit = threadLimit, busyThreads == limit, explosion?.calmSince == nil {
      explosion?.calmSince = time
    }
  }

  /// Reports the episode in progress, lasting until the count last fell to the limit (or `end`).
  private mutating func reportExplosion(limit: Int, end: Int64? = nil) {
    guard let episode = explosion else { return }
    explosion = nil
    let cores = replay.header.cores.map { " (\($0) cores)" } ?? ""
    let until = episode.calmSince ?? end ?? episode.at
    let difference = until.subtractingReportingOverflow(episode.at)
    let length: Int64? = difference.overflow ? nil : max(0, difference.partialValue)
    let lasting = length.map { " for \(TimeText.duration($0))" } ?? ""
    findings.append(
      Finding(
        kind: .threadExplosion, severity: .warning, time: episode.at, action: episode.action,
        related: [], scheduler: replay.action(episode.action).scheduler, duration: length,
        message:
          "\(episode.peak) threads ran the trace's work at once\(lasting), over the limit of \(limit)\(cores)"
      ))
  }

  private mutating func began(_ action: ActionIndex, run: Int, at time: Int64) {
    let info = replay.actionRecord(action)
    let lateness = time.subtracting(saturating: info.due(ofRun: run))
    if lateness > thresholds.late {
      var record = late[action.int] ?? (0, 0, 0, 0)
      record.count += 1
      if lateness > record.worst { record = (record.count, lateness, run, time) }
      late[action.int] = record
    }
    if info.isRepeating, info.delay > 0, lateness > info.delay,
      lateness > drift[action.int]?.worst ?? 0
    {
      drift[action.int] = (lateness, run, time)
    }
  }

  private mutating func ended(_ action: ActionIndex, begunAt began: Int64, at time: Int64) {
    let info = replay.actionRecord(action)
    let length = time.subtracting(saturating: began)
    let kind = schedulerKinds[min(replay.schedulerSlot(of: action), schedulerKinds.count - 1)]
    if kind == .main, length > thresholds.hang {
      findings.append(
        Finding(
          kind: .mainThreadHang, severity: .error, time: began, action: action, related: [],
          scheduler: info.scheduler, duration: length,
          message:
            "ran for \(TimeText.duration(length)) on the main scheduler (a hang: over \(TimeText.duration(thresholds.hang)))"
        ))
    }
    guard kind != .other, length > thresholds.block else { return }
    // Who was due while it ran and still waits, past the late threshold: the work this run made
    // late. (Work it scheduled onto its own scheduler just before it ended waits a moment: correct
    // code, nothing held up.)
    var waits: [(action: ActionIndex, wait: Int64)] = []
    for waiter in pending(onSchedulerOf: action) {
      let waiterInfo = replay.action(waiter)
      let due = waiterInfo.due(ofRun: runs(waiter.int) + 1)
      guard due < time else { continue }
      let wait = time.subtracting(saturating: max(due, began))
      if wait > thresholds.late { waits.append((waiter, wait)) }
    }
    waits.sort { ($0.wait, $1.action) > ($1.wait, $0.action) }
    guard let longest = waits.first?.wait, longest > 0 else { return }
    let label = replay.scheduler(info.scheduler)?.label ?? "scheduler \(info.scheduler.rawValue)"
    let shown = waits.prefix(5).map { "\(replay.action($0.action).id)" }.joined(separator: ", ")
    findings.append(
      Finding(
        kind: .headOfLineBlocking, severity: .warning, time: began, action: action,
        related: waits.map(\.action), scheduler: info.scheduler, duration: longest,
        message:
          "ran for \(TimeText.duration(length)) on \(kind == .main ? "the main scheduler" : "serial \(label)") while \(waits.count) due action(s) waited up to \(TimeText.duration(longest)) behind it (\(shown)\(waits.count > 5 ? ", …" : ""))"
      ))
  }

  private mutating func noOpCancel(_ action: ActionIndex, at time: Int64, finishedAt: Int64) {
    let info = replay.action(action)
    findings.append(
      Finding(
        kind: .noOpCancel, severity: .info, time: time, action: action, related: [],
        scheduler: info.scheduler, duration: time.subtracting(saturating: finishedAt),
        message:
          "cancelled \(TimeText.duration(time.subtracting(saturating: finishedAt))) after it had finished: the cancel did nothing"
      ))
  }

  // MARK: - At the end

  mutating func finish() {
    // The end of the recording: its close or crash line when later than the last event (the app
    // closed the recorder during a run), as every command counts it.
    let end = replay.end
    if let limit = threadLimit { reportExplosion(limit: limit, end: end) }
    for (slot, record) in late {
      let action = ActionIndex(slot)
      let times = record.count > 1 ? "; late \(record.count) times" : ""
      findings.append(
        Finding(
          kind: .late, severity: .warning, time: record.at, action: action, related: [],
          scheduler: replay.action(action).scheduler, duration: record.worst,
          message:
            "began \(TimeText.duration(record.worst)) after it was due (run \(record.run))\(times)")
      )
    }
    for (slot, record) in drift {
      let action = ActionIndex(slot)
      let info = replay.action(action)
      findings.append(
        Finding(
          kind: .timerFallingBehind, severity: .warning, time: record.at, action: action,
          related: [], scheduler: info.scheduler, duration: record.worst,
          message:
            "run \(record.run) began \(TimeText.duration(record.worst)) behind its rhythm, more than one interval (\(TimeText.duration(info.delay)))"
        ))
    }
    for slot in records.indices {
      let action = ActionIndex(slot)
      let info = replay.actionRecord(action)
      if info.ranInline { inlineSync(action, at: replay.action(action).scheduledAt) }
      let live = states[slot] == .pending || states[slot] == .running
      if info.isRepeating {
        guard live, endedByApp else { continue }
        findings.append(
          Finding(
            kind: .leakedTimer, severity: .warning, time: replay.action(action).scheduledAt,
            action: action,
            related: [], scheduler: info.scheduler, duration: nil,
            message:
              "repeats every \(TimeText.duration(info.delay)) and was never cancelled: still live when the trace closed, after \(runs(slot)) run(s)"
          ))
      } else if states[slot] == .pending, lastBegin(slot) == nil {
        lostWork(action, end: end)
      }
    }
  }

  /// Whether the trace ends where the app closed the recorder. A slice cut before the app's end
  /// closes too (so that it validates), but what is pending or live there may have run or been
  /// cancelled later: lost work is only a hint there, and no timer counts as leaked.
  private var endedByApp: Bool {
    guard replay.isClosed else { return false }
    guard let window = replay.header.sliceWindow else { return true }
    return (replay.closedAt ?? window.upperBound) < window.upperBound
  }

  private mutating func lostWork(_ action: ActionIndex, end: Int64) {
    let info = replay.action(action)
    let severity: Finding.Severity
    let message: String
    // A trace without a close line and without a crash is still being written (`view
    // --follow`), or its process was killed: like a slice's end, pending work at its tail is
    // not lost. A crash did stop the work pending at it.
    if !replay.isClosed, replay.crash == nil { return }
    if let dropped = replay.lastDropTime, info.scheduledAt <= dropped {
      // The recorder dropped events after the schedule: a begin may be among them.
      severity = .info
      message =
        "never seen to run, but the recorder dropped events after it was scheduled (at \(TimeText.seconds(dropped))): its run may be among them (due \(TimeText.seconds(info.due)))"
    } else if !replay.isClosed, let crash = replay.crash {
      if crash.isStop, end.subtracting(saturating: info.due) > thresholds.late {
        // Stopped by Ctrl-C or `kill`, as a hung program is: work long due and never run is
        // what it waited for.
        severity = .warning
        message =
          "due \(TimeText.seconds(info.due)), never ran and was never cancelled (the process was stopped by \(crash.signal) at \(TimeText.seconds(end)))"
      } else {
        severity = .info
        message =
          crash.isStop
          ? "still pending when the process was stopped by \(crash.signal) (due \(TimeText.seconds(info.due)))"
          : "still pending when the process crashed (due \(TimeText.seconds(info.due)))"
      }
    } else if !endedByApp {
      severity = .info
      message =
        "still pending where the window ends, the app going on (due \(TimeText.seconds(info.due)))"
    } else if info.due > end {
      severity = .info
      message =
        "still pending when the trace closed: due \(TimeText.seconds(info.due)), after the end"
    } else if end.subtracting(saturating: info.due) <= thresholds.late {
      // Due a moment before the close: it has had no time to run, and is not late yet.
      severity = .info
      message =
        "still pending when the trace closed, \(TimeText.duration(end.subtracting(saturating: info.due))) after it was due: not late yet"
    } else {
      severity = .warning
      message =
        "due \(TimeText.seconds(info.due)), never ran and was never cancelled (the trace closed at \(TimeText.seconds(end)))"
    }
    findings.append(
      Finding(
        kind: .lostWork, severity: severity, time: min(info.due, end), action: action,
        related: [], scheduler: info.scheduler, duration: nil, message: message))
  }
}
