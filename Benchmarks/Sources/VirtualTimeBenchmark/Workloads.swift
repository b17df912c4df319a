import BenchmarkSupport
import ChronoscopeScheduling
import ChronoscopeVirtualTime
import Clocks
import CombineSchedulers
import Dispatch
import HeapModule
import Synchronization

/// A virtual-time implementation under test.
enum Library: String, CaseIterable, Sendable {
  /// Chronoscope's `VirtualClock` with a serial `VirtualScheduler`.
  case ours
  /// Point-Free's combine-schedulers `TestScheduler` (`DispatchQueue.test`; OpenCombine on Linux).
  case combineSchedulers = "combine-schedulers"
  /// Point-Free's swift-clocks `TestClock`, one sleeping task per action.
  case swiftClocks = "swift-clocks"
  /// Chronoscope's `VirtualAsyncClock`, one sleeping task per action: the same shape as
  /// swift-clocks', for async code.
  case oursAsync = "ours-async"
  /// No scheduler at all: a swift-collections `Heap` of (due, sequence, slot) keys beside an
  /// array of the closures. The least any virtual-time scheduler must do; see ``runOnFloor(_:)``.
  case floor

  /// The libraries `ours` is compared with (its `ratio`).
  static let anchors: [Library] = [.combineSchedulers, .swiftClocks]
}

/// What every action does: one relaxed atomic increment, the same counter type for every library.
final class ActionCounter: Sendable {
  private let count = Atomic<Int>(0)

  func increment() { count.wrappingAdd(1, ordering: .relaxed) }

  var value: Int { count.load(ordering: .acquiring) }
}

/// One timed run of the workload.
struct WorkloadRun {
  /// Wall time from making the clock to the last action having run.
  var elapsed: Duration
  /// How many actions ran; must equal the number scheduled.
  var actionsRun: Int
}

/// The workload: schedule one action per entry of `delays` (nanoseconds, all below one second),
/// each incrementing a counter, then move virtual time forward one second so that all of them
/// run.
func runWorkload(_ library: Library, delays: [Int64]) throws -> WorkloadRun {
  switch library {
  case .ours: return runOnVirtualClock(delays)
  case .combineSchedulers: return runOnTestScheduler(delays)
  case .swiftClocks:
    return try runBlocking { try await runOnTestClock(delays) }
  case .oursAsync: return runOnVirtualAsyncClock(delays)
  case .floor: return runOnFloor(delays)
  }
}

/// Where an action waits in ``runOnFloor(_:)``: ordered by due time, then by the order it was
/// scheduled in (`Heap` keeps no insertion order among equal elements); `slot` is its closure's
/// index.
private struct FloorKey: Comparable {
  var due: Int64
  var sequence: UInt64
  var slot: Int

  static func < (lhs: FloorKey, rhs: FloorKey) -> Bool {
    (lhs.due, lhs.sequence) < (rhs.due, rhs.sequence)
  }
}

/// The floor: schedule each action by appending its closure and pushing its key, then advance
/// one second by popping keys in order and running each closure due by then. Nothing a
/// scheduler adds: no locks, no cancellation, no serial queues, no clock object. Its closures
/// are released together once the last has run, inside the timed span, not one by one.
private func runOnFloor(_ delays: [Int64]) -> WorkloadRun {
  let counter = ActionCounter()
  let start = ContinuousClock.now
  var queue = Heap<FloorKey>()
  var actions: [() -> Void] = []
  var now: Int64 = 0
  var sequence: UInt64 = 0
  for delay in delays {
    queue.insert(FloorKey(due: now + delay, sequence: sequence, slot: actions.count))
    actions.append { counter.increment() }
    sequence += 1
  }
  let deadline = now + 1_000_000_000
  while let next = queue.min, next.due <= deadline {
    _ = queue.removeMin()
    now = next.due
    actions[next.slot]()
  }
  actions.removeAll()
  return WorkloadRun(elapsed: start.duration(to: .now), actionsRun: counter.value)
}

