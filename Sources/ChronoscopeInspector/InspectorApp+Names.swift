@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

extension InspectorApp {
  /// `#12 after`.
  func label(of action: ActionIndex) -> String {
    let info = replay.action(action)
    return "\(info.id) \(info.mode.name)"
  }

  /// The scheduler's label, or `scheduler N` when the trace did not define it, numbered as its lane is
  /// where labels repeat: `app.request.2 ·10`.
  func schedulerLabel(of action: ActionIndex) -> String { schedulerLane(of: action).text }

  /// The title and number of the lane of `action`'s scheduler.
  func schedulerLane(of action: ActionIndex) -> LaneLabel {
    schedulerLane(replay.action(action).scheduler)
  }

  /// The title and number of `scheduler`'s lane.
  func schedulerLane(_ scheduler: SchedulerID) -> LaneLabel {
    guard let label = replay.scheduler(scheduler)?.label else {
      return LaneLabel(title: "scheduler \(scheduler.rawValue)")
    }
    return LaneLabel(title: label, ordinal: cache.schedulerOrdinals?[scheduler])
  }

  /// A thread's title (`main`, `worker 4`, `app.io`).
  func threadTitle(_ thread: ThreadID) -> String {
    replay.thread(thread)?.title ?? "thread \(thread.rawValue)"
  }

  /// What the app named `action` (`search "swift" request=42`), empty when it did not.
  func workName(of action: ActionIndex) -> String {
    replay.work(of: action)?.summary ?? ""
  }

  /// Where `action` was scheduled: `file.swift:12` (the file alone without a line), or `—`
  /// when the trace does not say.
  func site(of action: ActionIndex) -> String {
    replay.callSite(of: action)?.place ?? "—"
  }
}
