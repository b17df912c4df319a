import CoreAlgorithms
import Replay
import Screen
import TraceFormat

/// One row of the lanes panel: a queue, a thread or a Swift task.
struct Lane: Equatable, Sendable {
  enum Key: Equatable, Hashable, Sendable {
    case queue(QueueID)
    case thread(ThreadID)
    case task(TaskID)
  }

  let key: Key
  let title: String
  /// Where other lanes of the grouping have the same title: this one's place among them, in
  /// the order of their ids, from 1.
  var ordinal: Int?

  /// The title, numbered where it repeats: `search.state ·2`.
  var name: String { ordinal.map { "\(title) ·\($0)" } ?? title }

  /// ``name`` in `width` columns: where it does not fit, the number loses its space
  /// (`app.request.4·15`), then the title is cut; the number is always kept.
  func name(fitting width: Int) -> String {
    guard let ordinal else { return TextWidth.truncatedName(title, to: width) }
    if TextWidth.columns(of: name) <= width { return name }
    let number = "·\(ordinal)"
    return TextWidth.truncatedName(title, to: max(width - TextWidth.columns(of: number), 1))
      + number
  }
}

/// Which queues, threads or tasks the lane filter keeps; nil sets keep everything.
struct LaneScope: Equatable, Sendable {
  var queues: Set<QueueID>?
  var threads: Set<ThreadID>?
  var tasks: Set<TaskID>?

  static let everything = LaneScope()

  var isEverything: Bool { queues == nil && threads == nil && tasks == nil }

  /// Whether `event` belongs to a kept lane: its action's queue or task, or the thread it
  /// happened on. The views read the kept lanes' events through their index (`ScopedEvents`),
  /// which tests check against this.
  func contains(_ event: ReplayEvent, _ replay: ReplayEngine) -> Bool {
    if let queues {
      guard let action = event.action else { return false }
      return queues.contains(replay.action(action).queue)
    }
    if let tasks {
      guard let action = event.action, let task = replay.task(of: action) else { return false }
      return tasks.contains(task)
    }
    if let threads { return threads.contains(event.thread) }
    return true
  }
}

extension Lane {
  /// The lanes of `replay` grouped as asked, in order of id, numbered where titles repeat.
  static func lanes(of replay: ReplayEngine, grouping: InspectorState.Grouping) -> [Lane] {
    var all: [Lane]
    switch grouping {
    case .byQueue:
      all = replay.queues.map {
        Lane(key: .queue(QueueID(rawValue: $0.id)), title: $0.label)
      }
    case .byThread:
      all = replay.threads.map { Lane(key: .thread($0.id), title: $0.title) }
    case .byTask:
      all = replay.tasks.map { Lane(key: .task($0.id), title: $0.title) }
    }
    var repeats: [String: Int] = [:]
    repeats.reserveCapacity(all.count)
    for lane in all { repeats[lane.title, default: 0] += 1 }
    guard repeats.count < all.count else { return all }
    var numbered: [String: Int] = [:]
    for index in all.indices where repeats[all[index].title, default: 0] > 1 {
      numbered[all[index].title, default: 0] += 1
      all[index].ordinal = numbered[all[index].title]
    }
    return all
  }

  /// The lanes of `all` that `filter` keeps: those whose title contains it, ignoring case.
  static func filtered(_ all: [Lane], by filter: String) -> [Lane] {
    let filter = filter.lowercased()
    return filter.isEmpty ? all : all.filter { $0.title.lowercased().contains(filter) }
  }

  /// What `lanes` keep, when a filter is on.
  static func scope(of lanes: [Lane], grouping: InspectorState.Grouping, filtered: Bool)
    -> LaneScope
  {
    guard filtered else { return .everything }
    switch grouping {
    case .byQueue:
      return LaneScope(
        queues: Set(lanes.compactMap { if case .queue(let id) = $0.key { id } else { nil } }))
    case .byThread:
      return LaneScope(
        threads: Set(lanes.compactMap { if case .thread(let id) = $0.key { id } else { nil } }))
    case .byTask:
      return LaneScope(
        tasks: Set(lanes.compactMap { if case .task(let id) = $0.key { id } else { nil } }))
    }
  }
}
