/// One thing that happened in a recorded run, in a compact fixed-size form (48 bytes).
///
/// Strings (labels, file names, mark text) live in the ``Trace``'s tables; events refer to them
/// by id. Fields that only some kinds use are read through accessors such as ``parent`` or
/// ``duration``, which answer zero or nil for other kinds.
public struct TraceEvent: Sendable, Hashable {
  /// Nanoseconds since the start of the trace, on the trace's clock.
  public var time: Int64
  /// What happened.
  public var kind: Kind
  /// How the action was scheduled (``Kind/schedule`` only).
  public var mode: ScheduleMode
  /// ``started`` for a cancel, ``ranInline`` for a schedule.
  @usableFromInline var flag: Bool
  /// The action's id; 0 for events that concern no action.
  public var action: UInt32
  /// The scheduler's id (``Kind/schedule``), else 0.
  public var scheduler: UInt32
  /// The thread the event happened on (for a hop, the thread it hopped to).
  public var thread: UInt32
  /// The call site's id (``Kind/schedule``), or the mark's index (``Kind/mark``), else 0.
  public var site: UInt32
  @usableFromInline var aux: UInt32
  @usableFromInline var first: Int64
  @usableFromInline var second: Int64

  /// What an event records.
  public enum Kind: UInt8, Sendable, CaseIterable {
    /// Work was handed to a scheduler.
    case schedule
    /// An action started running.
    case begin
    /// An action finished running.
    case end
    /// An action ran on a different thread from the one that scheduled it.
    case hop
    /// An action was cancelled.
    case cancel
    /// The app marked a moment (`mark("login tapped")`).
    case mark
    /// The action is work of a Swift task — an actor's job, a sleep — written just after its
    /// schedule. Not an event in the action's life: it names who the work belongs to.
    case task
    /// The action is work the app named (a `WorkContext`): written just after its schedule, and,
    /// like ``task``, not an event in the action's life.
    case work
    /// A thread waited, outside any recorded run, for something other work does: a semaphore's
    /// signal, a group's last leave (minor revision; `chronoscope record` writes it for the main
    /// thread, which then does nothing else).
    case wait

    /// The name used in trace files: the one table of event names. The encoder writes it, the
    /// reader looks names up through ``init(name:)``, and ``name`` derives from it, so a new kind
    /// is named in this switch alone.
    package var staticName: StaticString {
      switch self {
      case .schedule: "schedule"
      case .begin: "begin"
      case .end: "end"
      case .hop: "hop"
      case .cancel: "cancel"
      case .mark: "mark"
      case .task: "task"
      case .work: "work"
      case .wait: "wait"
      }
    }

    /// The name used in trace files.
    public var name: String { staticName.description }

    /// The kind a trace file names `name`, if any.
    package init?(name: some StringProtocol) {
      guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
      self = kind
    }
  }

  /// How an action was scheduled.
  public enum ScheduleMode: UInt8, Sendable, CaseIterable {
    /// As soon as possible.
    case async
    /// Run while the caller waits.
    case sync
    /// Once, after a delay.
    case after
    /// Every interval until cancelled.
    case repeating

    /// The name used in trace files, as static text for the encoder; ``name`` derives from it.
    package var staticName: StaticString {
      switch self {
      case .async: "async"
      case .sync: "sync"
      case .after: "after"
      case .repeating: "repeating"
      }
    }

    /// The name used in trace files.
    public var name: String { staticName.description }

    /// Parses a trace file's name.
    public init?(name: some StringProtocol) {
      guard let mode = Self.allCases.first(where: { $0.name == name }) else { return nil }
      self = mode
    }
  }

  @usableFromInline
  init(time: Int64, kind: Kind, action: UInt32, thread: UInt32) {
    self.time = time
    self.kind = kind
    mode = .async
    flag = false
    self.action = action
    scheduler = 0
    self.thread = thread
    site = 0
    aux = 0
    first = 0
    second = 0
  }

