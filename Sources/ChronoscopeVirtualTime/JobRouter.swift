import CChronoscopeSlots
import Dispatch
import Foundation
import Synchronization

/// One clock's queue of jobs: what the runtime would have run on its thread pool for the tasks
/// the clock owns, run instead on the thread that drives the clock, one at a time, until nothing
/// more can run — what makes "everything that could run has run" a fact, not a guess.
///
/// Which jobs are a clock's is decided per job by ``GlobalJobRouting`` (see
/// docs/AsyncVirtualTime.md): the jobs of tasks the clock's code started, wherever they are
/// resumed from.
final class JobRouter: SerialExecutor, @unchecked Sendable {
  // @unchecked Sendable: `jobs` is under its lock; `draining` is an atomic.
  private let jobs = Mutex<JobQueue>(JobQueue())
  private let draining = Atomic<Bool>(false)
  /// Jobs ever pushed: a drive compares it before and after letting the main actor run, to know
  /// whether that made anything of the clock's runnable.
  let pushes = Atomic<Int>(0)
  /// The clock's number in ``GlobalJobRouting``: what the task table stores for its tasks.
  let number: UInt64
  /// The time bubble whose clock this is (its address), 0 for a clock of no bubble: a thread
  /// that drives the clock runs the bubble's work, and says so to the slots' replacements.
  let bubble = Atomic<UInt>(0)
  /// Whether jobs are routed here now (the clock is active).
  let active = Atomic<Bool>(false)
  /// Whether a task started with no task running, on the thread that last drove the clock, is
  /// the clock's: while it drives or has unfinished tasks.
  let takesThreadStarts = Atomic<Bool>(false)
  /// The tasks the table names this router's clock as owner (or creator) of, to let go of them
  /// when it stops.
  private let tasks = Mutex<[UInt64]>([])

  /// Drives under way (``VirtualAsyncClock``'s moves and what else runs its jobs): while there is
  /// none, a job of a cancelled task does not wait here (see ``push(_:continuing:)``).
  private let drivers = Atomic<Int>(0)
  /// Jobs of cancelled tasks running on the runtime's threads because nobody drove the clock:
  /// a drive waits for them before it runs anything.
  private let cancelledRunning = DispatchGroup()
  /// How many of them run now: a drive waits only when some do.
  private let cancelledRunningCount = Atomic<Int>(0)

  /// The task whose job runs now (0 between jobs), read on the same thread by the enqueue hook.
  private let running = Atomic<UInt64>(0)
  var runningTask: UInt64 { running.load(ordering: .relaxed) }

  /// Set when the clock explores orders: picks which ready job runs next (see ``explore(with:)``).
  private let chooser = Mutex<(@Sendable ([UInt64]) -> Int)?>(nil)

  init(number: UInt64) { self.number = number }

  /// Runs, each time, the ready job `choose` picks among them (given each one's chain: its task,
  /// or the job itself) instead of the first queued. Any ready job may run next in production:
  /// the global executor runs them on a pool of threads, and an actor has at most one queued.
  func explore(with choose: @escaping @Sendable ([UInt64]) -> Int) {
    chooser.withLock { $0 = choose }
  }

  func claimed(_ task: UInt64) { tasks.withLock { $0.append(task) } }

  /// How many tasks the table names this router's clock as owner (or creator) of.
  var claimedCount: Int { tasks.withLock { $0.count } }

  func takeClaimed() -> [UInt64] {
    tasks.withLock { tasks in
      defer { tasks = [] }
      return tasks
    }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    if push(job) == .refused { GlobalJobRouting.handBack(job) }
  }

  /// What ``push(_:continuing:)`` did with a job.
  enum Pushed {
    /// Queued, for the next drive.
    case queued
    /// Its task is cancelled and nobody drives the clock: it ran, or runs now, on the runtime's
    /// threads.
    case ranCancelled
    /// The router is closed (its clock stopped routing): the caller sends the job where it would
    /// have gone, so that no job waits in a router nobody drives.
    case refused
  }

