@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay

extension InspectorApp {
  /// How many lanes the grouping has, before the filter: the N of the title's `12 of N`.
  var laneTotal: Int { cache.allLanes[state.grouping]?.count ?? 0 }

  /// Puts the lanes in the order ``InspectorState/laneOrder`` asks for again: when it changes,
  /// or the findings it counts.
  mutating func reorderLanes() {
    cache.orderedLanes = order(
      Lane.filtered(cache.allLanes[state.grouping] ?? [], by: state.laneFilter))
    showLanes(again: true)
  }

  /// `lanes` in the order ``InspectorState/laneOrder`` asks for; lanes that tie keep their
  /// order in `lanes`.
  ///
  /// - Complexity: O(n log n) for n lanes; O(1) in the trace's order.
  func order(_ lanes: [Lane]) -> [Lane] {
    /// Sorted by `keys` (one a lane, smallest first), then by place in `lanes`: plain numbers
    /// sorted whole, as a comparison that looked keys up took 50 ms on 100,000 lanes.
    func sorted(by keys: [(Int, Int)]) -> [Lane] {
      var keyed = keys.enumerated().map { ($0.element.0, $0.element.1, $0.offset) }
      keyed.sort { $0 < $1 }
      return keyed.map { lanes[$0.2] }
    }
    switch state.laneOrder {
    case .trace:
      return lanes
    case .name:
      let names = lanes.map { $0.title.lowercased() }
      return lanes.indices.sorted {
        (names[$0], lanes[$0].ordinal ?? 0, $0) < (names[$1], lanes[$1].ordinal ?? 0, $1)
      }.map { lanes[$0] }
    case .activity:
      return sorted(by: eventCounts(of: lanes).map { (-$0, 0) })
    case .findings:
      let counts = findingCounts()
      let events = eventCounts(of: lanes)
      return sorted(
        by: lanes.indices.map {
          (counts.isEmpty ? 0 : -counts[lanes[$0].key, default: 0], -events[$0])
        })
    }
  }

  /// Each lane's events in the whole trace.
  private func eventCounts(of lanes: [Lane]) -> [Int] {
    let strips = self.strips  // looked up once, not once a lane
    return lanes.map { lane in
      StripIndex.slot(of: lane.key, in: replay).map { strips.eventCount(lane: $0) } ?? 0
    }
  }

  /// The warnings and errors on each lane (info findings say nothing is wrong, and the header
  /// does not count them either): a finding is on its action's lane — its scheduler, its task, or
  /// the thread its last run began on (none for work that never ran).
  private func findingCounts() -> [Lane.Key: Int] {
    var counts: [Lane.Key: Int] = [:]
    let end = EventIndex(replay.eventCount)
    for finding in findings where finding.severity > .info {
      let key: Lane.Key? =
        switch state.grouping {
        case .byScheduler: .scheduler(finding.scheduler)
        case .byTask: finding.action.flatMap { replay.task(of: $0) }.map { .task($0) }
        case .byThread:
          finding.action.flatMap { replay.lastBegin(of: $0, before: end) }.map {
            .thread(replay.event($0).thread)
          }
        }
      if let key { counts[key, default: 0] += 1 }
    }
    return counts
  }

  /// Whether `lane` is idle: none of its events falls in `window`, and nothing of it is
  /// pending or running at the cursor (work pending is on no thread yet: a thread is idle when
  /// it runs nothing).
  ///
  /// - Complexity: O(log e) for e events of the lane.
  func isIdle(_ lane: Lane, in window: ClosedRange<Int64>, strips: StripIndex) -> Bool {
    switch lane.key {
    case .scheduler(let id):
      let now = replay.schedulerState(id)
      if now.pending > 0 || now.running > 0 { return false }
    case .task(let id):
      let now = replay.taskState(id)
      if now.pending > 0 || now.running > 0 { return false }
    case .thread(let id):
      if !replay.threadState(id).running.isEmpty { return false }
    }
    guard let slot = StripIndex.slot(of: lane.key, in: replay) else { return true }
    return !strips.hasEvents(lane: slot, in: window, replay: replay)
  }

  /// What the title says about the selected lane: for a thread, whose work it ran; for a task,
  /// where its work was.
  func aboutLane(_ lane: Lane) -> String? {
    switch lane.key {
    case .scheduler: return nil
    case .thread(let id):
      guard let info = replay.thread(id) else { return nil }
      let schedulers = info.schedulers.compactMap { replay.scheduler($0)?.label }
      let served =
        schedulers.isEmpty ? "ran no scheduler's work" : "ran " + schedulers.joined(separator: ", ")
      return "\(info.title) \(served)"
    case .task(let id):
      guard let info = replay.task(id) else { return nil }
      let schedulers = info.schedulers.map {
        replay.scheduler($0)?.label ?? "scheduler \($0.rawValue)"
      }
      let work = info.actionCount == 1 ? "1 action" : "\(info.actionCount) actions"
      return "\(info.title): \(work) on " + schedulers.joined(separator: ", ")
    }
  }

  /// How many of the lane's actions run at the cursor: on the scheduler, of the task, on the thread.
  func runningCount(_ lane: Lane) -> Int {
    switch lane.key {
    case .scheduler(let id): replay.schedulerState(id).running
    case .task(let id): replay.taskState(id).running
    case .thread(let id): replay.threadState(id).running.count
    }
  }

  /// The right-hand summary of a lane: `2p 1r` for a scheduler (pending, running), `busy 3.2ms` or
  /// `idle` for a thread.
  func laneStatus(_ lane: Lane) -> (String, Bool) {
    switch lane.key {
    case .scheduler(let id):
      let status = replay.schedulerState(id)
      return ("\(status.pending)p \(status.running)r", status.running > 0)
    case .task(let id):
      let status = replay.taskState(id)
      return ("\(status.pending)p \(status.running)r", status.running > 0)
    case .thread(let id):
      let status = replay.threadState(id)
      guard let since = status.busySince else { return ("idle", false) }
      let nested = status.running.count > 1 ? " ×\(status.running.count)" : ""
      return (
        "busy \(TimeText.duration(state.clock.subtracting(saturating: since)))\(nested)", true
      )
    }
  }
}