  // MARK: - Making events

  /// `action` was handed to `scheduler` from `thread`, while `parent` ran there (0: none).
  ///
  /// - Parameters:
  ///   - time: When it was scheduled, in trace time.
  ///   - action: The action's id.
  ///   - scheduler: The scheduler's (scheduler's) id.
  ///   - mode: How it was scheduled: `async`, `sync`, `after` or `repeating`.
  ///   - delay: The delay (``ScheduleMode/after``) or interval (``ScheduleMode/repeating``).
  ///   - due: When it is first due, in trace time.
  ///   - thread: The thread that scheduled it.
  ///   - parent: The action running on that thread then, or 0 for none.
  ///   - site: Its call site's id, or 0 for none.
  ///   - inline: For a `sync`, whether it ran inline because the calling thread already held the
  ///     scheduler (waiting would have deadlocked).
  @inlinable
  public static func schedule(
    time: Int64, action: UInt32, scheduler: UInt32, mode: ScheduleMode, delay: Int64, due: Int64,
    thread: UInt32, parent: UInt32, site: UInt32, inline: Bool = false
  ) -> TraceEvent {
    var event = TraceEvent(time: time, kind: .schedule, action: action, thread: thread)
    event.flag = inline && mode == .sync
    event.scheduler = scheduler
    event.mode = mode
    event.first = delay
    event.second = due
    event.aux = parent
    event.site = site
    return event
  }

  /// Run number `run` (1 for one-shot actions) of `action` started on `thread`.
  @inlinable
  public static func begin(time: Int64, action: UInt32, thread: UInt32, run: UInt32) -> TraceEvent {
    var event = TraceEvent(time: time, kind: .begin, action: action, thread: thread)
    event.aux = run
    return event
  }

  /// Run number `run` of `action` finished on `thread` after `duration` ns.
  @inlinable
  public static func end(time: Int64, action: UInt32, thread: UInt32, run: UInt32, duration: Int64)
    -> TraceEvent
  {
    var event = TraceEvent(time: time, kind: .end, action: action, thread: thread)
    event.aux = run
    event.first = duration
    return event
  }

  /// `action`, scheduled on thread `from`, runs on thread `to`.
  @inlinable
  public static func hop(time: Int64, action: UInt32, from: UInt32, to: UInt32) -> TraceEvent {
    var event = TraceEvent(time: time, kind: .hop, action: action, thread: to)
    event.aux = from
    return event
  }

  /// `action` was cancelled from `thread` while `by` ran there (0: none).
  @inlinable
  public static func cancel(time: Int64, action: UInt32, thread: UInt32, by: UInt32, started: Bool)
    -> TraceEvent
  {
    var event = TraceEvent(time: time, kind: .cancel, action: action, thread: thread)
    event.aux = by
    event.flag = started
    return event
  }

  /// The app marked a moment on `thread`; `mark` indexes ``Trace/marks``.
  @inlinable
  public static func mark(time: Int64, thread: UInt32, mark: UInt32) -> TraceEvent {
    var event = TraceEvent(time: time, kind: .mark, action: 0, thread: thread)
    event.site = mark
    return event
  }

  /// `action` is work of the Swift task whose runtime id is `task` (1 … 2⁶² − 1).
  @inlinable
  public static func task(time: Int64, action: UInt32, task: UInt64) -> TraceEvent {
    var event = TraceEvent(time: time, kind: .task, action: action, thread: 0)
    event.first = Int64(truncatingIfNeeded: task)
    return event
  }

  /// `action` is work the app named; `work` indexes ``Trace/works``.
  @inlinable
  public static func work(time: Int64, action: UInt32, work: UInt32) -> TraceEvent {
    var event = TraceEvent(time: time, kind: .work, action: action, thread: 0)
    event.site = work
    return event
  }

