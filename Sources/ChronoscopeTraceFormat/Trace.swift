/// A trace read into memory: the header, the events in order, and the tables they refer to.
public struct Trace: Sendable {
  /// The header line.
  public var header: TraceHeader
  /// The runtime events, in file order.
  public var events: [TraceEvent]
  /// The schedulers, by id.
  public var schedulers: [UInt32: SchedulerRecord]
  /// The call sites, by id.
  public var callSites: [UInt32: CallSiteRecord]
  /// Thread names, by thread id.
  public var threadNames: [UInt32: String]
  /// The marks; ``TraceEvent/markIndex`` indexes them.
  public var marks: [MarkRecord]
  /// The names and values of named work; ``TraceEvent/workIndex`` indexes them.
  public var works: [WorkRecord] = []
  /// The names of Swift tasks that had one (`Task(name:)`), by the runtime's id (``TraceEvent/task``).
  public var taskNames: [UInt64: String] = [:]
  /// The end marker's counts, when the recording was closed cleanly.
  public var closing: Closing?
  /// How the process died, when the recorder wrote a `crash` line.
  public var crash: Crash?
  /// When the recording closed (the `close` line's `t`): later than the last event when the app
  /// closed the recorder in the middle of a run.
  public var closedAt: Int64?
  /// Events the recorder reported dropping (from its `dropped` lines), even without an end
  /// marker.
  public var droppedEvents: Int64 = 0
  /// The time of the last `dropped` line that counted events: what was recorded before it may
  /// have lost events after it (a run's begin, say).
  public var lastDropTime: Int64?
  /// Each `dropped` line that counted events, in line order: where the trace has holes.
  package var drops: [TraceDrop] = []
  /// Why the recorder stopped writing (a full disk, say), when its last line says so.
  public var writeFailure: String?

  /// What the last line of a cleanly closed trace says.
  public struct Closing: Sendable, Equatable {
    /// Events the recorder wrote.
    public var written: Int64
    /// Events the recorder dropped because the disk could not keep up.
    public var dropped: Int64

    /// Makes the counts.
    public init(written: Int64, dropped: Int64) {
      self.written = written
      self.dropped = dropped
    }
  }

  /// What the `crash` line of a trace whose process crashed says.
  public struct Crash: Sendable, Equatable {
    /// The signal, as named in the file (`SIGSEGV`, `SIGILL`…).
    public var signal: String
    /// The thread it hit.
    public var thread: UInt32
    /// When the recorder wrote what it held.
    public var time: Int64

    /// Makes the record.
    /// Whether a signal that stops a process (Ctrl-C's SIGINT, `kill`'s SIGTERM, a closed
    /// terminal's SIGHUP, SIGQUIT) ended it, rather than a crash: a recorder that catches those
    /// writes the same line.
    public var isStop: Bool { ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"].contains(signal) }

    /// What ended the process, in words: "crashed (SIGSEGV on thread 3)", or "was stopped by
    /// SIGINT (on thread 3)"; without the thread when the recorder did not know it (thread 0:
    /// "crashed (SIGSEGV)", "was stopped by SIGINT").
    public var ending: String {
      switch (isStop, thread) {
      case (true, 0): "was stopped by \(signal)"
      case (true, _): "was stopped by \(signal) (on thread \(thread))"
      case (false, 0): "crashed (\(signal))"
      case (false, _): "crashed (\(signal) on thread \(thread))"
      }
    }

    /// The ending by `signal` (its name, `SIGSEGV`) on `thread`, at `time` (ns).
    public init(signal: String, thread: UInt32, time: Int64) {
      self.signal = signal
      self.thread = thread
      self.time = time
    }
  }

  /// Makes a trace.
  public init(
    header: TraceHeader, events: [TraceEvent] = [], schedulers: [UInt32: SchedulerRecord] = [:],
    callSites: [UInt32: CallSiteRecord] = [:], threadNames: [UInt32: String] = [:],
    marks: [MarkRecord] = [], closing: Closing? = nil
  ) {
    self.header = header
    self.events = events
    self.schedulers = schedulers
    self.callSites = callSites
    self.threadNames = threadNames
    self.marks = marks
    self.closing = closing
  }

  /// The time of the last event, or 0 for an empty trace.
  public var span: Int64 { events.last?.time ?? 0 }

  /// The trace's end: the one instant `show`, `stats`, `slice` and the inspector call its end
  /// (see ``end(lastEvent:closedAt:crash:)``), from its latest event, wherever that is in the
  /// file (a line dated before the one above it is only a warning).
  ///
  /// - Complexity: O(events).
  public var end: Int64 {
    Self.end(
      lastEvent: events.reduce(0) { max($0, $1.time) }, closedAt: closedAt, crash: crash)
  }

  /// The end of a trace whose last event is at `lastEvent`: when the recording closed (its
  /// `close` line) or crashed (its `crash` line) when the file says, else its last event.
  ///
  /// A recorder closed while the app is idle writes its `close` line after the last event (a
  /// search field recorded for 30 s whose last keystroke came at 1 s ends at 30 s): the
  /// recording covers that quiet time too. Never before the last event, whatever the file says.
  public static func end(lastEvent: Int64, closedAt: Int64?, crash: Crash?) -> Int64 {
    max(lastEvent, closedAt ?? lastEvent, crash?.time ?? lastEvent)
  }
}
