@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// A time window cut out of a trace that still validates and replays truthfully: at any instant
/// of the window, the slice's replay shows the same pending and running work as the original's.
///
/// ```swift
/// let window = try TraceSlice.Window(from: 1_200_000_000, to: 1_500_000_000, in: trace)
/// let slice = TraceSlice.cut(trace, window: window, source: "busy-app.trace")
/// try TraceFileWriter.save(TraceEncoder.encode(slice), to: "window.trace", input: path)
/// ```
///
/// What the slice holds (docs/Sharing.md):
/// - every event from `from` to `to`, both included, as in the original: same times, same ids;
/// - the whole history before `from` of each action that is pending or running at `from`, or
///   that an event in the window concerns: its `schedule`, and its `hop`, `begin`, `end` and
///   `cancel` lines, at their own times. So a running action has its begin, a pending one its
///   schedule, and a repeating timer every run before the window: its run numbers follow on and
///   its rhythm (first due + k × interval) comes out right;
/// - the definitions those lines use, and the marks of the window;
/// - the header, with `slice_of` (the original's file name), `slice_from_ns` and `slice_to_ns`
///   added to its metadata;
/// - an end marker counting the slice's events, unless the window reaches the end of a trace
///   that did not close: then the slice ends as the original did (with its `crash` line, if any).
///
/// Everything else before the window is left out: actions finished before it, and marks.
/// `parent` and `by` keep naming actions that finished before the window; those have no
/// `schedule` line in the slice (readers take an unknown parent as none).
package enum TraceSlice {
  /// The window of a slice: from `from` to `to`, both included, inside the trace.
  package struct Window: Sendable, Equatable {
    /// The first instant kept, in trace nanoseconds.
    package let from: Int64
    /// The last instant kept, in trace nanoseconds.
    package let to: Int64

    /// Checks a window against `trace`.
    ///
    /// - Throws: ``WindowError`` when `from` is after `to` or either lies after the trace's
    ///   end (its last event, or its end marker if later).
    package init(from: Int64, to: Int64, in trace: Trace) throws(WindowError) {
      let end = TraceSlice.end(of: trace)
      let extent = "the trace spans 0s to \(TimeText.seconds(end))"
      guard from >= 0, to >= 0 else {
        throw WindowError(description: "times start at 0s")
      }
      guard from <= end else {
        throw WindowError(
          description: "the window starts at \(TimeText.seconds(from)), after the end: \(extent)")
      }
      guard to <= end else {
        throw WindowError(
          description: "the window ends at \(TimeText.seconds(to)), after the end: \(extent)")
      }
      guard from <= to else {
        throw WindowError(
          description:
            "the window starts at \(TimeText.seconds(from)), after its end at \(TimeText.seconds(to))"
        )
      }
      self.from = from
      self.to = to
    }
  }

  /// Why a window cannot be cut.
  package struct WindowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What to tell the user.
    package let description: String
  }

  /// The last instant of `trace`: ``Trace/end``.
  package static func end(of trace: Trace) -> Int64 { trace.end }

  /// The instant a seek target names in `replay`, as `show --at` reads it: a time as it is, an
  /// event (`e120`) at its time (`e0` at 0), an action (`#12`) when it was scheduled.
  ///
  /// - Throws: ``WindowError`` for an event past the last or an action the trace does not have.
  package static func time(of target: TimeText.Target, in replay: ReplayEngine) throws(WindowError)
    -> Int64
  {
    switch target {
    case .time(let time):
      return time
    case .event(let number):
      guard number <= replay.eventCount else {
        throw WindowError(
          description:
            "e\(number) is past the last event: the trace has events e1 to e\(replay.eventCount) (e0 is the start)"
        )
      }
      return number == 0 ? 0 : replay.event(EventIndex(number - 1)).time
    case .action(let id):
      guard let action = replay.index(of: id) else {
        throw WindowError(description: "the trace has no action \(id)")
      }
      return replay.action(action).scheduledAt
    }
  }

  /// Cuts `window` out of `trace` (see the type's documentation).
  ///
  /// - Parameter source: The original's file name, for the header's `slice_of`. A bare name,
  ///   not a path: a path can say whose machine it was.
  /// - Complexity: O(n log n) for n events when the trace is out of time order, else O(n).
  package static func cut(_ trace: Trace, window: Window, source: String) -> Trace {
    let history = actionsWithHistory(trace, window: window)
    var events: [TraceEvent] = []
    var marks: [MarkRecord] = []
    var works: [WorkRecord] = []
    var threads = Set<UInt32>()
    var schedulers = Set<UInt32>()
    var sites = Set<UInt32>()
    for event in trace.events {
      if event.time < window.from {
        guard event.kind != .mark, history.contains(event.action) else { continue }
      } else if event.time > window.to {
        continue
      }
      var kept = event
      if let index = event.markIndex {
        kept = .mark(time: event.time, thread: event.thread, mark: UInt32(marks.count))
        marks.append(
          trace.marks.indices.contains(index) ? trace.marks[index] : MarkRecord(name: ""))
      }
      if let index = event.workIndex {
        kept = .work(time: event.time, action: event.action, work: UInt32(works.count))
        works.append(
          trace.works.indices.contains(index) ? trace.works[index] : WorkRecord(name: ""))
      }
      if event.kind != .task, event.kind != .work { threads.insert(event.thread) }
      if event.kind == .hop { threads.insert(event.fromThread) }
      if event.kind == .schedule {
        schedulers.insert(event.scheduler)
        sites.insert(event.site)
      }
      events.append(kept)
    }
    var header = trace.header
    header.metadata[TraceHeader.sliceSourceKey] = source
    header.metadata[TraceHeader.sliceFromKey] = String(window.from)
    header.metadata[TraceHeader.sliceToKey] = String(window.to)
    var slice = Trace(
      header: header, events: events,
      schedulers: trace.schedulers.filter { schedulers.contains($0.key) },
      callSites: trace.callSites.filter { sites.contains($0.key) },
      threadNames: trace.threadNames.filter { threads.contains($0.key) }, marks: marks)
    slice.droppedEvents = trace.droppedEvents
    slice.works = works
    let tasks = Set(events.compactMap(\.task))
    slice.taskNames = trace.taskNames.filter { tasks.contains($0.key) }
    let lastEvent = trace.events.reduce(0) { max($0, $1.time) }
    let crashInWindow = trace.crash.map { $0.time <= window.to } ?? true
    if trace.closing == nil, window.to >= lastEvent, crashInWindow {
      // The window reaches the end of a recording that did not close: it ends as that did.
      slice.crash = trace.crash
    } else {
      slice.closing = Trace.Closing(written: Int64(events.count), dropped: trace.droppedEvents)
      slice.closedAt = min(trace.closedAt ?? window.to, window.to)
    }
    return slice
  }

  /// The actions whose lines before the window the slice keeps: those pending or running at its
  /// start, and those an event in the window concerns (so a late `cancel` or a stray `begin`
  /// meets the same history as in the original).
  private static func actionsWithHistory(_ trace: Trace, window: Window) -> Set<UInt32> {
    // The replay's rules: events in time order (the file's among equal times), the first
    // schedule of an id counts, and each action moves through the one state machine.
    var states: [UInt32: (state: ActionState, repeating: Bool)] = [:]
    var concerned = Set<UInt32>()
    for event in timeOrdered(trace.events) where event.kind != .mark {
      guard event.time < window.from else {
        if event.time <= window.to { concerned.insert(event.action) }
        continue
      }
      let known = states[event.action]
      // A line of an action not scheduled yet is ignored, as the replay ignores it; it is kept
      // only with the action's other lines, if an event in the window concerns it.
      if known == nil, event.kind != .schedule { continue }
      let repeating = known?.repeating ?? (event.mode == .repeating)
      let state = ReplayEngine.transition(
        event.kind, from: known?.state ?? .unscheduled, repeating: repeating)
      states[event.action] = (state, repeating)
    }
    var kept = Set(states.compactMap { $0.value.state == .done ? nil : $0.key })
    kept.formUnion(concerned)
    return kept
  }

  private static func timeOrdered(_ events: [TraceEvent]) -> [TraceEvent] {
    if zip(events, events.dropFirst()).allSatisfy({ $0.time <= $1.time }) { return events }
    return events.enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }.map(\.element)
  }
}
