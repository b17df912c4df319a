import Replay
import TraceFormat

/// One row of the lanes panel: a queue (scheduler) or a thread.
struct Lane: Equatable {
  enum Key: Equatable {
    case scheduler(UInt32)
    case thread(UInt32)
  }

  let key: Key
  let title: String
  let detail: String

  func contains(_ event: ReplayEvent, _ replay: ReplayEngine) -> Bool {
    switch key {
    case .scheduler(let id):
      event.action != ReplayEvent.noAction && replay.actions[Int(event.action)].scheduler == id
    case .thread(let id):
      event.thread == id
    }
  }
}

extension InspectorApp {
  /// The lanes, in order of id, after the filter.
  var lanes: [Lane] {
    let filter = state.laneFilter.lowercased()
    let all: [Lane]
    switch state.grouping {
    case .byQueue:
      all = replay.schedulers.values.sorted { $0.id < $1.id }.map {
        Lane(key: .scheduler($0.id), title: $0.label, detail: "\($0.kind) · \($0.family)")
      }
    case .byThread:
      var ids = Set(replay.threadNames.keys)
      for event in replay.events.prefix(200_000) { ids.insert(event.thread) }
      all = ids.sorted().map { id in
        Lane(
          key: .thread(id), title: replay.threadNames[id].map { "\(id) \($0)" } ?? "thread \(id)",
          detail: "thread")
      }
    }
    return filter.isEmpty ? all : all.filter { $0.title.lowercased().contains(filter) }
  }
}
