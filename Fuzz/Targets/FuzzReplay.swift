@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

// Target `replay`: reader → ReplayEngine → steps, seeks and queries chosen by the input, with the
// full invariant check now and then.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReplay(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
  let bytes = input.trace
  guard let trace = TraceReader.parse(bytes, file: "fuzz.trace").trace else { return 0 }
  let interval = 1 + Int(input.byte() % 32)
  // Every way of preparing: from a trace, taking its events (and ordering them in place), or
  // while reading on several threads, as the CLI does (and reading again when out of order).
  var replay: ReplayEngine
  switch input.byte() % 3 {
  case 0: replay = ReplayEngine(trace: trace, keyframeInterval: interval)
  case 1: replay = ReplayEngine(consuming: trace, keyframeInterval: interval)
  default:
    let workers = 2 + Int(input.byte() % 3)
    let read = bytes.withUnsafeBufferPointer {
      ReplayEngine.parse($0, file: "fuzz.trace", workers: workers, keyframeInterval: interval)
    }
    // A file with errors makes no replay; the reader's trace is then still good to replay.
    replay = read.replay ?? ReplayEngine(trace: trace, keyframeInterval: interval)
    if let streamed = read.replay {
      let whole = ReplayEngine(trace: trace, keyframeInterval: interval)
      precondition(streamed.eventCount == whole.eventCount, "prepared while reading: events")
      precondition(streamed.actionCount == whole.actionCount, "prepared while reading: actions")
      for index in whole.eventIndices {
        precondition(streamed.event(index) == whole.event(index), "prepared while reading")
      }
      for action in whole.actionIndices {
        precondition(streamed.action(action) == whole.action(action), "prepared while reading")
      }
    }
  }
  var operations = 0
  while input.hasMore, operations < 400 {
    operations += 1
    let actions = replay.actionIndices
    let action = actions.isEmpty ? nil : actions[input.index(actions.count)]
    switch input.byte() % 20 {
    case 0, 1, 2: replay.stepForward()
    case 3, 4: replay.stepBackward()
    case 5: replay.seek(to: input.int(typical: -2...(replay.eventCount + 2)))
    case 6: replay.seek(toTime: input.int64())
    case 7: _ = replay.pending(first: input.int(typical: -1...20))
    case 8:
      let schedulers = Set(replay.schedulers.prefix(Int(input.byte() % 4)).map { SchedulerID(rawValue: $0.id) })
      let threads = Set(replay.threads.prefix(Int(input.byte() % 4)).map(\.id))
      _ = replay.running(in: input.bool() ? schedulers : nil, on: input.bool() ? threads : nil)
      _ = replay.pendingCount(in: input.bool() ? schedulers : nil)
    case 9:
      if let action {
        _ = replay.state(of: action)
        _ = replay.nextDue(of: action)
        _ = replay.lastRun(of: action)?.lateness
        _ = replay.currentRun(of: action)
        _ = replay.callSite(of: action)
        _ = replay.action(action).due(ofRun: input.int(typical: 0...5))
      }
    case 10:
      if let action {
        let life = replay.life(of: action)
        for run in life.runs { _ = run.lateness }
      }
    case 11:
      let id = UInt32(truncatingIfNeeded: input.int64())
      _ = replay.schedulerState(SchedulerID(rawValue: input.bool() ? id : UInt32(input.byte())))
    case 12:
      let id = UInt32(truncatingIfNeeded: input.int64())
      _ = replay.threadState(ThreadID(rawValue: input.bool() ? id : UInt32(input.byte())))
    case 13:
      replay._checkInvariants()
    case 14:
      let index = replay.firstIndex(after: input.int64())
      if index.offset < replay.eventCount {
        let event = replay.event(index)
        _ = replay.mark(of: event)
      }
    case 15:
      _ = replay.index(of: ActionID(rawValue: UInt32(truncatingIfNeeded: input.int64())))
    case 16:
      if let action { _ = replay.scheduleEvent(of: action) }
      _ = (replay.now, replay.span, replay.currentEvent, replay.runningCount)
    case 17: replay.seek(to: replay.eventCount)
    case 18: replay.seek(to: 0)
    default:
      for info in replay.threads { _ = replay.threadState(info.id).busySince }
    }
  }
  replay._checkInvariants()
  return 0
}
