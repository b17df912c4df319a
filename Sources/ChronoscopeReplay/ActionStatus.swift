/// Where an action stands at the replay's cursor, dated by its own events: what a user reads on
/// its detail page as "now".
///
/// ``ActionState`` says which of five states the action is in; this also tells the ways of being
/// done apart — finished, cancelled before it ran, cancelled after some runs — and carries the
/// times of the events that put it there, never the cursor's time.
package enum ActionStatus: Sendable, Equatable {
  /// Not scheduled yet: the trace schedules it at `at`, after the cursor.
  case notScheduledYet(at: Int64)
  /// Waiting to run: due at `due`, after `runs` runs (a repeating action between runs).
  case pending(due: Int64, runs: Int)
  /// Running run number `run`, begun at `began`; `cancelledAt` when it was cancelled meanwhile
  /// (it finishes this run and does not run again).
  case running(run: Int, began: Int64, cancelledAt: Int64?)
  /// Cancelled at `at` before it ever ran.
  case cancelledBeforeItRan(at: Int64)
  /// Ran to its end, last at `at`, and was not cancelled: `runs` runs.
  case finished(at: Int64, runs: Int)
  /// Ran `runs` times and was cancelled at `cancelledAt` (between runs, or during the last one);
  /// its last run ended at `lastEnded` when it did.
  case cancelledAfterRuns(runs: Int, cancelledAt: Int64, lastEnded: Int64?)
}

extension ReplayEngine {
  /// Where `action` stands at the cursor, with the times of its own events up to the cursor.
  ///
  /// - Complexity: O(1) unless the action is done or was cancelled while it runs; then
  ///   O(events from its schedule to the cursor).
  package func status(of action: ActionIndex) -> ActionStatus {
    let record = actions[action.int]
    switch state(of: action) {
    case .unscheduled:
      return .notScheduledYet(at: events[record.scheduleEvent.offset].time)
    case .pending:
      let runs = lastRun(of: action)?.number ?? 0
      return .pending(due: nextDue(of: action) ?? record.due(ofRun: runs + 1), runs: runs)
    case .running:
      let run = currentRun(of: action)
      return .running(run: run?.number ?? 0, began: run?.began ?? 0, cancelledAt: nil)
    case .runningCancelled:
      let run = currentRun(of: action)
      return .running(
        run: run?.number ?? 0, began: run?.began ?? 0,
        cancelledAt: cancelTime(of: action, from: record.scheduleEvent.offset))
    case .done:
      return doneStatus(of: action, from: record.scheduleEvent.offset)
    }
  }

  /// The time of the cancel that took effect on `action` before the cursor, if one did.
  private func cancelTime(of action: ActionIndex, from start: Int) -> Int64? {
    for offset in start..<position {
      let event = events[offset]
      guard event.action == action, event.kind == .cancel else { continue }
      if event.prior == .pending || event.prior == .running { return event.time }
    }
    return nil
  }

  /// How a done action got there, read from its events up to the cursor.
  private func doneStatus(of action: ActionIndex, from start: Int) -> ActionStatus {
    var runs = 0
    var lastEnded: Int64?
    var cancelledAt: Int64?
    for offset in start..<position {
      let event = events[offset]
      guard event.action == action else { continue }
      switch event.kind {
      case .begin where event.prior == .pending:
        runs += 1
      case .end where event.prior.isRunning:
        lastEnded = event.time
      case .cancel where cancelledAt == nil && (event.prior == .pending || event.prior == .running):
        cancelledAt = event.time
      default: break
      }
    }
    // A window (a slice, a flight dump) may open after runs it no longer holds: count from the
    // trace's numbering.
    if runs > 0 { runs = runNumber(ordinal: runs, of: action) }
    if let cancelledAt {
      return runs == 0
        ? .cancelledBeforeItRan(at: cancelledAt)
        : .cancelledAfterRuns(runs: runs, cancelledAt: cancelledAt, lastEnded: lastEnded)
    }
    return .finished(at: lastEnded ?? events[start].time, runs: runs)
  }
}
