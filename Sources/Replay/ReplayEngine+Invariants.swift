extension ReplayEngine {
  /// Checks that the live state is exactly what stepping from the start to the cursor builds,
  /// and that the tallies agree with the live sets. Tests call it; it traps on a violation.
  ///
  /// - Complexity: O(position + live actions + queues + threads).
  public func _checkInvariants() {
    checkTallies()
    var fresh = self
    fresh.live = LiveState(queues: queues.count, threads: threads.count, tasks: tasks.count)
    fresh.position = 0
    while fresh.position < position {
      fresh.apply(fresh.position, forward: true)
      fresh.position += 1
    }
    precondition(
      fresh.live.pending == live.pending, "pending differs from a replay from the start")
    precondition(
      fresh.live.running == live.running, "running differs from a replay from the start")
    precondition(
      fresh.live.cancelled == live.cancelled, "cancelled differs from a replay from the start")
    precondition(
      fresh.live.runningByThread == live.runningByThread, "per-thread running differs")
    precondition(
      fresh.live.pendingByTask == live.pendingByTask
        && fresh.live.runningByTask == live.runningByTask, "per-task tallies differ")
  }

  /// The checks cheap enough for every step of a debug build: O(queues + threads + live).
  func checkTallies() {
    precondition((0...events.count).contains(position), "cursor out of range")
    precondition(live.cancelled.isSubset(of: live.running.keys), "cancelled but not running")
    precondition(
      live.pending.keys.allSatisfy { live.running[$0] == nil }, "both pending and running")
    precondition(
      live.pendingByQueue.reduce(0, +) == live.pending.count, "pending tallies disagree")
    precondition(
      live.runningByQueue.reduce(0, +) == live.running.count, "running tallies disagree")
    precondition(
      live.runningByThread.reduce(0) { $0 + $1.count } == live.running.count,
      "per-thread running disagrees")
    precondition(
      live.pendingByQueue.allSatisfy { $0 >= 0 } && live.runningByQueue.allSatisfy { $0 >= 0 }
        && live.pendingByTask.allSatisfy { $0 >= 0 } && live.runningByTask.allSatisfy { $0 >= 0 },
      "a negative tally")
    precondition(
      live.pendingByTask.reduce(0, +)
        == live.pending.keys.count { task(of: ActionIndex($0)) != nil },
      "per-task pending tallies disagree")
  }

  /// In debug builds, the O(1) checks after every step.
  @inline(__always)
  func checkCheapInvariants() {
    #if DEBUG
      precondition(
        position >= 0 && position <= events.count && live.cancelled.count <= live.running.count,
        "replay invariants broken")
    #endif
  }
}