  /// Queues `job`, unless its task is cancelled and nobody drives the clock: then it runs at
  /// once on the runtime's threads, as it would without the clock, and the next drive waits for
  /// it. A test that cancels a task between moves — or a task it does not know racing it — and
  /// awaits the task's end, finishes without moving the clock, as with any other clock; within
  /// a drive a cancelled task's reaction stays in the clock's order.
  ///
  /// A job `continuing` the task that is running (it hopped to the generic executor) runs next,
  /// before anything queued and chosen by no exploration: the runtime would have run on in
  /// place. As a break, it let other jobs run between a task's `lock()` and the
  /// `withUnsafeContinuation` closure that unlocks (swift-async-algorithms' `merge` does this),
  /// and one of them, blocking on that lock, stopped the only thread that runs them for good.
  func push(_ job: UnownedJob, continuing: Bool = false) -> Pushed {
    let pushed = jobs.withLock { queue -> Pushed in
      guard queue.accepting else { return .refused }
      if !continuing, drivers.load(ordering: .sequentiallyConsistent) == 0,
        GlobalJobRouting.isCancelled(job)
      {
        enterCancelled()
        return .ranCancelled
      }
      if continuing {
        queue.continuing.append(job)
      } else {
        queue.append(job)
      }
      return .queued
    }
    switch pushed {
    case .queued:
      pushes.add(1, ordering: .relaxed)
      if drivers.load(ordering: .relaxed) == 0 { GlobalJobRouting.jobsHeldUndriven() }
    case .ranCancelled: runCancelled([job])
    case .refused: break
    }
    return pushed
  }

  /// Takes the queued jobs whose tasks were cancelled since they were queued and runs them on the
  /// runtime's threads, if nobody drives the clock (the watchdog calls it): a task started by the
  /// test and cancelled before it ever ran ends without a move.
  func runCancelledIfNobodyDrives() {
    let cancelled = jobs.withLock { queue -> [UnownedJob] in
      guard drivers.load(ordering: .sequentiallyConsistent) == 0 else { return [] }
      let taken = queue.removeAll(where: GlobalJobRouting.isCancelled)
      for _ in taken { enterCancelled() }
      return taken
    }
    runCancelled(cancelled)
  }

  /// Counts a cancelled task's job about to run for nobody's drive (under the jobs' lock).
  private func enterCancelled() {
    cancelledRunningCount.add(1, ordering: .sequentiallyConsistent)
    cancelledRunning.enter()
  }

  private func runCancelled(_ cancelled: [UnownedJob]) {
    for job in cancelled {
      outsideAnyBubble { dispatchCancelled(job) }
    }
  }

  private func dispatchCancelled(_ job: UnownedJob) {
    DispatchQueue.global().async { [self] in
      Thread.current.threadDictionary[Self.runsCancelledKey] = true
      job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
      Thread.current.threadDictionary[Self.runsCancelledKey] = nil
      cancelledRunningCount.subtract(1, ordering: .sequentiallyConsistent)
      cancelledRunning.leave()
    }
  }

  /// Whether jobs wait here now: nobody drives, and some are queued.
  var holdsJobsUndriven: Bool {
    drivers.load(ordering: .relaxed) == 0 && !isEmpty
  }

  /// Marks a drive under way from here until ``endDrive()``, once the jobs of cancelled tasks
  /// that nobody drove have run — on a thread that is not running one of them, whose own drive
  /// cannot wait for itself; at most `limit`, after which the drive goes on.
  func beginDrive(waitingAtMost limit: Duration) {
    drivers.add(1, ordering: .sequentiallyConsistent)
    // The lock orders this drive after any push or sweep that saw no driver and started a job.
    jobs.withLock { _ in }
    guard cancelledRunningCount.load(ordering: .sequentiallyConsistent) > 0,
      Thread.current.threadDictionary[Self.runsCancelledKey] == nil
    else { return }
    let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) * 1e-18
    _ = cancelledRunning.wait(timeout: .now() + seconds)
  }

  func endDrive() { drivers.subtract(1, ordering: .sequentiallyConsistent) }

  var isEmpty: Bool { jobs.withLock { $0.isEmpty } }

  /// Stops taking jobs and hands out those queued (a clock that stops routing gives them back).
  func close() -> [UnownedJob] {
    jobs.withLock { queue in
      queue.accepting = false
      var taken: [UnownedJob] = []
      while let job = queue.takeContinuing() ?? queue.popFirst() { taken.append(job) }
      return taken
    }
  }

  /// Takes jobs again.
  func reopen() { jobs.withLock { $0.accepting = true } }

  /// Runs queued jobs — and the jobs they make runnable — until none is left, then main-actor
  /// work when this thread may run it (see ``MainQueue``). A call from inside a job (code under
  /// test driving the clock) returns at once: the outer call goes on.
  func runUntilIdle() {
    guard !draining.exchange(true, ordering: .acquiring) else { return }
    defer { draining.store(false, ordering: .releasing) }
    let choose = chooser.withLock { $0 }
    while true {
      while let job = next(choosingWith: choose) {
        running.store(GlobalJobRouting.taskID(of: job), ordering: .relaxed)
        job.runSynchronously(on: asUnownedSerialExecutor())
        running.store(0, ordering: .relaxed)
      }
      guard MainQueue.serviceIfThisThreadCan() else { return }
      if isEmpty { return }
    }
  }

  /// Set in the thread dictionary of a thread that runs a cancelled task's job for nobody's
  /// drive: a drive from inside that job cannot wait for it.
  private static let runsCancelledKey = "chronoscope.runs-cancelled-job"
}

