/// The warnings a structurally valid trace can still deserve, checked event by event. (Time order
/// is checked by the parser on every line, definitions included.)
struct SemanticChecks {
  private struct ActionFlags: OptionSet {
    let rawValue: UInt8
    static let scheduled = ActionFlags(rawValue: 1)
    static let begun = ActionFlags(rawValue: 2)
    static let cancelled = ActionFlags(rawValue: 4)
    static let repeating = ActionFlags(rawValue: 8)
  }

  /// What is known of one action so far: its flags and the highest run number that began.
  private struct CheckedAction {
    var flags: ActionFlags = []
    var lastRun: UInt32 = 0

    static let empty = CheckedAction()
  }

  // Action ids are handed out densely from 1, so an array indexed by id is the fast path; the
  // dictionary holds ids beyond it. The array grows at most to twice its size at a time, so a
  // hostile id such as 60,000,000 costs one dictionary entry, not a huge array.
  private static let denseLimit = 1 << 26
  private var dense: [CheckedAction] = []
  private var sparse: [UInt32: CheckedAction] = [:]
  /// Where a window's history starts (a slice's or a flight recorder dump's `slice_from_ns`):
  /// lines up to it are context, which may skip the runs of a repeating action that the window
  /// let go of.
  var windowStart: Int64?
  /// The schedulers and call sites known to be defined (see ``KnownIDs``).
  private var knownSchedulers = KnownIDs()
  private var knownSites = KnownIDs()

  /// Ids below 65,536 known to be defined, by id: looking each schedule's scheduler or site up
  /// in its table hashed the id and copied its record (strings and all) out of it. (A
  /// definition is never taken back, so an id once known stays known.)
  private struct KnownIDs {
    private var known: [Bool] = []

    /// Whether `id` is defined: known already, or found by `isDefined`, and then remembered.
    mutating func contains(_ id: UInt32, isDefined: () -> Bool) -> Bool {
      let index = Int(id)
      if index < known.count, known[index] { return true }
      guard isDefined() else { return false }
      remember(id)
      return true
    }

    /// Counts `id` as known from now on (one reported missing need not be reported again).
    mutating func remember(_ id: UInt32) {
      let index = Int(id)
      guard index < 1 << 16 else { return }
      if index >= known.count { known += repeatElement(false, count: index + 1 - known.count) }
      known[index] = true
    }
  }

  private mutating func withState<R>(_ action: UInt32, _ body: (inout CheckedAction) -> R) -> R {
    let index = Int(action)
    if index >= dense.count, index < min(dense.count * 2 + 4096, Self.denseLimit) {
      let count = min(max(index + 1, dense.count * 2), Self.denseLimit)
      dense.append(contentsOf: repeatElement(.empty, count: count - dense.count))
      for (id, state) in sparse where Int(id) < count {
        dense[Int(id)] = state
        sparse[id] = nil
      }
    }
    if index < dense.count { return body(&dense[index]) }
    return body(&sparse[action, default: .empty])
  }

  /// The warnings `event` raises, given what came before it.
  mutating func check(
    _ event: TraceEvent, schedulers: [UInt32: SchedulerRecord],
    callSites: [UInt32: CallSiteRecord]
  ) -> [String] {
    var warnings: [String] = []
    let action = event.action
    switch event.kind {
    case .schedule:
      if !knownSchedulers.contains(
        event.scheduler, isDefined: { schedulers.index(forKey: event.scheduler) != nil })
      {
        warnings.append("action #\(action) is scheduled on unknown scheduler \(event.scheduler)")
      }
      // A definition comes before the first line that uses it: a site used and not yet defined
      // was lost (a crash path that did not write it), and the action's place with it.
      // Said once a site.
      if event.site != 0,
        !knownSites.contains(event.site, isDefined: { callSites.index(forKey: event.site) != nil })
      {
        knownSites.remember(event.site)
        warnings.append(
          "action #\(action) is scheduled at call site \(event.site), which the trace has not defined"
        )
      }
      let duplicate = withState(action) { state in
        defer {
          state.flags.insert(.scheduled)
          if event.mode == .repeating { state.flags.insert(.repeating) }
        }
        return state.flags.contains(.scheduled)
      }
      if duplicate { warnings.append("duplicate action id #\(action): it was already scheduled") }
    case .begin:
      let state = withState(action) { state in
        defer {
          state.flags.insert(.begun)
          state.lastRun = max(state.lastRun, event.run)
        }
        return state
      }
      if !state.flags.contains(.scheduled) {
        warnings.append("action #\(action) begins but was never scheduled")
      } else if state.flags.contains(.cancelled) {
        warnings.append("action #\(action) begins after it was cancelled")
      }
      if Int(event.run) > Int(state.lastRun) + 1, event.time > windowStart ?? -1 {
        warnings.append(Self.missingRuns(action, run: event.run, after: state.lastRun))
      }
    case .end:
      let state = withState(action) { $0 }
      if !state.flags.contains(.begun) {
        warnings.append("action #\(action) ends but never began")
      } else if event.run > state.lastRun {
        warnings.append(
          "action #\(action) ends run \(event.run), which never began (the last run to begin was \(state.lastRun))"
        )
      }
    case .cancel:
      let state = withState(action) { state in
        defer { state.flags.insert(.cancelled) }
        return state
      }
      // A cancel that says a run had started, before any begin of an action scheduled in this
      // file (so its begins are here too): the two were stamped out of order.
      if event.started, state.flags.contains(.scheduled), !state.flags.contains(.begun) {
        warnings.append("action #\(action) is cancelled after a run started, but no run has begun")
      }
    case .task:
      if !withState(action, { $0 }).flags.contains(.scheduled) {
        warnings.append(
          "action #\(action) is named work of task \(event.task ?? 0) but was never scheduled")
      }
    case .work:
      if !withState(action, { $0 }).flags.contains(.scheduled) {
        warnings.append("action #\(action) is named work but was never scheduled")
      }
    case .wait:
      if event.site != 0,
        !knownSites.contains(event.site, isDefined: { callSites.index(forKey: event.site) != nil })
      {
        knownSites.remember(event.site)
        warnings.append(
          "a wait on thread \(event.thread) is at call site \(event.site), which the trace has not defined"
        )
      }
      if let by = event.endedBy, !withState(by, { $0 }).flags.contains(.scheduled) {
        warnings.append(
          "a wait on thread \(event.thread) ended by action #\(by), which was never scheduled")
      }
    case .hop, .mark:
      break
    }
    return warnings
  }

  /// The warning for a begin of run `run` whose predecessors after run `last` never began.
  private static func missingRuns(_ action: UInt32, run: UInt32, after last: UInt32) -> String {
    let (run, last) = (Int(run), Int(last))
    let missing = last + 1 == run - 1 ? "run \(last + 1) is" : "runs \(last + 1)…\(run - 1) are"
    let begins = last == 0 ? "begins with run \(run)" : "begins run \(run) after run \(last)"
    return "action #\(action) \(begins): \(missing) missing"
  }
}
