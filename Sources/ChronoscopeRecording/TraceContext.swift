import ChronoscopeTraceFormat

/// What a trace that starts part way through a recording needs first — a flight recorder's
/// segment, a rotated file: every definition written so far (threads, schedulers, call sites)
/// and the lines of the work live now (see ``LiveActions``).
///
/// The writer follows it as it encodes, for the sinks that start such traces.
struct TraceContext {
  private var live = LiveActions()
  private var threads: [(id: UInt32, name: String)] = []
  private var schedulers: [SchedulerRecord] = []
  private var sites: [CallSiteRecord] = []

  /// The live actions' ids, in no order.
  var liveActionIDs: [UInt32] { live.ids }

  /// Follows `event`; `work` is what a `work` event names, `taskName` a `task` event's name.
  mutating func note(_ event: TraceEvent, work: WorkRecord? = nil, taskName: String? = nil) {
    live.note(event, work: work, taskName: taskName)
  }

  mutating func defineThread(_ id: UInt32, name: String) { threads.append((id, name)) }
  mutating func defineScheduler(_ scheduler: SchedulerRecord) { schedulers.append(scheduler) }
  mutating func defineSite(_ site: CallSiteRecord) { sites.append(site) }

  /// The lines that make what follows `start` a trace of its own: every definition written so
  /// far, then the lines of the work live at `start`, in time order.
  func lines(at start: Int64) -> (bytes: [UInt8], events: Int64) {
    let (events, works, taskNames) = live.events
    let time = events.first?.time ?? start
    var context = TraceEncoder()
    for thread in threads { context.thread(id: thread.id, name: thread.name, time: time) }
    for var scheduler in schedulers {
      scheduler.time = time
      context.scheduler(scheduler)
    }
    for site in sites { context.callSite(site, time: time) }
    for event in events {
      context.event(
        event, work: works[event.action],
        taskName: event.kind == .task ? taskNames[event.action] : nil)
    }
    return (context.bytes, Int64(events.count))
  }
}
