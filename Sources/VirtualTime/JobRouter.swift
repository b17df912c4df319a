import Dispatch
import Foundation
import Synchronization

/// Runs async code on the thread that drives a ``VirtualAsyncClock``, one job at a time, until
/// nothing more can run: what makes "everything that could run has run" a fact, not a guess.
///
/// How (see docs/AsyncVirtualTime.md for the alternatives weighed):
/// - **Jobs for the global concurrent executor** — unstructured `Task {}`, child tasks, default
///   actors, nonisolated async functions, continuations resumed — are taken from the runtime by
///   its `swift_task_enqueueGlobal_hook` while a clock is active, and queued here instead of on
///   the thread pool. ``runUntilIdle()`` runs them on the calling thread in the order they came,
///   each on this serial executor, until the queue is empty.
/// - **Main-actor jobs** go to the main Dispatch queue, which the runtime gives no hook for on
///   this toolchain: when the driving thread is the main thread (as in an XCTest test method),
///   ``runUntilIdle()`` services that queue up to a marker it enqueues, and goes on while that
///   made more jobs runnable.
/// - Not seen: actors with custom executors, Dispatch queues and threads the code starts itself.
///   Work there runs as it would anyway, and whatever it resumes lands in the queue, to run at
///   the next drive.
final class JobRouter: SerialExecutor, @unchecked Sendable {
  // @unchecked Sendable: `jobs` is under its lock; `draining` is only touched by the driving
  // thread (the one in `runUntilIdle`).
  private let jobs = Mutex<JobQueue>(JobQueue())
  private let draining = Atomic<Bool>(false)

  func enqueue(_ job: consuming ExecutorJob) {
    push(UnownedJob(job))
  }

  func push(_ job: UnownedJob) {
    jobs.withLock { $0.append(job) }
  }

  /// Whether jobs have waited `limit` or longer with nobody running them: the clock was left
  /// active (a test that stopped half-way, its tasks unfinished). Then it hands them back.
  func handBackIfAbandoned(after limit: Duration, to original: (UnownedJob) -> Void) -> Bool {
    guard !draining.load(ordering: .acquiring) else { return false }
    let abandoned = jobs.withLock { queue -> [UnownedJob]? in
      guard let since = queue.waitingSince, since.duration(to: .now) >= limit else { return nil }
      var jobs: [UnownedJob] = []
      while let job = queue.popFirst() { jobs.append(job) }
      return jobs
    }
    guard let abandoned else { return false }
    for job in abandoned { original(job) }
    return true
  }

  var isEmpty: Bool { jobs.withLock { $0.isEmpty } }

  /// Runs queued jobs — and the jobs they make runnable — until none is left. A call from inside
  /// a job (code under test driving the clock) returns at once: the outer call goes on.
  func runUntilIdle() {
    guard !draining.exchange(true, ordering: .acquiring) else { return }
    defer { draining.store(false, ordering: .releasing) }
    while true {
      while let job = jobs.withLock({ $0.popFirst() }) {
        job.runSynchronously(on: asUnownedSerialExecutor())
      }
      guard Thread.isMainThread else { return }
      Self.serviceMainQueue()
      if isEmpty { return }
    }
  }

  /// Runs what the main queue holds now, up to a marker enqueued behind it: through
  /// libdispatch's own main-queue drain (what a run loop calls), which costs a few hundred
  /// nanoseconds where a run-loop turn costs tens of microseconds, and through the run loop where
  /// that function is missing.
  private static func serviceMainQueue() {
    let reached = Atomic<Bool>(false)
    DispatchQueue.main.async { reached.store(true, ordering: .releasing) }
    while !reached.load(ordering: .acquiring) {
      if let drainMainQueue {
        drainMainQueue(nil)
      } else {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
      }
    }
  }

  private typealias MainQueueDrain = @convention(c) (UnsafeMutableRawPointer?) -> Void

  /// `_dispatch_main_queue_callback_4CF`, exported by libdispatch for run loops to call.
  private static let drainMainQueue: MainQueueDrain? = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "_dispatch_main_queue_callback_4CF") else {
      return nil
    }
    return unsafeBitCast(symbol, to: MainQueueDrain.self)
  }()
}

/// A first-in, first-out queue of jobs without shifting an array on each pop.
private struct JobQueue {
  private var items: [UnownedJob] = []
  private var head = 0
  /// When the queue last went from empty to not: how long its oldest job has waited, about.
  private(set) var waitingSince: ContinuousClock.Instant?

  var isEmpty: Bool { head == items.count }

  mutating func append(_ job: UnownedJob) {
    if isEmpty { waitingSince = .now }
    items.append(job)
  }

  mutating func popFirst() -> UnownedJob? {
    guard head < items.count else { return nil }
    let job = items[head]
    head += 1
    if head == items.count {
      items.removeAll(keepingCapacity: true)
      head = 0
      waitingSince = nil
    }
    return job
  }
}

/// The runtime's global enqueue hook, pointed at the active ``JobRouter``: installed once, it
/// hands a job to the runtime's own executor whenever no clock is active.
enum GlobalJobRouting {
  private typealias Original = @convention(thin) (UnownedJob) -> Void
  private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

  /// The routers active now, latest last: the latest gets the jobs.
  private static let active = Mutex<[JobRouter]>([])

  // nonisolated(unsafe): the runtime's own variable; it is only ever set, to the one function
  // below, and the runtime reads it on each enqueue.
  nonisolated(unsafe) private static let hook: UnsafeMutablePointer<Hook?>? = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else {
      return nil
    }
    return symbol.assumingMemoryBound(to: Hook?.self)
  }()

  /// Whether this runtime lets jobs be routed at all.
  static var isAvailable: Bool { hook != nil }

  /// The runtime's own enqueue, learnt from the hook's first call.
  private static let original = Mutex<Original?>(nil)

  /// How long jobs may wait with nobody driving before the watchdog hands them back.
  static let abandonedAfter: Duration = .seconds(3)

  static func activate(_ router: JobRouter) {
    active.withLock { $0.append(router) }
    startWatchdog
    guard let hook, hook.pointee == nil else { return }
    hook.pointee = { job, original in
      GlobalJobRouting.original.withLock { if $0 == nil { $0 = original } }
      if let router = GlobalJobRouting.active.withLock({ $0.last }) {
        router.push(job)
      } else {
        original(job)
      }
    }
  }

  /// A safety valve, not part of any rule: a test that stops half-way (a thrown `XCTUnwrap`)
  /// leaves its clock routing jobs that nobody will run — among them XCTest's own, so the run
  /// would hang. Jobs that waited ``abandonedAfter`` with nobody driving are handed back to the
  /// runtime, that router stops receiving any, and a warning says so.
  private static let startWatchdog: Void = {
    let thread = Thread {
      while true {
        Thread.sleep(forTimeInterval: 0.25)
        guard let original = original.withLock({ $0 }) else { continue }
        for router in active.withLock({ $0 }) {
          if router.handBackIfAbandoned(after: abandonedAfter, to: { original($0) }) {
            deactivate(router)
            FileHandle.standardError.write(
              Data(
                "chronoscope: VirtualAsyncClock: jobs waited \(abandonedAfter) with nobody driving the clock; they now run on the runtime's threads (did a test stop before its tasks finished?)\n"
                  .utf8))
          }
        }
      }
    }
    thread.name = "chronoscope.virtual-async-watchdog"
    thread.start()
  }()

  static func deactivate(_ router: JobRouter) {
    active.withLock { routers in
      if let index = routers.lastIndex(where: { $0 === router }) { routers.remove(at: index) }
    }
  }
}
