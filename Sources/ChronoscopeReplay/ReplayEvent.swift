import ChronoscopeTraceFormat

/// An event as the replay keeps it (24 bytes). What the fields mean depends on the kind, so they
/// are read through typed accessors that answer nil for kinds they do not apply to.
@_spi(Benchmarks) public struct ReplayEvent: Sendable, Hashable {
  /// Trace time in nanoseconds.
  package let time: Int64
  private let actionSlot: UInt32
  private let threadID: UInt32
  private let aux: UInt32
  /// What happened.
  package let kind: TraceEvent.Kind
  private let flag: Bool
  /// The state its action was in before it, which the replay's history pass sets: stepping
  /// back is exact. In what was padding, so it costs no memory.
  var prior = ActionState.unscheduled

  private static let none = UInt32.max

  private init(
    time: Int64, kind: TraceEvent.Kind, action: ActionIndex?, thread: UInt32, aux: UInt32,
    flag: Bool = false
  ) {
    self.time = time
    actionSlot = action?.rawValue ?? Self.none
    threadID = thread
    self.aux = aux
    self.kind = kind
    self.flag = flag
  }

  /// Makes the replay's form of `event`, whose action (if any) is `action`.
  ///
  /// - Parameter cancelledBy: For a cancel, the action that was running when it happened.
  /// - Parameter wait: For a wait, its index in ``ReplayEngine/waits``.
  init(_ event: TraceEvent, action: ActionIndex?, cancelledBy: ActionIndex?, wait: Int = 0) {
    let aux: UInt32 =
      switch event.kind {
      case .wait: UInt32(truncatingIfNeeded: wait)
      case .begin, .end: event.run
      case .hop: event.fromThread
      case .mark: UInt32(truncatingIfNeeded: event.markIndex ?? Int(Self.none))
      case .cancel: cancelledBy?.rawValue ?? Self.none
      case .schedule: event.site
      case .task, .work: 0
      }
    self.init(
      time: event.time, kind: event.kind,
      action: event.kind == .mark || event.kind == .wait ? nil : action,
      thread: event.thread, aux: aux, flag: event.started)
  }

  /// The action it concerns; nil for a mark.
  @_spi(Benchmarks) public var action: ActionIndex? {
    actionSlot == Self.none ? nil : ActionIndex(actionSlot)
  }

  /// The thread it happened on; for a hop, the thread the action moved to.
  package var thread: ThreadID { ThreadID(rawValue: threadID) }

  /// The run number the trace gives a ``TraceEvent/Kind/begin`` or ``TraceEvent/Kind/end``.
  package var run: UInt32? { kind == .begin || kind == .end ? aux : nil }

  /// The thread a ``TraceEvent/Kind/hop`` came from.
  package var hoppedFrom: ThreadID? { kind == .hop ? ThreadID(rawValue: aux) : nil }

  /// The index into ``ReplayEngine/waits`` of a ``TraceEvent/Kind/wait``.
  package var waitIndex: Int? { kind == .wait ? Int(aux) : nil }

  /// The index into ``ReplayEngine/marks`` of a ``TraceEvent/Kind/mark``.
  package var markIndex: Int? { kind == .mark && aux != Self.none ? Int(aux) : nil }

  /// For a ``TraceEvent/Kind/cancel``, the action that was running on the cancelling thread.
  package var cancelledBy: ActionIndex? {
    kind == .cancel && aux != Self.none ? ActionIndex(aux) : nil
  }

  /// The call site's id (0: none) of a ``TraceEvent/Kind/schedule``, which the replay keeps
  /// here rather than in every action.
  var scheduleSite: UInt32? { kind == .schedule ? aux : nil }

  /// For a ``TraceEvent/Kind/cancel``, whether the action had started; nil for other kinds.
  package var cancelledAfterStart: Bool? { kind == .cancel ? flag : nil }
}