extension JobRouter {
  /// The next job to run: the first queued, or the one `choose` picks among the queued. Only the
  /// draining thread takes jobs, and others only append, so the one picked is still where it was
  /// when the lock is taken again (the lock is not held while the clock's exploration chooses).
  private func next(choosingWith choose: (@Sendable ([UInt64]) -> Int)?) -> UnownedJob? {
    // One lock per job when nothing explores: the continuing job, else the first queued.
    guard let choose else { return jobs.withLock { $0.takeContinuing() ?? $0.popFirst() } }
    if let continuing = jobs.withLock({ $0.takeContinuing() }) { return continuing }
    let chains = jobs.withLock {
      $0.queued.map { Chain.job(task: GlobalJobRouting.taskID(of: $0)) }
    }
    guard !chains.isEmpty else { return nil }
    let pick = min(max(choose(chains), 0), chains.count - 1)
    return jobs.withLock { $0.remove(at: pick) }
  }
}

/// The main Dispatch queue, where the runtime sends main-actor jobs; this toolchain gives no hook
/// for them (`swift_task_enqueueMainExecutor_hook` is not consulted: swiftlang/swift#63104).
enum MainQueue {
  /// Runs what the main queue holds now, up to a marker enqueued behind it, when this thread may:
  /// it is the main thread and not already inside a main-queue job (an XCTest test method). There
  /// it goes through libdispatch's own main-queue drain (what a run loop calls). Returns whether
  /// it ran the queue.
  ///
  /// Inside a main-queue job (a `@MainActor async` test method, on the main thread or, under
  /// Swift Testing, on the worker that services the queue after `dispatchMain()`), the queue
  /// cannot be run from here — the job running now holds it. There the async moves let it run by
  /// suspending (``VirtualAsyncClock/advance(by:maxSteps:fileID:line:)``).
  static func serviceIfThisThreadCan() -> Bool {
    guard Thread.isMainThread, let drainMainQueue else { return false }
    let reached = Atomic<Bool>(false)
    // Chronoscope's own marker, not a time bubble's work, even on a thread that drives one.
    let bubble = chronoscope_slots_set_current(nil)
    DispatchQueue.main.async { reached.store(true, ordering: .releasing) }
    if bubble != nil { chronoscope_slots_set_current(bubble) }
    // One drain runs everything queued before the marker. If the marker did not run, this
    // thread is inside a main-queue job and the drain did nothing: trying again would spin.
    drainMainQueue(nil)
    return reached.load(ordering: .acquiring)
  }

  /// Suspends the calling task until the main queue has run what it held when called: the way
  /// a drive lets main-actor work run when it cannot run it itself. It resumes on the caller's
  /// actor: from the main actor, it lets every main-actor job queued before it run.
  nonisolated(nonsending) static func letRun() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      outsideAnyBubble { DispatchQueue.main.async { continuation.resume() } }
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
  /// Whether jobs are taken: false once the clock stopped routing.
  var accepting = true

  var isEmpty: Bool { head == items.count && continuing.isEmpty }

  mutating func append(_ job: UnownedJob) {
    items.append(job)
  }

  /// Jobs of the running task that hopped off the router's identity: they run before the
  /// others (see ``JobRouter/push(_:continuing:)``). At most one at a time in practice.
  var continuing: [UnownedJob] = []

  /// The first job continuing a task, if any.
  mutating func takeContinuing() -> UnownedJob? {
    continuing.isEmpty ? nil : continuing.removeFirst()
  }

  /// The queued jobs, first first.
  var queued: ArraySlice<UnownedJob> { items[head...] }

  /// Takes the job `offset` places from the first.
  mutating func remove(at offset: Int) -> UnownedJob? {
    guard offset > 0 else { return popFirst() }
    guard head + offset < items.count else { return nil }
    return items.remove(at: head + offset)
  }

  /// Takes the queued jobs (not those continuing a task) that match, keeping the others' order.
  mutating func removeAll(where matches: (UnownedJob) -> Bool) -> [UnownedJob] {
    var taken: [UnownedJob] = []
    var kept: [UnownedJob] = []
    for job in items[head...] {
      if matches(job) { taken.append(job) } else { kept.append(job) }
    }
    guard !taken.isEmpty else { return [] }
    items = kept
    head = 0
    return taken
  }

  mutating func popFirst() -> UnownedJob? {
    guard head < items.count else { return nil }
    let job = items[head]
    head += 1
    if head == items.count {
      items.removeAll(keepingCapacity: true)
      head = 0
    }
    return job
  }
}
