import ChronoscopeCore
import ChronoscopeScheduling
import ChronoscopeTraceFormat

/// How much of the recent past a ``FlightRecorder`` keeps in memory.
///
/// It keeps at least the last `duration` of recording, unless that would take more than
/// `maxBytes` of encoded trace: memory wins. The window moves in steps (a few per `duration`,
/// and about an eighth of `maxBytes` each), so a dump may hold somewhat more than asked for,
/// never less while memory allows.
///
/// ```swift
/// let window = FlightRecorderWindow(keeping: .seconds(30), maxBytes: 32 << 20)
/// ```
public struct FlightRecorderWindow: Sendable, Equatable {
  /// The span of recent recording to keep, at least.
  public var duration: Duration
  /// The most bytes of encoded trace to keep (64 KiB at least).
  public var maxBytes: Int

  /// A window of at least `duration` of recent recording, in at most `maxBytes` (64 KiB at
  /// least).
  public init(keeping duration: Duration = .seconds(10), maxBytes: Int = 16 << 20) {
    self.duration = duration
    self.maxBytes = maxBytes
  }

  var nanoseconds: Int64 { max(duration.clampedNanoseconds, 0) }
}

/// The trace kept in memory: segments of encoded lines, each opening with a *context* that
/// makes the segment and everything after it a trace of its own.
///
/// A context holds every definition written so far (threads, schedulers, call sites) and the
/// lines that describe the work live where the segment starts: each pending or running action's
/// `schedule`, the `begin` of its run under way, a repeating action's last `begin`/`end` (so
/// its run numbers carry on), and the `cancel` of work cancelled while it ran. A dump is the
/// oldest segment's context followed by every segment's lines, so only the oldest context is
/// ever written; the others wait for their turn to be the oldest.
struct FlightMemory {
  struct Segment {
    /// The time of the last line before the segment: its context is at or before it, its lines
    /// at or after it.
    var start: Int64
    var context: [UInt8]
    var contextEvents: Int64
    var lines: [UInt8] = []
    var events: Int64 = 0
    var dropped: Int64 = 0
  }

  let window: FlightRecorderWindow
  private(set) var segments: [Segment]
  private(set) var bytes = 0

  init(window: FlightRecorderWindow) {
    self.window = window
    segments = [Segment(start: 0, context: [], contextEvents: 0)]
  }

  private var maxBytes: Int { max(window.maxBytes, 64 << 10) }
  private var segmentBytes: Int { maxBytes / 8 }
  private var segmentSpan: Int64 { max(window.nanoseconds / 4, 1_000_000) }

  /// Appends lines holding `events` events to the newest segment.
  mutating func append(_ lines: [UInt8], events: Int) {
    segments[segments.count - 1].lines.append(contentsOf: lines)
    segments[segments.count - 1].events += Int64(events)
    bytes += lines.count
  }

  mutating func noteDropped(_ count: Int64) {
    segments[segments.count - 1].dropped += count
  }

  /// Whether the newest segment is big or old enough to close at `time`.
  func newestIsFull(at time: Int64) -> Bool {
    let newest = segments[segments.count - 1]
    return newest.lines.count >= segmentBytes
      || (newest.events > 0
        && time.subtracting(saturating: newest.start) >= segmentSpan)
  }

  /// Starts a segment at `start` with `context`, then lets go of the oldest segments that the
  /// window no longer needs.
  mutating func startSegment(at start: Int64, context: [UInt8], contextEvents: Int64) {
    segments.append(Segment(start: start, context: context, contextEvents: contextEvents))
    bytes += context.count
    let keepFrom = start.subtracting(saturating: window.nanoseconds)
    // Only the oldest context is written: count the others' bytes too, since they are held.
    while segments.count > 1,
      bytes > maxBytes || segments[1].start <= keepFrom
    {
      let oldest = segments.removeFirst()
      bytes -= oldest.context.count + oldest.lines.count
    }
  }

  /// Events and drops a dump holds: the oldest context's and every segment's lines.
  var counts: (events: Int64, dropped: Int64) {
    segments.reduce((segments[0].contextEvents, 0)) { ($0.0 + $1.events, $0.1 + $1.dropped) }
  }
}

/// The work live at each moment, as the lines a context needs to describe it.
struct LiveActions {
  private struct Life {
    var schedule: TraceEvent
    var begin: TraceEvent?
    var end: TraceEvent?
    var cancel: TraceEvent?
    /// Its `task` line, when it is work of a Swift task, and the task's name if it had one.
    var task: TraceEvent?
    var taskName: String?
    /// Its `work` line and what it names, when the app named the work.
    var work: (event: TraceEvent, record: WorkRecord)?
    var running: Bool { begin != nil && end == nil }
  }

  private var lives: [UInt32: Life] = [:]

  var count: Int { lives.count }

  /// The live actions' ids, in no order.
  var ids: [UInt32] { Array(lives.keys) }

  /// Follows `event` (with the file's action ids); `work` is what a `work` event names.
  mutating func note(_ event: TraceEvent, work: WorkRecord? = nil, taskName: String? = nil) {
    let action = event.action
    switch event.kind {
    case .schedule:
      lives[action] = Life(schedule: event)
    case .begin:
      guard lives[action] != nil else { return }
      lives[action]?.begin = event
      lives[action]?.end = nil
    case .end:
      guard let life = lives[action] else { return }
      if life.schedule.mode == .repeating, life.cancel == nil {
        lives[action]?.end = event
      } else {
        lives[action] = nil  // one-shot work, or a cancelled timer, is done after its run
      }
    case .cancel:
      guard let life = lives[action] else { return }
      if life.running { lives[action]?.cancel = event } else { lives[action] = nil }
    case .task:
      lives[action]?.task = event
      lives[action]?.taskName = taskName
    case .work:
      if let work { lives[action]?.work = (event, work) }
    case .hop, .mark, .wait:
      break
    }
  }

  /// The context's event lines, in time order (and, at one instant, in the order they happened
  /// to each action), and what the `work` and `task` lines among them name, by action.
  var events: (events: [TraceEvent], works: [UInt32: WorkRecord], taskNames: [UInt32: String]) {
    var events: [TraceEvent] = []
    var works: [UInt32: WorkRecord] = [:]
    var taskNames: [UInt32: String] = [:]
    events.reserveCapacity(lives.count * 2)
    for (action, life) in lives {
      events.append(life.schedule)
      for event in [life.task, life.work?.event, life.begin, life.end, life.cancel] {
        if let event { events.append(event) }
      }
      if let work = life.work { works[action] = work.record }
      if let name = life.taskName { taskNames[action] = name }
    }
    func rank(_ kind: TraceEvent.Kind) -> Int {
      switch kind {
      case .schedule: 0
      case .task: 1
      case .work: 2
      case .begin: 3
      case .cancel: 4
      default: 5
      }
    }
    let sorted = events.sorted {
      ($0.time, rank($0.kind), $0.action) < ($1.time, rank($1.kind), $1.action)
    }
    return (sorted, works, taskNames)
  }
}