  /// What a thread waits on (``Kind/wait`` only).
  public enum WaitObject: UInt8, Sendable, CaseIterable {
    /// `DispatchSemaphore.wait`, `dispatch_semaphore_wait`.
    case semaphore
    /// `DispatchGroup.wait`, `dispatch_group_wait`.
    case group

    package var staticName: StaticString {
      switch self {
      case .semaphore: "semaphore"
      case .group: "group"
      }
    }

    /// The name used in trace files (`semaphore`, `group`).
    public var name: String { staticName.description }
  }

  /// `thread` waited `duration` ns, outside any recorded run, on `object`, until `time`; `by`
  /// is the action whose signal ended the wait (0 when none did: a timeout, or work not
  /// recorded), `scheduler` the main scheduler's id when the thread is the main thread (else
  /// 0), `site` where the wait was called (0 for none).
  @inlinable
  public static func wait(
    time: Int64, thread: UInt32, scheduler: UInt32, duration: Int64, on object: WaitObject,
    by: UInt32, site: UInt32
  ) -> TraceEvent {
    var event = TraceEvent(time: time, kind: .wait, action: 0, thread: thread)
    event.scheduler = scheduler
    event.first = duration
    event.second = Int64(object.rawValue)
    event.aux = by
    event.site = site
    return event
  }

  // MARK: - Reading fields

  /// Whether the action had started when it was cancelled (``Kind/cancel`` only).
  public var started: Bool { kind == .cancel && flag }
  /// Whether a `sync` ran inline because its thread already held the scheduler: a call that
  /// would have deadlocked (``Kind/schedule`` only).
  public var ranInline: Bool { kind == .schedule && flag }
  /// The action running on the scheduling (or cancelling) thread at the time, if any.
  public var parent: UInt32? { (kind == .schedule || kind == .cancel) && aux != 0 ? aux : nil }
  /// The run number of a ``Kind/begin`` or ``Kind/end``.
  public var run: UInt32 { kind == .begin || kind == .end ? aux : 0 }
  /// The thread a ``Kind/hop`` came from.
  public var fromThread: UInt32 { kind == .hop ? aux : 0 }
  /// The delay or interval of a ``Kind/schedule``, in ns.
  public var delay: Int64 { kind == .schedule ? first : 0 }
  /// When a ``Kind/schedule``d action is first due, in trace time.
  public var due: Int64 { kind == .schedule ? second : 0 }
  /// How long an ``Kind/end``ed run took, or a ``Kind/wait`` lasted, in ns.
  public var duration: Int64 { kind == .end || kind == .wait ? first : 0 }
  /// What a ``Kind/wait`` waited on.
  public var waitObject: WaitObject? {
    kind == .wait ? WaitObject(rawValue: UInt8(truncatingIfNeeded: second)) : nil
  }
  /// The action whose signal ended a ``Kind/wait``, if a recorded one did.
  public var endedBy: UInt32? { kind == .wait && aux != 0 ? aux : nil }
  /// The runtime id of the Swift task a ``Kind/task`` line names.
  public var task: UInt64? { kind == .task ? UInt64(truncatingIfNeeded: first) : nil }
  /// The index into ``Trace/marks`` of a ``Kind/mark``.
  public var markIndex: Int? { kind == .mark ? Int(site) : nil }
  /// The index into ``Trace/works`` of a ``Kind/work``.
  public var workIndex: Int? { kind == .work ? Int(site) : nil }

  // MARK: - Rewriting

  /// The event with every action id it names — its own, then a parent or canceller, the order
  /// they are written in — passed through `transform`. Zero (no action) stays zero.
  @inlinable
  package func mappingActionIDs(_ transform: (UInt32) -> UInt32) -> TraceEvent {
    var event = self
    if action != 0 { event.action = transform(action) }
    if kind == .schedule || kind == .cancel || kind == .wait, aux != 0 {
      event.aux = transform(aux)
    }
    return event
  }
}
