import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// Per-scheduler and per-thread figures for a replayed trace: what `chronoscope stats` prints.
///
/// ```swift
/// let stats = TraceStatistics(replay)
/// stats.schedulers.first?.lateness.p99
/// ```
///
/// - Complexity: O(n + q) for n events and q measured values (O(q log q) at worst).
@_spi(Benchmarks) public struct TraceStatistics: Sendable {
  /// Order statistics of a set of durations, in ns; all nil when there were none.
  package struct Distribution: Sendable, Equatable {
    package var count: Int
    package var p50: Int64?
    package var p90: Int64?
    package var p99: Int64?
    package var max: Int64?

    init(_ values: [Int64]) {
      var values = values
      count = values.count
      // Each percentile selected in the part above the one before: O(n), where sorting them
      // all was O(n log n) and most of the statistics' time on millions of runs.
      var from = 0
      func percentile(_ fraction: Double) -> Int64? {
        guard !values.isEmpty else { return nil }
        // Nearest rank: the smallest value with at least `fraction` of the values at or below.
        let rank = Int((fraction * Double(values.count)).rounded(.up))
        let index = Swift.min(Swift.max(rank, 1), values.count) - 1
        OrderStatistics.select(index, in: &values, within: from..<values.count)
        from = index
        return values[index]
      }
      p50 = percentile(0.5)
      p90 = percentile(0.9)
      p99 = percentile(0.99)
      max = values.max()
    }
  }

  /// One scheduler's figures.
  @_spi(Benchmarks) public struct Scheduler: Sendable, Equatable {
    package var id: SchedulerID
    package var label: String
    package var kind: String
    /// Actions scheduled on it.
    package var scheduled: Int
    /// Actions that began at least once.
    package var ran: Int
    /// Actions cancelled before they began (one cancelled during or after a run is among
    /// ``ran``): `ran + cancelled + lost == scheduled`.
    package var cancelled: Int
    /// Actions that never began and were never cancelled.
    package var lost: Int
    /// Runs begun.
    package var runs: Int
    /// How late timer work (after, repeating) began: begin − due.
    package var lateness: Distribution
    /// How long other work (async, sync) waited from due to begin.
    package var wait: Distribution
    /// How long runs took.
    package var duration: Distribution
    /// Run time over the trace's span (over 1 for concurrent schedulers running in parallel).
    package var utilisation: Double
    /// The most of its actions running at once.
    package var peakConcurrency: Int
    /// The 100 ms window with the most run time, as its start (ns), and that run time.
    package var busiestWindow: (start: Int64, busy: Int64)?

    @_spi(Benchmarks) public static func == (lhs: Scheduler, rhs: Scheduler) -> Bool {
      lhs.id == rhs.id && lhs.scheduled == rhs.scheduled && lhs.ran == rhs.ran
        && lhs.cancelled == rhs.cancelled && lhs.lost == rhs.lost && lhs.runs == rhs.runs
        && lhs.lateness == rhs.lateness && lhs.wait == rhs.wait && lhs.duration == rhs.duration
        && lhs.peakConcurrency == rhs.peakConcurrency
    }
  }

  /// One thread's figures.
  package struct Thread: Sendable, Equatable {
    package var id: ThreadID
    package var title: String
    /// Time with at least one run under way on it (nested runs count once).
    package var busy: Int64
  }

  /// Schedulers by id.
  @_spi(Benchmarks) public var schedulers: [Scheduler]
  /// Threads by id.
  package var threads: [Thread]
  /// The trace's end (`ReplayEngine.end`: its `close` line, else its last event), ns.
  package var span: Int64
  /// Begins per equal slice of the trace (`activityBuckets` slices).
  package var activity: [Int]
  /// How many timer begins were late by under 1 ms, 1–10 ms, 10–100 ms, 100 ms–1 s, over 1 s.
  package var latenessHistogram: [Int]
  /// The histogram's bucket names.
  package static let latenessBuckets = ["<1ms", "1-10ms", "10-100ms", "100ms-1s", ">1s"]
  /// Slices of the activity line.
  package static let activityBuckets = 60

