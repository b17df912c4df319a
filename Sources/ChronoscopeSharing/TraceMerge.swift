@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// Several processes' traces as one trace on one timeline, so that every view, the findings and
/// the export see them together.
///
/// Each trace's times move by its ``ProcessTimeline`` offset; its ids (actions, schedulers, threads,
/// call sites, marks) move past the ids of the traces before it, so none collide; its scheduler labels
/// and thread names start with a short process tag, `P2 main` — the process column of every lane,
/// short enough to leave the label readable. The header's `merged` metadata says which process
/// and file each tag stands for. Events are merged in time order (each trace keeps its own order
/// among equal times).
///
/// ```swift
/// let merged = try TraceMerge.merge([client, server])
/// let replay = ReplayEngine(trace: merged)
/// ```
package enum TraceMerge {
  /// Why traces cannot be merged.
  package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    package var description: String
  }

  /// The tag of the trace at `index` in a merge: `P1`, `P2`…
  package static func tag(_ index: Int) -> String { "P\(index + 1)" }

  /// Merges `traces` (one per process). Times are aligned by ``ProcessTimeline``.
  ///
  /// - Parameter sources: Where each trace came from (its file), for the legend in the header.
  /// - Throws: ``Failure`` when the traces mix host and virtual clocks (their times cannot be
  ///   lined up), or when ids or times would leave the ranges of ``TraceLimits``.
  package static func merge(_ traces: [Trace], sources: [String] = []) throws(Failure) -> Trace {
    guard let first = traces.first else { throw Failure(description: "no traces to merge") }
    guard traces.count > 1 else { return first }
    guard traces.allSatisfy({ $0.header.clock == first.header.clock }) else {
      throw Failure(
        description:
          "cannot merge host-clock and virtual-clock traces: their times cannot be lined up")
    }
    let timeline = ProcessTimeline(headers: traces.map(\.header))
    let names = traces.indices.map(tag)
    var shifts: [Shift] = []
    var next = Shift(
      time: 0, action: 0, scheduler: 0, thread: 0, site: 0, mark: 0, work: 0, task: 0)
    for (index, trace) in traces.enumerated() {
      next.time = timeline.offsets[index]
      shifts.append(next)
      let used = Used(trace)
      next.action = try advance(next.action, past: used.action, "action ids")
      next.scheduler = try advance(next.scheduler, past: used.scheduler, "scheduler ids")
      next.thread = try advance(next.thread, past: used.thread, "thread ids")
      next.site = try advance(next.site, past: used.site, "call-site ids")
      next.mark = try advance(next.mark, past: UInt32(clamping: trace.marks.count), "marks")
      next.work = try advance(next.work, past: UInt32(clamping: trace.works.count), "named work")
      // Two processes' runtimes both count tasks from 1: the ids move apart as the others do.
      let (task, overflow) = next.task.addingReportingOverflow(used.task)
      guard !overflow, task <= UInt64(TraceLimits.maximumTime) else {
        throw Failure(description: "too many task ids to merge: they pass 2^62 - 1 together")
      }
      next.task = task
    }

    var header = first.header
    header.process = traces.map(\.header.process).joined(separator: " + ")
    header.pid = 0
    let earliest = traces.indices.min { timeline.offsets[$0] < timeline.offsets[$1] } ?? 0
    header.start = traces[earliest].header.start
    header.startNanoseconds = traces[earliest].header.startNanoseconds
    header.cores = traces.compactMap(\.header.cores).max()
    header.metadata = [
      "merged": traces.indices.map { index in
        let header = traces[index].header
        let source = index < sources.count ? " from \(sources[index])" : ""
        return "\(names[index]) = \(header.process) pid \(header.pid)\(source)"
      }.joined(separator: "; ")
    ]

    var merged = Trace(header: header)
    var dropped: Int64 = 0
    for (index, trace) in traces.enumerated() {
      let shift = shifts[index]
      let name = names[index]
      for (id, record) in trace.schedulers {
        let scheduler = id &+ shift.scheduler
        merged.schedulers[scheduler] = SchedulerRecord(
          id: scheduler, label: "\(name) \(record.label)", kind: record.kind, family: record.family,
          time: try shift.moved(record.time))
      }
      for (id, site) in trace.callSites where id != 0 {
        merged.callSites[id &+ shift.site] = CallSiteRecord(
          id: id &+ shift.site, file: site.file, line: site.line, function: site.function,
          code: site.code)
      }
      // Every thread gets a name: its title in its own trace (`worker 5` for a nameless one or
      // a cut-off fragment, with its id there), after the process tag.
      var threads = Set(trace.threadNames.keys)
      for event in trace.events where event.kind != .task && event.kind != .work {
        threads.insert(event.thread)
        if event.kind == .hop { threads.insert(event.fromThread) }
      }
      let ids = threads.sorted()
      let titles = ThreadInfo.titles(
        for: ids.map { (ThreadID(rawValue: $0), trace.threadNames[$0]) })
      for (id, title) in zip(ids, titles) {
        merged.threadNames[id &+ shift.thread] = "\(name) \(title)"
      }
      merged.marks += trace.marks
      merged.works += trace.works
      for (task, name) in trace.taskNames { merged.taskNames[task &+ shift.task] = name }
      dropped = min(dropped &+ trace.droppedEvents, TraceLimits.maximumCount)
      if let crash = trace.crash, merged.crash == nil {
        merged.crash = Trace.Crash(
          signal: crash.signal, thread: crash.thread &+ shift.thread,
          time: try shift.moved(crash.time))
      }
    }
    merged.droppedEvents = dropped
    if traces.allSatisfy({ $0.closing != nil }) {
      var written: Int64 = 0
      var droppedAtClose: Int64 = 0
      for closing in traces.compactMap(\.closing) {
        written = min(written &+ closing.written, TraceLimits.maximumCount)
        droppedAtClose = min(droppedAtClose &+ closing.dropped, TraceLimits.maximumCount)
      }
      merged.closing = Trace.Closing(written: written, dropped: droppedAtClose)
      merged.closedAt = try traces.indices.map { index throws(Failure) in
        try traces[index].closedAt.map { time throws(Failure) in try shifts[index].moved(time) }
      }.compactMap { $0 }.max()
    }
    merged.events = try mergedEvents(traces, shifts)
    return merged
  }

  // MARK: - Ids and times

  /// How far one trace's times and ids move.
  private struct Shift {
    var time: Int64
    var action: UInt32
    var scheduler: UInt32
    var thread: UInt32
    var site: UInt32
    var mark: UInt32
    var work: UInt32
    var task: UInt64

    func moved(_ time: Int64) throws(Failure) -> Int64 {
      let (sum, overflow) = time.addingReportingOverflow(self.time)
      guard !overflow, sum <= TraceLimits.maximumTime else {
        throw Failure(
          description: "a time moved onto the shared timeline passes the format's largest time")
      }
      return sum
    }

    /// An id that 0 means "none" for (a parent, a call site) moves only when it is set.
    func event(_ event: TraceEvent) throws(Failure) -> TraceEvent {
      let time = try moved(event.time)
      switch event.kind {
      case .schedule:
        return .schedule(
          time: time, action: event.action &+ action, scheduler: event.scheduler &+ scheduler,
          mode: event.mode, delay: event.delay, due: try moved(event.due),
          thread: event.thread &+ thread, parent: event.parent.map { $0 &+ action } ?? 0,
          site: event.site == 0 ? 0 : event.site &+ site, inline: event.ranInline)
      case .begin:
        return .begin(
          time: time, action: event.action &+ action, thread: event.thread &+ thread,
          run: event.run)
      case .end:
        return .end(
          time: time, action: event.action &+ action, thread: event.thread &+ thread,
          run: event.run, duration: event.duration)
      case .hop:
        return .hop(
          time: time, action: event.action &+ action, from: event.fromThread &+ thread,
          to: event.thread &+ thread)
      case .cancel:
        return .cancel(
          time: time, action: event.action &+ action, thread: event.thread &+ thread,
          by: event.parent.map { $0 &+ action } ?? 0, started: event.started)
      case .mark:
        return .mark(
          time: time, thread: event.thread &+ thread,
          mark: UInt32(truncatingIfNeeded: event.markIndex ?? 0) &+ mark)
      case .task:
        // Both ids are within the limits that ``merge(_:sources:)`` checked.
        return .task(time: time, action: event.action &+ action, task: (event.task ?? 0) &+ task)
      case .work:
        return .work(
          time: time, action: event.action &+ action,
          work: UInt32(truncatingIfNeeded: event.workIndex ?? 0) &+ work)
      case .wait:
        return .wait(
          time: time, thread: event.thread &+ thread,
          scheduler: event.scheduler == 0 ? 0 : event.scheduler &+ scheduler,
          duration: event.duration, on: event.waitObject ?? .semaphore,
          by: event.endedBy.map { $0 &+ action } ?? 0,
          site: event.site == 0 ? 0 : event.site &+ site)
      }
    }
  }

  /// The largest id of each kind a trace uses, plus one for thread ids (which start at 0).
  private struct Used {
    var action: UInt32 = 0
    var scheduler: UInt32 = 0
    var thread: UInt32 = 0
    var site: UInt32 = 0
    var task: UInt64 = 0

    init(_ trace: Trace) {
      func thread(_ id: UInt32) -> UInt32 { id == .max ? .max : id + 1 }
      for event in trace.events {
        if let task = event.task {
          action = max(action, event.action)
          self.task = max(self.task, task)
          continue  // it names no thread
        }
        if event.kind == .work {
          action = max(action, event.action)
          continue  // nor does this
        }
        action = max(action, event.action, event.parent ?? 0)
        scheduler = max(scheduler, event.scheduler)
        self.thread = max(self.thread, thread(event.thread), thread(event.fromThread))
        site = max(site, event.site)
      }
      scheduler = max(scheduler, trace.schedulers.keys.max() ?? 0)
      site = max(site, trace.callSites.keys.max() ?? 0)
      self.thread = max(self.thread, thread(trace.threadNames.keys.max() ?? 0))
      if let crash = trace.crash { self.thread = max(self.thread, thread(crash.thread)) }
    }
  }

  private static func advance(_ base: UInt32, past used: UInt32, _ what: String) throws(Failure)
    -> UInt32
  {
    let (sum, overflow) = base.addingReportingOverflow(used)
    guard !overflow else {
      throw Failure(description: "too many \(what) to merge: they pass 2^32 - 1 together")
    }
    return sum
  }

  /// The traces' events in time order: each trace's own order kept, ties going to the earlier
  /// trace.
  private static func mergedEvents(_ traces: [Trace], _ shifts: [Shift]) throws(Failure)
    -> [TraceEvent]
  {
    var events: [TraceEvent] = []
    events.reserveCapacity(traces.reduce(0) { $0 + $1.events.count })
    var heads = [Int](repeating: 0, count: traces.count)
    var moved: [TraceEvent?] = try traces.indices.map { index throws(Failure) in
      try traces[index].events.first.map { event throws(Failure) in
        try shifts[index].event(event)
      }
    }
    while true {
      var chosen: Int?
      for index in moved.indices {
        guard let event = moved[index] else { continue }
        if let best = chosen, let bestEvent = moved[best], bestEvent.time <= event.time { continue }
        chosen = index
      }
      guard let index = chosen, let event = moved[index] else { break }
      events.append(event)
      heads[index] += 1
      let trace = traces[index]
      moved[index] =
        heads[index] < trace.events.count
        ? try shifts[index].event(trace.events[heads[index]]) : nil
    }
    return events
  }
}