/// One task per action, each sleeping its delay on a `VirtualAsyncClock`, started from this
/// thread; one advance of 1 s wakes them all, and returns once every resumed task has run. No
/// waiting on the pool: the clock runs the tasks' jobs itself.
private func runOnVirtualAsyncClock(_ delays: [Int64]) -> WorkloadRun {
  let counter = ActionCounter()
  let start = ContinuousClock.now
  let clock = VirtualAsyncClock()
  clock.task {
    await withTaskGroup(of: Void.self) { group in
      for delay in delays {
        group.addTask {
          try? await clock.sleep(for: .nanoseconds(delay))
          counter.increment()
        }
      }
    }
  }
  clock.advance(by: .seconds(1))
  return WorkloadRun(elapsed: start.duration(to: .now), actionsRun: counter.value)
}

private func runOnVirtualClock(_ delays: [Int64]) -> WorkloadRun {
  let counter = ActionCounter()
  let start = ContinuousClock.now
  let clock = VirtualClock()
  let scheduler = VirtualSchedulerFactory(clock: clock).makeSerial(label: "bench")
  for delay in delays {
    scheduler.after(.nanoseconds(delay)) { counter.increment() }
  }
  clock.advance(by: .seconds(1))
  return WorkloadRun(elapsed: start.duration(to: .now), actionsRun: counter.value)
}

// Synchronous on purpose: in an async context `advance(by:)` would pick TestScheduler's
// `@MainActor async` overload, which yields between actions.
private func runOnTestScheduler(_ delays: [Int64]) -> WorkloadRun {
  let counter = ActionCounter()
  let start = ContinuousClock.now
  let scheduler: TestSchedulerOf<DispatchQueue> = DispatchQueue.test
  for delay in delays {
    scheduler.schedule(after: scheduler.now.advanced(by: .nanoseconds(Int(delay)))) {
      counter.increment()
    }
  }
  scheduler.advance(by: .seconds(1))
  return WorkloadRun(elapsed: start.duration(to: .now), actionsRun: counter.value)
}

/// `TestClock` has no callbacks: the unit of scheduled work is a task suspended in `sleep`.
///
/// `TestClock.advance` only resumes sleeps that have registered, and a task registers when it
/// reaches `sleep`, so all N tasks must get there before the clock moves. Each task bumps
/// `arrived` immediately before calling `sleep`, which registers the sleep synchronously (under
/// the clock's lock, with no suspension point in between), so once `arrived` reaches N the
/// registrations are done or microseconds from done; `advance` itself then yields (its
/// `megaYield`) before it first looks at the queue. After `advance` returns, resumed tasks may
/// still be finishing their increment on another thread, so the group is awaited; a sleep that
/// somehow registered too late is cancelled after a timeout rather than hanging the benchmark,
/// and the counter check reports it.
private func runOnTestClock(_ delays: [Int64]) async throws -> WorkloadRun {
  let counter = ActionCounter()
  let arrived = ActionCounter()
  let count = delays.count
  let start = ContinuousClock.now
  let clock = TestClock()
  let elapsed = try await withThrowingTaskGroup(of: Void.self) { group in
    for delay in delays {
      group.addTask {
        arrived.increment()
        try await clock.sleep(for: .nanoseconds(delay))
        counter.increment()
      }
    }
    while arrived.value < count { await Task.yield() }
    await clock.advance(by: .seconds(1))
    let giveUp = ContinuousClock.now.advanced(by: .seconds(60))
    while counter.value < count, ContinuousClock.now < giveUp { await Task.yield() }
    let elapsed = start.duration(to: .now)
    if counter.value < count {
      group.cancelAll()
      while (try? await group.next()) != nil {}
    } else {
      try await group.waitForAll()
    }
    return elapsed
  }
  return WorkloadRun(elapsed: elapsed, actionsRun: counter.value)
}

/// A result handed from a task to a thread that blocks for it.
private final class BlockingSlot<T: Sendable>: Sendable {
  let result = Mutex<Result<T, any Error>?>(nil)
  let done = DispatchSemaphore(value: 0)
}

/// Runs `operation` on the concurrency pool and blocks this (non-pool) thread until it is done.
private func runBlocking<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T)
  throws -> T
{
  let slot = BlockingSlot<T>()
  Task.detached {
    let result: Result<T, any Error>
    do { result = .success(try await operation()) } catch { result = .failure(error) }
    slot.result.withLock { $0 = result }
    slot.done.signal()
  }
  slot.done.wait()
  guard let result = slot.result.withLock({ $0 }) else {
    preconditionFailure("the task signalled before storing its result")
  }
  return try result.get()
}
