import CChronoscopeShims
import CChronoscopeSlots
import ChronoscopeScheduling
import Foundation
import Logging
import Synchronization

/// The runtime's global enqueue hook, `swift_task_enqueueGlobal_hook`, deciding per job which
/// clock — if any — runs it. Installed while some clock is active, uninstalled when none is.
///
/// A job belongs to a clock when its task does. A task belongs to the clock whose code started
/// it, decided the first time one of its jobs is enqueued:
/// - a task started by a task the clock owns (a child task, a `Task {}` in code under test) is
///   the clock's too;
/// - a task started by a task that made or moved the clock (an async test) is the clock's, but
///   that task's own jobs are not: it is the test, and runs where the runtime runs it;
/// - a task started with no task running, on a thread that drives the clock or that last drove
///   it, while the clock is active (a synchronous test), is the clock's.
/// Every other job goes where it would have gone: to a hook installed before this one, if any,
/// or to the runtime's thread pool. The decision for a job of a known task is one lookup in a
/// lock-free table (``TaskOwners``); no lock is taken for a job no clock owns.
package enum GlobalJobRouting {
  typealias Original = @convention(thin) (UnownedJob) -> Void
  typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

  /// Owner values with this bit set name a task that makes or drives a clock without being its.
  static let creatorBit: UInt64 = 1 << 63

  static let owners = TaskOwners()

  // MARK: The runtime's entry points, found at run time

  private typealias JobTaskID = @convention(c) (UnsafeMutableRawPointer) -> UInt64
  private typealias CurrentTask = @convention(c) () -> UnsafeMutableRawPointer?
  private typealias TaskIsCancelled = @convention(c) (UnsafeMutableRawPointer) -> Bool

  private struct Runtime: @unchecked Sendable {
    // @unchecked Sendable: addresses in the runtime, never changed.
    let hook: UnsafeMutablePointer<Hook?>
    let jobTaskID: JobTaskID
    let currentTask: CurrentTask
    let isCancelled: TaskIsCancelled
  }

  /// The runtime's hook and the functions that name a job's task and the running task and say
  /// whether a task is cancelled, or what is missing. `swift_task_getJobTaskId`,
  /// `swift_task_getCurrent` and `swift_task_isCancelled` are the runtime's exported entry points
  /// (`ExecutorJob`'s description, `withUnsafeCurrentTask` and `UnsafeCurrentTask.isCancelled`
  /// call them); their Swift calling convention matches C's for one pointer in and one word out.
  private static let runtime: Result<Runtime, RuntimeMissing> = {
    let process = dlopen(nil, RTLD_NOW)
    var missing: [String] = []
    let hook = dlsym(process, "swift_task_enqueueGlobal_hook")
    let jobTaskID = dlsym(process, "swift_task_getJobTaskId")
    let currentTask = dlsym(process, "swift_task_getCurrent")
    let isCancelled = dlsym(process, "swift_task_isCancelled")
    if hook == nil { missing.append("swift_task_enqueueGlobal_hook") }
    if jobTaskID == nil { missing.append("swift_task_getJobTaskId") }
    if currentTask == nil { missing.append("swift_task_getCurrent") }
    if isCancelled == nil { missing.append("swift_task_isCancelled") }
    guard let hook, let jobTaskID, let currentTask, let isCancelled else {
      return .failure(RuntimeMissing(symbols: missing))
    }
    return .success(
      Runtime(
        hook: hook.assumingMemoryBound(to: Hook?.self),
        jobTaskID: unsafeBitCast(jobTaskID, to: JobTaskID.self),
        currentTask: unsafeBitCast(currentTask, to: CurrentTask.self),
        isCancelled: unsafeBitCast(isCancelled, to: TaskIsCancelled.self)))
  }()

  /// What this runtime lacks for routing jobs, if anything.
  static var missing: RuntimeMissing? {
    if case .failure(let missing) = runtime { missing } else { nil }
  }

  /// The id of the task running on this thread, 0 if none.
  static func currentTaskID() -> UInt64 {
    guard case .success(let runtime) = runtime, let task = runtime.currentTask() else { return 0 }
    return runtime.jobTaskID(task)
  }

  /// Whether `job` is a task's (its resumption) and that task is cancelled. A job of a task is the
  /// task itself in the runtime (`AsyncTask` is a `Job`): what `swift_task_getJobTaskId` tells
  /// apart from other jobs by a nonzero id.
  static func isCancelled(_ job: UnownedJob) -> Bool {
    guard case .success(let runtime) = runtime else { return false }
    let pointer = unsafeBitCast(job, to: UnsafeMutableRawPointer.self)
    return runtime.jobTaskID(pointer) != 0 && runtime.isCancelled(pointer)
  }

  /// The id of the task `job` runs for, 0 if none (an actor's job) or unknown.
  static func taskID(of job: UnownedJob) -> UInt64 {
    guard case .success(let runtime) = runtime else { return 0 }
    return runtime.jobTaskID(unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
  }

  // MARK: Clocks

  private struct Registry {
    var routers: [UInt64: JobRouter] = [:]
    var clocks: [UInt64: WeakClock] = [:]
    var active = 0
    var nextNumber: UInt64 = 1
    /// The hook found installed when this one went in: jobs no clock owns go to it.
    var previous: Hook?
    var installed = false
    /// Whether the watchdog thread runs: from a clock's activation until no clock is active.
    var watching = false
  }

  private struct WeakClock {
    weak var clock: VirtualAsyncClock?
  }

  private static let registry = Mutex(Registry())

  // nonisolated(unsafe): set under `registry`'s lock before the hook goes in, read by the hook.
  nonisolated(unsafe) private static var previousHook: Hook?

  /// The clock a thread drives now, and the one it last drove with no task running: a job
  /// enqueued on that thread with no task running (an actor rescheduled after a job, a task
  /// started by a synchronous test) is the one's it drives, or else — while it has unfinished
  /// tasks — the other's.
  ///
  /// A POSIX key read directly rather than ChronoscopeScheduling's generic `ThreadLocal`: the hook reads it
  /// for every job enqueued with no task running, and the generic path, unspecialised across the
  /// module boundary, costs tens of times more per read (Benchmarks/README.md, "Figures behind
  /// the code").
  /// A thread that never drove a clock has no box, and the hook allocates none.
  private static let threadClocksKey: pthread_key_t = {
    var key = pthread_key_t()
    let created = pthread_key_create(&key) { box in
      if let box { Unmanaged<ThreadClocks>.fromOpaque(box).release() }
    }
    precondition(created == 0, "pthread_key_create failed: \(created)")
    return key
  }()

  private final class ThreadClocks {
    weak var driving: JobRouter?
    weak var home: JobRouter?
  }

  /// This thread's clocks, if it ever drove one.
  private static func threadClocks() -> ThreadClocks? {
    pthread_getspecific(threadClocksKey).map {
      Unmanaged<ThreadClocks>.fromOpaque($0).takeUnretainedValue()
    }
  }

  /// This thread's clocks, made on first use.
  private static func makeThreadClocks() -> ThreadClocks {
    if let clocks = threadClocks() { return clocks }
    let clocks = ThreadClocks()
    pthread_setspecific(threadClocksKey, Unmanaged.passRetained(clocks).toOpaque())
    return clocks
  }

  /// A router for a new clock, with its number.
  static func register() -> JobRouter {
    let router = registry.withLock { registry in
      let number = registry.nextNumber
      registry.nextNumber += 1
      let router = JobRouter(number: number)
      registry.routers[number] = router
      return router
    }
    activate(router)
    return router
  }

  /// Lets the watchdog see `clock`, once made.
  static func watch(_ clock: VirtualAsyncClock) {
    registry.withLock { $0.clocks[clock.router.number] = WeakClock(clock: clock) }
  }

  static func unregister(_ router: JobRouter) {
    deactivate(router)
    registry.withLock { registry in
      registry.routers[router.number] = nil
      registry.clocks[router.number] = nil
    }
  }

  /// Starts routing jobs for `router`'s clock — from its making, and again at each use after it
  /// went quiet — installing the hook if it is the first.
  static func activate(_ router: JobRouter) {
    guard !router.active.load(ordering: .acquiring) else { return }
    guard case .success(let runtime) = runtime else { return }
    let activated = registry.withLock { registry -> Bool in
      // Under the lock, so that a racing deactivate cannot leave the count wrong.
      guard !router.active.exchange(true, ordering: .acquiringAndReleasing) else { return false }
      router.reopen()
      registry.active += 1
      if !registry.installed {
        let current = runtime.hook.pointee
        previousHook = current
        registry.previous = current
        runtime.hook.pointee = route
        registry.installed = true
      }
      return true
    }
    if activated { startWatchdog() }
  }

  /// Stops routing jobs for `router`'s clock: lets go of its tasks, hands the jobs it holds back
  /// to the runtime (none is left in a router nobody will drive), and uninstalls the hook when
  /// no clock is active, handing the runtime back the hook found before — unless another
  /// library put its own over this one meanwhile (then this one stays, passing every job on).
  static func deactivate(_ router: JobRouter) {
    guard case .success(let runtime) = runtime else { return }
    let deactivated = registry.withLock { registry -> Bool in
      guard router.active.exchange(false, ordering: .acquiringAndReleasing) else { return false }
      registry.active -= 1
      if registry.active == 0, registry.installed, isOurs(runtime.hook.pointee) {
        runtime.hook.pointee = registry.previous
        registry.installed = false
      }
      return true
    }
    guard deactivated else { return }
    owners.release(router.takeClaimed(), ownedBy: router.number, ignoring: creatorBit)
    for job in router.close() { handBack(job) }
  }

  /// Sends `job` to the runtime's global executor, past any hook.
  static func handBack(_ job: UnownedJob) {
    globalConcurrentExecutor.enqueue(ExecutorJob(job))
  }

  /// How many clocks route jobs now, and whether the hook is in: for tests of the hook's life.
  package static var state: (activeClocks: Int, installed: Bool) {
    registry.withLock { ($0.active, $0.installed) }
  }

  /// Whether the runtime's hook is this one; if not, what replaced it (for the error a drive
  /// reports). Nil when routing works.
  static func replacedHook() -> String? {
    guard case .success(let runtime) = runtime else { return nil }
    let installed = registry.withLock { $0.installed }
    guard installed, !isOurs(runtime.hook.pointee) else { return nil }
    return hookDescription(runtime.hook.pointee)
  }

  private static func isOurs(_ hook: Hook?) -> Bool {
    guard let hook else { return false }
    return unsafeBitCast(hook, to: UnsafeRawPointer.self)
      == unsafeBitCast(route as Hook, to: UnsafeRawPointer.self)
  }

  /// A hook function, for messages (glibc's `dladdr`, which could name it, is not in Swift's
  /// Glibc module).
  private static func hookDescription(_ hook: Hook?) -> String {
    guard let hook else { return "nothing (the hook was removed)" }
    return "another hook, at \(unsafeBitCast(hook, to: UnsafeRawPointer.self))"
  }

  /// Marks `task` (a test's task, making, moving or sleeping on the clock) as starting tasks for
  /// `router`'s clock, its own jobs running where they would — unless it is a clock's own task.
  static func adoptCreatorIfUnowned(_ task: UInt64, for router: JobRouter) {
    guard task != 0 else { return }
    if let owner = owners.owner(of: task), owner & creatorBit == 0 { return }
    // A test's task marks the clock it made or moved last.
    if owners.assign(task, to: router.number | creatorBit) { router.claimed(task) }
  }

  /// Makes `task` `router`'s clock's, if no clock owns or was made by it.
  static func claimIfUnknown(_ task: UInt64, for router: JobRouter) {
    guard task != 0, owners.owner(of: task) == nil else { return }
    _ = claim(task, for: router.number)
  }

  /// Runs `body` with this thread driving `router`'s clock; with `fromATask` false (no task
  /// running: a synchronous test) the thread stays the clock's home after it.
  static func driving<R>(_ router: JobRouter, fromATask: Bool, _ body: () -> R) -> R {
    let clocks = makeThreadClocks()
    let outer = clocks.driving
    clocks.driving = router
    if !fromATask { clocks.home = router }
    // A time bubble's work runs here: the slots' replacements ask the bubble while it does.
    let bubble = UnsafeMutableRawPointer(bitPattern: router.bubble.load(ordering: .relaxed))
    let outerBubble = bubble.map { chronoscope_slots_set_current($0) }
    defer {
      clocks.driving = outer
      if bubble != nil { chronoscope_slots_set_current(outerBubble ?? nil) }
    }
    return body()
  }

  /// The owner a task's jobs go to, if any, deciding it for a task seen for the first time.
  private static func owner(ofJobOf task: UInt64, _ runtime: Runtime) -> UInt64? {
    if let owner = owners.owner(of: task) {
      return owner & creatorBit == 0 ? owner : nil
    }
    // Code running in a clock's scope (`withCurrent`, the `.virtualTime` trait, a clock task)
    // inherits the clock as a task-local, even a main-actor task whose creation never passed
    // this hook: its first hop here is the first this hook hears of it.
    if let clock = VirtualAsyncClock.current { return claim(task, for: clock.router.number) }
    if let current = runtime.currentTask() {
      let parent = runtime.jobTaskID(current)
      guard parent != task, let owner = owners.owner(of: parent) else { return nil }
      return claim(task, for: owner & ~creatorBit)
    }
    guard let clocks = threadClocks() else { return nil }
    if let driving = clocks.driving { return claim(task, for: driving.number) }
    guard let home = clocks.home, home.takesThreadStarts.load(ordering: .acquiring) else {
      return nil
    }
    return claim(task, for: home.number)
  }

  /// Makes `owner` the owner of `task`, unless it has one; a job of no task (an actor's) is
  /// routed as the job that enqueued it, every time.
  private static func claim(_ task: UInt64, for owner: UInt64) -> UInt64? {
    guard task != 0 else { return owner }
    guard let claimed = owners.claim(task, for: owner) else {
      reportFullTableOnce
      return owner
    }
    if claimed == owner, let router = router(owner) { router.claimed(task) }
    return claimed
  }

  // Process-wide like the table itself, so said through the app's logging rather than a
  // clock's logger.
  private static let reportFullTableOnce: Void = {
    Logger(label: "chronoscope").error(
      "VirtualAsyncClock: more than \(owners.capacity) tasks are owned by clocks at once; later tasks' jobs may run on the runtime's threads"
    )
  }()

  private static func router(_ number: UInt64) -> JobRouter? {
    registry.withLock { $0.routers[number] }
  }

  /// Queues `job` on `router` if the hook would have (its task is the clock's, or is decided to be
  /// now): for a job the runtime hands Dispatch directly, past the hook (a yield's, a sleep's),
  /// from a thread running a time bubble's work. False if it is another's, or nobody's.
  ///
  /// Only the running task's own business reaches Dispatch this way (its yield, the wake-up of its
  /// sleep, made in it), so a task no clock knows yet is the bubble's, as code started from its
  /// work is — main-actor code of the bubble's, whose jobs never passed the hook, included.
  static func takeDirectEnqueue(_ job: UnownedJob, for router: JobRouter) -> Bool {
    guard case .success(let runtime) = runtime else { return false }
    let task = runtime.jobTaskID(unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
    if let owner = owners.owner(of: task) {
      guard owner == router.number else { return false }
    } else if task != 0, claim(task, for: router.number) != router.number {
      return false
    }
    return router.push(job, continuing: task != 0 && router.runningTask == task) != .refused
  }

  /// The hook: a job of a clock's task goes to its router, every other job on.
  private static let route: Hook = { job, original in
    guard case .success(let runtime) = GlobalJobRouting.runtime else { return original(job) }
    let task = runtime.jobTaskID(unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
    if let owner = GlobalJobRouting.owner(ofJobOf: task, runtime),
      let router = GlobalJobRouting.router(owner),
      // The task whose job the router runs now, enqueuing itself: it hopped to the generic
      // executor (off the router's identity, which its jobs run on), where the runtime would
      // have run on without a break (see `JobRouter.push(_:continuing:)`).
      router.push(job, continuing: task != 0 && router.runningTask == task) != .refused
    {
      return
    } else if let previous = GlobalJobRouting.previousHook {
      previous(job, original)
    } else if task != 0, GlobalJobRouting.asyncMoves.load(ordering: .relaxed) > 0,
      runtime.currentTask() == nil, GlobalJobRouting.owners.owner(of: task) == nil
    {
      GlobalJobRouting.runStray(job)
    } else {
      original(job)
    }
  }

  // MARK: Strays

  /// Async moves under way, in all clocks.
  static let asyncMoves = Atomic<Int>(0)
  /// Stray jobs ever run.
  static let straysRun = Atomic<Int>(0)
  /// Stray jobs running now, and the moves waiting for none to run.
  private static let strays = Mutex<(running: Int, waiting: [CheckedContinuation<Void, Never>])>(
    (0, []))

  /// A job of a task no clock knows, enqueued with no task running while an async move is under
  /// way: a task that started on the main actor (its first job never passed this hook) leaving
  /// it, perhaps to sleep on a clock through generic code — only then will the clock know it. So
  /// that a move does not go on before it has, the job runs here, on a Dispatch thread, on the
  /// global concurrent executor as the pool would run it, and moves wait until no such job runs
  /// (``waitForStrays()``). Strays are counted for the whole process: a move can wait for
  /// another test's.
  private static func runStray(_ job: UnownedJob) {
    strays.withLock { $0.running += 1 }
    outsideAnyBubble { runStrayOnDispatch(job) }
  }

  private static func runStrayOnDispatch(_ job: UnownedJob) {
    DispatchQueue.global().async {
      job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
      straysRun.add(1, ordering: .relaxed)
      let waiting = strays.withLock { strays -> [CheckedContinuation<Void, Never>] in
        strays.running -= 1
        guard strays.running == 0 else { return [] }
        defer { strays.waiting = [] }
        return strays.waiting
      }
      for waiter in waiting { waiter.resume() }
    }
  }

  /// Returns once no stray job runs, suspending (not spinning) meanwhile.
  nonisolated(nonsending) static func waitForStrays() async {
    guard strays.withLock({ $0.running }) > 0 else { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let runsNone = strays.withLock { strays -> Bool in
        guard strays.running > 0 else { return true }
        strays.waiting.append(continuation)
        return false
      }
      if runsNone { continuation.resume() }
    }
  }

  // MARK: Watchdog

  /// Signalled when a router queues a job while nobody drives its clock: the watchdog then looks
  /// every millisecond for jobs of tasks cancelled meanwhile.
  private static let heldUndriven = DispatchSemaphore(value: 0)

  /// Wakes the watchdog: a router holds a job with nobody driving its clock.
  static func jobsHeldUndriven() {
    startWatchdog()
    heldUndriven.signal()
  }

  /// Starts the watchdog, unless it runs: a thread that looks, ten times a second, for clocks
  /// nobody moves while code waits on them (``VirtualAsyncClock/idleLimit``) and ends the wait
  /// with a message, and for clocks nothing waits on nor used for as long, which stop routing (a
  /// clock kept alive by a reference cycle in the code under test does not keep the hook in for
  /// ever). While a clock holds jobs with nobody driving it, it also looks every millisecond for
  /// jobs of tasks cancelled since they were queued, and runs them
  /// (``JobRouter/runCancelledIfNobodyDrives()``).
  ///
  /// It ends once no clock is active and no router holds a job — when the last clock went quiet
  /// or was let go — and a clock's next activation starts it again: a process that used virtual
  /// time once keeps no thread for it.
  private static func startWatchdog() {
    let start = registry.withLock { registry -> Bool in
      guard !registry.watching else { return false }
      registry.watching = true
      return true
    }
    guard start else { return }
    let thread = Thread {
      chronoscope_name_current_thread("chrono-watchdog")
      var ticks = 0
      while true {
        // A millisecond while a router holds jobs with nobody driving (a task the test started
        // may be cancelled meanwhile), else a tenth of a second or until a router does.
        let holding = registry.withLock { $0.routers.values.contains(where: \.holdsJobsUndriven) }
        if holding {
          Thread.sleep(forTimeInterval: 0.001)
        } else {
          _ = heldUndriven.wait(timeout: .now() + 0.1)
        }
        let routers = registry.withLock { Array($0.routers.values) }
        for router in routers { router.runCancelledIfNobodyDrives() }
        ticks = holding ? ticks + 1 : 100
        guard ticks >= 100 else { continue }
        ticks = 0
        let clocks = registry.withLock { $0.clocks.values.compactMap(\.clock) }
        for clock in clocks {
          clock.endWaitIfNobodyDrives()
          clock.deactivateIfQuiet()
        }
        // Under the lock that activation takes: a clock activated after this sees `watching`
        // false and starts a new watchdog.
        let done = registry.withLock { registry -> Bool in
          guard registry.active == 0,
            !registry.routers.values.contains(where: \.holdsJobsUndriven)
          else { return false }
          registry.watching = false
          return true
        }
        if done { return }
      }
    }
    thread.name = "chronoscope.virtual-async-watchdog"
    thread.start()
  }
}

/// Runtime entry points `VirtualAsyncClock` needs and this runtime does not export.
struct RuntimeMissing: Error, CustomStringConvertible {
  let symbols: [String]

  var description: String {
    "VirtualAsyncClock cannot take jobs from this Swift runtime: it does not export "
      + symbols.joined(separator: ", ")
      + ". Async code started on the clock runs on the runtime's threads, and moves do not wait for it."
  }
}
