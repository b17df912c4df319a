// Invariant checks, as swift-collections makes them (`COLLECTIONS_INTERNAL_CHECKS`): tests call
// `_checkInvariants()`, and a build with the compiler flag `CHRONOSCOPE_INTERNAL_CHECKS`
// checks after every step too:
//
//     swift test -Xswiftc -DCHRONOSCOPE_INTERNAL_CHECKS --scratch-path .build-checks
//
// (`scripts/internal-checks.sh`). The flag is off in every configuration by default, debug
// included, because those checks make a step cost what stepping from a keyframe costs, which
// voids the documented complexities. An ordinary debug build keeps an O(1) check per step.

extension ReplayEngine {
  /// Whether this build checks the replay's invariants after every step
  /// (`CHRONOSCOPE_INTERNAL_CHECKS`); its documented complexities do not hold then.
  package static var _isConsistencyCheckingEnabled: Bool {
    #if CHRONOSCOPE_INTERNAL_CHECKS
      true
    #else
      false
    #endif
  }

  /// Checks that the live state is exactly what stepping from the start to the cursor builds,
  /// and that the tallies agree with the live sets. Tests call it; it traps on a violation.
  ///
  /// - Complexity: O(position + live actions + schedulers + threads).
  package func _checkInvariants() {
    checkTallies()
    checkLive(steppingFrom: Keyframe(emptyLive, at: 0))
  }

  /// The state before any event.
  private var emptyLive: LiveState {
    LiveState(schedulers: schedulers.count, threads: threads.count, tasks: tasks.count)
  }

  /// Checks that stepping from `keyframe` to the cursor builds the live state there.
  private func checkLive(steppingFrom keyframe: Keyframe) {
    var fresh = self
    fresh.restore(keyframe)
    fresh.position = keyframe.position
    while fresh.position < position {
      fresh.apply(fresh.position, forward: true)
      fresh.position += 1
    }
    precondition(
      fresh.live.pending == live.pending, "pending differs from stepping to the cursor")
    precondition(
      fresh.live.running == live.running, "running differs from stepping to the cursor")
    precondition(
      fresh.live.cancelled == live.cancelled, "cancelled differs from stepping to the cursor")
    precondition(
      fresh.live.runningByThread == live.runningByThread, "per-thread running differs")
    precondition(
      fresh.live.pendingByTask == live.pendingByTask
        && fresh.live.runningByTask == live.runningByTask, "per-task tallies differ")
  }

  /// The checks of the tallies against the live sets: O(schedulers + threads + live).
  func checkTallies() {
    precondition((0...events.count).contains(position), "cursor out of range")
    precondition(live.cancelled.isSubset(of: live.running.keys), "cancelled but not running")
    precondition(
      live.pending.keys.allSatisfy { live.running[$0] == nil }, "both pending and running")
    precondition(
      live.pendingByScheduler.reduce(0, +) == live.pending.count, "pending tallies disagree")
    precondition(
      live.runningByScheduler.reduce(0, +) == live.running.count, "running tallies disagree")
    precondition(
      live.runningByThread.reduce(0) { $0 + $1.count } == live.running.count,
      "per-thread running disagrees")
    precondition(
      live.pendingByScheduler.allSatisfy { $0 >= 0 }
        && live.runningByScheduler.allSatisfy { $0 >= 0 }
        && live.pendingByTask.allSatisfy { $0 >= 0 } && live.runningByTask.allSatisfy { $0 >= 0 },
      "a negative tally")
    precondition(
      live.pendingByTask.reduce(0, +)
        == live.pending.keys.count { task(of: ActionIndex($0)) != nil },
      "per-task pending tallies disagree")
  }

  /// After every step: with `CHRONOSCOPE_INTERNAL_CHECKS`, the tallies, and the live sets
  /// against stepping from the last keyframe when one lies within an interval of the cursor
  /// (so a replay without keyframes is not checked from the start at every step: that would
  /// make a walk through it quadratic); in other debug builds, an O(1) check.
  @inline(__always)
  func checkStepInvariants() {
    #if CHRONOSCOPE_INTERNAL_CHECKS
      checkTallies()
      if let keyframe = keyframes.last(where: { $0.position <= position }),
        position - keyframe.position <= keyframeInterval
      {
        checkLive(steppingFrom: keyframe)
      }
    #elseif DEBUG
      precondition(
        position >= 0 && position <= events.count && live.cancelled.count <= live.running.count,
        "replay invariants broken")
    #endif
  }
}
