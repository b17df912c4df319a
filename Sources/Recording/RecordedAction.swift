import Scheduling
import Synchronization

/// The recorder's view of one scheduled action: its id, where it was scheduled, and a small
/// state machine that makes "cancelled before it started" and "began" mutually exclusive.
///
/// Without it, a cancel racing with the start of a run on another thread could be recorded as
/// "not started" while the action still began, and the trace would contradict itself.
final class RecordedAction: CancellationObserver {
  private enum State: UInt8 {
    /// Never run yet.
    case fresh
    case running
    /// Ran at least once and waits for its next run (repeating actions).
    case idle
    case cancelled
    case finished
  }

  let id: UInt32
  let schedulingThread: UInt32
  let isRepeating: Bool
  private let state = Atomic<UInt8>(State.fresh.rawValue)
  private let runs = Atomic<UInt32>(0)

  private let core: RecorderCore

  init(id: UInt32, schedulingThread: UInt32, isRepeating: Bool, core: RecorderCore) {
    self.id = id
    self.schedulingThread = schedulingThread
    self.isRepeating = isRepeating
    self.core = core
  }

  /// Records the cancel, from the cancelling thread, with who cancelled and whether it started.
  func schedulerTaskCancelled() {
    let started = cancel()
    let buffer = core.currentBuffer()
    buffer.append(
      .cancel(
        time: core.now(), action: id, thread: buffer.threadID, by: buffer.currentAction,
        started: started))
  }

  /// Moves to running and returns the run number, or nil if the action was cancelled first.
  func begin() -> UInt32? {
    for from in [State.fresh, .idle] {
      if state.compareExchange(
        expected: from.rawValue, desired: State.running.rawValue, ordering: .acquiringAndReleasing
      ).exchanged {
        return runs.add(1, ordering: .relaxed).newValue
      }
    }
    return nil
  }

  /// Ends a run: a repeating action waits for its next run, unless cancelled meanwhile.
  func end() {
    let next = isRepeating ? State.idle : State.finished
    _ = state.compareExchange(
      expected: State.running.rawValue, desired: next.rawValue, ordering: .acquiringAndReleasing)
  }

  /// Marks the action cancelled; returns whether any run had started.
  func cancel() -> Bool {
    state.exchange(State.cancelled.rawValue, ordering: .acquiringAndReleasing)
      != State.fresh.rawValue
  }
}
