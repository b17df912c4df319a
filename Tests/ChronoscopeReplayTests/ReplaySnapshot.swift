@_spi(Benchmarks) import ChronoscopeReplay

/// Everything the replay answers about one cursor position, for comparing positions reached by
/// different paths (steps forward, steps back, seeks). Schedulers and threads are those the trace
/// names plus every scheduler an action was scheduled on, so undefined ones are compared too.
struct ReplaySnapshot: Equatable {
  var position: Int
  var now: Int64
  var pending: [ActionIndex]
  var running: [ActionIndex]
  var states: [ActionState]
  var nextDue: [Int64?]
  var lastRuns: [ActionLife.Run?]
  var currentRuns: [CurrentRun?]
  var schedulers: [SchedulerState]
  var threads: [ThreadState]

  init(_ replay: ReplayEngine) {
    let actions = replay.actionIndices
    let schedulerIDs = Set(replay.schedulers.map { SchedulerID(rawValue: $0.id) })
      .union(actions.map { replay.action($0).scheduler }).sorted()
    position = replay.position
    now = replay.now
    pending = replay.pending(first: replay.pendingCount())
    running = replay.running()
    states = actions.map(replay.state(of:))
    nextDue = actions.map(replay.nextDue(of:))
    lastRuns = actions.map(replay.lastRun(of:))
    currentRuns = actions.map(replay.currentRun(of:))
    schedulers = schedulerIDs.map(replay.schedulerState)
    threads = replay.threads.map { replay.threadState($0.id) }
  }
}
