import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

/// One row of the lanes panel: a scheduler, a thread or a Swift task.
struct Lane: Equatable, Sendable {
  enum Key: Equatable, Hashable, Sendable {
    case scheduler(SchedulerID)
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

  /// ``name`` in `width` columns, as ``fitted(title:ordinal:to:)`` fits it.
  func name(fitting width: Int) -> String {
    Self.fitted(title: title, ordinal: ordinal, to: width)
  }

  /// A lane's label — its title, and its number where titles repeat — in at most `width`
  /// columns, as every panel shows it, so that a row always says which lane it is on: whole
  /// where it fits (`app.request.2 ·10`); else the number loses its space
  /// (`app.request.2·10`); else the title is cut in its middle, which keeps the end that tells
  /// lanes apart (`Swift gl…queue #2`, `r:4185…3c (4)` for threads that share a name); the
  /// number is always kept. Widths are display columns (a wide character takes two).
  ///
  /// - Complexity: O(`width`), however long the title.
  static func fitted(title: some StringProtocol, ordinal: Int?, to width: Int) -> String {
    guard let ordinal else { return TextWidth.truncatedInMiddle(title, to: width) }
    let number = "·\(ordinal)"
    let numberWidth = number.count  // `·` and digits: a column each
    /// Whether the whole title fits in `columns`.
    func fits(_ columns: Int) -> Bool {
      columns > 0 && title.dropFirst(columns).isEmpty
        && TextWidth.columns(of: TextWidth.sanitized(title)) <= columns
    }
    if fits(width - numberWidth - 1) { return TextWidth.sanitized(title) + " " + number }
    if fits(width - numberWidth) { return TextWidth.sanitized(title) + number }
    guard width > numberWidth else { return TextWidth.truncated(number, to: width) }
    return TextWidth.truncatedInMiddle(title, to: width - numberWidth) + number
  }
}

/// Which schedulers, threads or tasks the lane filter keeps; nil sets keep everything.
struct LaneScope: Equatable, Sendable {
  var schedulers: Set<SchedulerID>?
  var threads: Set<ThreadID>?
  var tasks: Set<TaskID>?

  static let everything = LaneScope()

  var isEverything: Bool { schedulers == nil && threads == nil && tasks == nil }

  /// Whether `event` belongs to a kept lane: its action's scheduler or task, or the thread it
  /// happened on. The views read the kept lanes' events through their index (`ScopedEvents`),
  /// which tests check against this.
  func contains(_ event: ReplayEvent, _ replay: ReplayEngine) -> Bool {
    if let schedulers {
      guard let action = event.action else { return false }
      return schedulers.contains(replay.action(action).scheduler)
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
    case .byScheduler:
      all = replay.schedulers.map {
        Lane(key: .scheduler(SchedulerID(rawValue: $0.id)), title: $0.label)
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
    case .byScheduler:
      return LaneScope(
        schedulers: Set(
          lanes.compactMap { if case .scheduler(let id) = $0.key { id } else { nil } }))
    case .byThread:
      return LaneScope(
        threads: Set(lanes.compactMap { if case .thread(let id) = $0.key { id } else { nil } }))
    case .byTask:
      return LaneScope(
        tasks: Set(lanes.compactMap { if case .task(let id) = $0.key { id } else { nil } }))
    }
  }
}
