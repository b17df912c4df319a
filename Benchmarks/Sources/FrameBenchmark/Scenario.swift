import BenchmarkSupport
import ChronoscopeTraceFormat

/// Traces that valid files can be and that once froze the inspector (issue 14), generated in
/// memory: each is what a file of that shape reads into.
enum Scenario: String, CaseIterable {
  /// 10,000 schedulers, each with one pending timer: per-lane counts that scan the pending set cost
  /// lanes × pending per frame.
  case lanes10k = "lanes-10k-pending-10k"
  /// The same at 100,000 × 100,000.
  case lanes100k = "lanes-100k-pending-100k"
  /// 10,000 pending repeating timers, then 100,000 events later: next-due found by scanning.
  case repeating = "repeating-10k-then-100k"
  /// 200 schedulers whose labels are each the longest string a trace holds (64 KiB).
  case longLabels = "labels-64k"
  /// 2,000,000 events in one window on 4 lanes: strips that stop scanning show gaps.
  case dense = "dense-2m"
  /// 100,000 schedulers that nothing used.
  case idleSchedulers = "schedulers-100k-idle"

  var summary: String {
    switch self {
    case .lanes10k: "10k schedulers × 1 pending timer"
    case .lanes100k: "100k schedulers × 1 pending timer"
    case .repeating: "10k pending repeating timers, then 100k events"
    case .longLabels: "200 schedulers with 64 KiB labels"
    case .dense: "2M events in one window on 4 lanes"
    case .idleSchedulers: "100k schedulers, 1k events"
    }
  }

  func trace() -> Trace {
    var builder = Builder()
    switch self {
    case .lanes10k: builder.pendingTimers(lanes: 10_000)
    case .lanes100k: builder.pendingTimers(lanes: 100_000)
    case .repeating:
      builder.schedulers(2, label: { "timers \($0)" })
      for action in 1...10_000 {
        builder.schedule(
          action: UInt32(action), scheduler: 1, mode: .repeating, delay: 1_000_000_000,
          at: Int64(action))
      }
      builder.busyWork(from: 20_000, actions: 33_334, scheduler: 2, firstAction: 10_001)
    case .longLabels:
      builder.schedulers(200) { index in
        String(repeating: "label \(index) ", count: 1 + TraceLimits.maximumStringLength / 16)
          .prefix(TraceLimits.maximumStringLength).description
      }
      builder.busyWork(from: 0, actions: 2_000, scheduler: nil, firstAction: 1)
    case .dense:
      builder.schedulers(4, label: { "dense \($0)" })
      // 2M events within 2 ms: one window at the default zoom holds them all.
      builder.busyWork(from: 0, actions: 666_667, scheduler: nil, firstAction: 1, spacing: 1)
    case .idleSchedulers:
      builder.schedulers(100_000, label: { "idle \($0)" })
      builder.busyWork(from: 0, actions: 333, scheduler: 1, firstAction: 1)
    }
    return builder.trace
  }
}

/// Makes a trace event by event, in time order.
private struct Builder {
  var trace = Trace(
    header: TraceHeader(clock: .virtual, start: "", process: "frame-benchmark", pid: 0))
  private var now: Int64 = 0

  mutating func schedulers(_ count: Int, label: (Int) -> String) {
    for id in 1...count {
      trace.schedulers[UInt32(id)] = SchedulerRecord(
        id: UInt32(id), label: label(id), kind: "serial", family: "virtual", time: 0)
    }
  }

  mutating func schedule(
    action: UInt32, scheduler: UInt32, mode: TraceEvent.ScheduleMode, delay: Int64, at time: Int64
  ) {
    now = max(now, time)
    trace.events.append(
      .schedule(
        time: now, action: action, scheduler: scheduler, mode: mode, delay: delay,
        due: now + delay, thread: 1, parent: 0, site: 0))
  }

  /// One pending one-shot timer, due in an hour, on each of `lanes` schedulers.
  mutating func pendingTimers(lanes: Int) {
    schedulers(lanes) { "scheduler \($0)" }
    for lane in 1...lanes {
      schedule(
        action: UInt32(lane), scheduler: UInt32(lane), mode: .after, delay: 3_600_000_000_000,
        at: Int64(lane))
    }
  }

  /// `actions` async actions, each scheduled, begun and ended (3 events) `spacing` ns apart,
  /// on `scheduler` or spread over every scheduler.
  mutating func busyWork(
    from start: Int64, actions: Int, scheduler: UInt32?, firstAction: Int, spacing: Int64 = 1_000
  ) {
    now = max(now, start)
    let schedulers = trace.schedulers.count
    for index in 0..<actions {
      let action = UInt32(firstAction + index)
      let lane = scheduler ?? UInt32(1 + index % schedulers)
      schedule(action: action, scheduler: lane, mode: .async, delay: 0, at: now + spacing)
      now += spacing
      trace.events.append(.begin(time: now, action: action, thread: 2, run: 1))
      now += spacing
      trace.events.append(.end(time: now, action: action, thread: 2, run: 1, duration: spacing))
    }
  }
}
