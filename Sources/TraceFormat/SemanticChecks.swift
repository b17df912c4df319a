/// The warnings a structurally valid trace can still deserve, checked event by event. (Time order
/// is checked by the parser on every line, definitions included.)
struct SemanticChecks {
  private struct ActionState: OptionSet {
    let rawValue: UInt8
    static let scheduled = ActionState(rawValue: 1)
    static let begun = ActionState(rawValue: 2)
    static let cancelled = ActionState(rawValue: 4)
    static let repeating = ActionState(rawValue: 8)
  }

  // Action ids are handed out densely from 1, so an array indexed by id is the fast path; the
  // dictionary holds ids too large for it.
  private static let denseLimit: UInt32 = 1 << 26
  private var dense: [ActionState] = []
  private var sparse: [UInt32: ActionState] = [:]

  private mutating func withState<R>(_ action: UInt32, _ body: (inout ActionState) -> R) -> R {
    if action < Self.denseLimit {
      let index = Int(action)
      if index >= dense.count {
        dense.append(
          contentsOf: repeatElement([], count: max(index + 1 - dense.count, dense.count)))
      }
      return body(&dense[index])
    }
    return body(&sparse[action, default: []])
  }

  /// The warnings `event` raises, given what came before it.
  mutating func check(_ event: TraceEvent, schedulers: [UInt32: SchedulerRecord]) -> [String] {
    var warnings: [String] = []
    let action = event.action
    switch event.kind {
    case .schedule:
      if schedulers[event.scheduler] == nil {
        warnings.append("action \(action) is scheduled on unknown scheduler \(event.scheduler)")
      }
      let duplicate = withState(action) { state in
        defer {
          state.insert(.scheduled)
          if event.mode == .repeating { state.insert(.repeating) }
        }
        return state.contains(.scheduled)
      }
      if duplicate { warnings.append("duplicate action id \(action): it was already scheduled") }
    case .begin:
      let state = withState(action) { state in
        defer { state.insert(.begun) }
        return state
      }
      if !state.contains(.scheduled) {
        warnings.append("action \(action) begins but was never scheduled")
      } else if state.contains(.cancelled) {
        warnings.append("action \(action) begins after it was cancelled")
      }
    case .cancel:
      _ = withState(action) { $0.insert(.cancelled) }
    case .end, .hop, .mark:
      break
    }
    return warnings
  }
}
