@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

extension InspectorApp {
  /// `#12 after`.
  func label(of action: ActionIndex) -> String {
    let info = replay.action(action)
    return "\(info.id) \(info.mode.name)"
  }

  /// The queue's label, or `queue N` when the trace did not define it, numbered as its lane is
  /// where labels repeat: `app.request.2 ·10`.
  func queueLabel(of action: ActionIndex) -> String { queueLane(of: action).text }

  /// The title and number of the lane of `action`'s queue.
  func queueLane(of action: ActionIndex) -> LaneLabel {
    let queue = replay.action(action).queue
    guard let label = replay.queue(queue)?.label else {
      return LaneLabel(title: "queue \(queue.rawValue)")
    }
    return LaneLabel(title: label, ordinal: cache.queueOrdinals?[queue])
  }

  /// A thread's title (`main`, `worker 4`, `app.io`).
  func threadTitle(_ thread: ThreadID) -> String {
    replay.thread(thread)?.title ?? "thread \(thread.rawValue)"
  }

  /// What the app named `action` (`search "swift" request=42`), empty when it did not.
  func workName(of action: ActionIndex) -> String {
    replay.work(of: action)?.summary ?? ""
  }

  /// Where `action` was scheduled: `file.swift:12`, or `—` when the trace does not say.
  func site(of action: ActionIndex) -> String {
    guard let site = replay.callSite(of: action) else { return "—" }
    return "\(site.file):\(site.line)"
  }
}