  /// Measures `replay` in one pass over its events.
  ///
  /// Schedulers and threads are found by the replay's slots, not hashed on every event (about half
  /// the pass's time, measured on two million events); schedulers the trace never defined share one
  /// slot there, so they are told apart by id.
  @_spi(Benchmarks) public init(_ replay: ReplayEngine) {
    span = replay.end
    let window: Int64 = 100_000_000
    let definedSchedulers = replay.schedulerSlotCount - 1
    var perScheduler = [SchedulerAccumulator](
      repeating: SchedulerAccumulator(), count: definedSchedulers)
    var undefinedSchedulers: [SchedulerID: SchedulerAccumulator] = [:]
    func scheduler(
      _ action: ActionIndex, _ id: SchedulerID, _ body: (inout SchedulerAccumulator) -> Void
    ) {
      let slot = replay.schedulerSlot(of: action)
      if slot < definedSchedulers {
        body(&perScheduler[slot])
      } else {
        body(&undefinedSchedulers[id, default: SchedulerAccumulator()])
      }
    }
    var states = [ActionState](repeating: .unscheduled, count: replay.actionCount)
    var runs = [Int](repeating: 0, count: replay.actionCount)
    var began = [Int64](repeating: 0, count: replay.actionCount)
    // By action: the slot of the thread its run began on.
    var beganOn = [Int](repeating: 0, count: replay.actionCount)
    // By thread slot: runs under way, since when the thread is busy, and how long it was.
    var depth = [(running: Int, since: Int64)](
      repeating: (0, 0), count: replay.threadSlotCount)
    var busy = [Int64](repeating: 0, count: replay.threadSlotCount)
    var activity = [Int](repeating: 0, count: Self.activityBuckets)
    var histogram = [Int](repeating: 0, count: Self.latenessBuckets.count)
    for index in replay.eventIndices {
      let event = replay.event(index)
      guard let action = event.action else { continue }
      let slot = action.int
      let info = replay.actionRecord(action)
      let prior = states[slot]
      let next = ReplayEngine.transition(event.kind, from: prior, repeating: info.isRepeating)
      if event.kind == .schedule, prior == .unscheduled {
        scheduler(action, info.scheduler) { $0.scheduled += 1 }
      }
      guard next != prior else { continue }
      states[slot] = next
      switch event.kind {
      case .begin:
        runs[slot] += 1
        began[slot] = event.time
        let late = event.time.subtracting(saturating: info.due(ofRun: runs[slot]))
        let timer = info.mode == .after || info.mode == .repeating
        let first = runs[slot] == 1
        scheduler(action, info.scheduler) { $0.began(late: late, timer: timer, first: first) }
        if timer { histogram[Self.latenessBucket(late)] += 1 }
        if span > 0 {
          let bucket = Int(
            Double(event.time) / Double(span) * Double(Self.activityBuckets - 1))
          activity[Swift.min(Swift.max(bucket, 0), Self.activityBuckets - 1)] += 1
        }
        // Every thread an event names has a slot; -1 would only drop the busy time.
        let thread = replay.threadSlot(of: event.thread) ?? -1
        beganOn[slot] = thread
        if thread >= 0 {
          if depth[thread].running == 0 { depth[thread].since = event.time }
          depth[thread].running += 1
        }
      case .end:
        let length = event.time.subtracting(saturating: began[slot])
        let start = began[slot]
        scheduler(action, info.scheduler) {
          $0.ended(from: start, to: event.time, length: length, window: window)
        }
        let thread = beganOn[slot]
        if thread >= 0, depth[thread].running > 0 {
          depth[thread].running -= 1
          if depth[thread].running == 0 {
            busy[thread] &+= event.time.subtracting(saturating: depth[thread].since)
          }
        }
      case .cancel:
        // Cancelled before it ever began: a cancel during or after a run (a timer stopped by
        // its own body, a repeating one stopped between runs) leaves it counted as ran, so
        // that ran, cancelled and lost divide what was scheduled.
        if runs[slot] == 0 { scheduler(action, info.scheduler) { $0.cancelled += 1 } }
      case .schedule, .hop, .mark, .task, .work, .wait:
        break
      }
    }
    for slot in states.indices where states[slot] == .pending && runs[slot] == 0 {
      let action = ActionIndex(slot)
      scheduler(action, replay.action(action).scheduler) { $0.lost += 1 }
    }
    var byID = undefinedSchedulers
    for record in replay.schedulers {
      let id = SchedulerID(rawValue: record.id)
      if let slot = replay.schedulerSlot(id) { byID[id] = perScheduler[slot] }
    }
    schedulers = byID.keys.sorted().map { id in
      let record = replay.scheduler(id)
      return byID[id, default: SchedulerAccumulator()].scheduler(
        id: id, label: record?.label ?? "scheduler \(id.rawValue)", kind: record?.kind ?? "",
        span: replay.end)
    }
    threads = replay.threads.map { thread in
      Thread(
        id: thread.id, title: thread.title,
        busy: replay.threadSlot(of: thread.id).map { busy[$0] } ?? 0)
    }
    self.activity = activity
    latenessHistogram = histogram
  }

  static func latenessBucket(_ late: Int64) -> Int {
    switch late {
    case ..<1_000_000: 0
    case ..<10_000_000: 1
    case ..<100_000_000: 2
    case ..<1_000_000_000: 3
    default: 4
    }
  }
}

/// What one scheduler gathers during the pass.
private struct SchedulerAccumulator {
  var scheduled = 0
  var ran = 0
  var cancelled = 0
  var lost = 0
  var runs = 0
  var lateness: [Int64] = []
  var waits: [Int64] = []
  var durations: [Int64] = []
  var running = 0
  var peak = 0
  var runTime: Int64 = 0
  /// Run time per 100 ms window, by window number.
  var windows: [Int64: Int64] = [:]

  mutating func began(late: Int64, timer: Bool, first: Bool) {
    runs += 1
    if first { ran += 1 }
    if timer { lateness.append(late) } else { waits.append(Swift.max(late, 0)) }
    running += 1
    peak = Swift.max(peak, running)
  }

  mutating func ended(from start: Int64, to end: Int64, length: Int64, window: Int64) {
    running = Swift.max(running - 1, 0)
    durations.append(length)
    runTime &+= length
    // Spread the run over the windows it covers (at most a few hundred for one run).
    var position = start
    var steps = 0
    while position < end, steps < 1_000 {
      let number = position / window
      let windowEnd = (number &+ 1).multiplied(saturating: window)
      let piece = Swift.min(end, windowEnd).subtracting(saturating: position)
      windows[number, default: 0] &+= piece
      position = windowEnd
      steps += 1
    }
  }

  func scheduler(id: SchedulerID, label: String, kind: String, span: Int64)
    -> TraceStatistics.Scheduler
  {
    let busiest = windows.max { ($0.value, $1.key) < ($1.value, $0.key) }
    return TraceStatistics.Scheduler(
      id: id, label: label, kind: kind, scheduled: scheduled, ran: ran, cancelled: cancelled,
      lost: lost, runs: runs, lateness: .init(lateness), wait: .init(waits),
      duration: .init(durations),
      utilisation: span > 0 ? Double(runTime) / Double(span) : 0, peakConcurrency: peak,
      busiestWindow: busiest.map { ($0.key.multiplied(saturating: 100_000_000), $0.value) })
  }
}
