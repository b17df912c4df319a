import Scheduling
import Synchronization

/// A `Clock` for async/await code whose time moves only when a test moves it — on the same
/// timeline as a ``VirtualClock`` and its schedulers — and whose moves return only once the code
/// they woke has run as far as it can.
///
/// ```swift
/// func testTheRequestTimesOutAtExactlyFiveSeconds() throws {
///   let clock = VirtualAsyncClock()
///   let fetch = clock.task { try await withTimeout(.seconds(5), clock: clock) { try await api.load() } }
///   clock.advance(by: .seconds(5) - .nanoseconds(1))
///   XCTAssertNil(fetch.result)                          // still waiting, a nanosecond before
///   clock.advance(by: .nanoseconds(1))
///   XCTAssertThrowsError(try fetch.result?.get())       // timed out, exactly at 5 s
///   try clock.checkNoPendingWork()
/// }
/// ```
///
/// The rules, each checked by a test in `Tests/VirtualTimeTests/VirtualAsyncClockTests`:
/// - **Start code with ``task(_:)``.** It runs at once, on the calling thread, until it suspends.
///   While the clock has unfinished tasks, or is being moved, every job the runtime would hand to
///   its thread pool — child tasks, unstructured `Task {}`s, default actors, resumed
///   continuations — is queued for the driving thread instead (see docs/AsyncVirtualTime.md), and
///   main-actor jobs run too when that thread is the main thread. So nothing runs behind the
///   test's back, and nothing is left runnable when a call returns.
/// - **Sleepers wake in (deadline, order of sleeping)**, interleaved with scheduler work on the
///   shared ``VirtualClock`` by the same rule; after each wakes, the code it resumed runs until it
///   suspends again or finishes, before the next sleeper or action.
/// - **Cancellation**: a cancelled task's sleep throws `CancellationError` at the current instant
///   and leaves nothing pending. ``VirtualTask/cancel()`` cancels and lets the task react.
/// - **Leftovers**: ``checkNoPendingWork(fileID:line:function:)`` reports sleepers, scheduler work and
///   unfinished tasks, and cancels the tasks so that none outlives the test.
/// - Drive it from one thread. From a synchronous test method, jobs are routed between moves
///   too, so what the test wakes (a stream it feeds) waits for the next move. From an `async`
///   test method, only during moves — the test's own jobs must run when it awaits — so what it
///   wakes between moves may run on the pool at once. Code inside a job that moves the clock only
///   moves it; the outer call runs what that made runnable.
public final class VirtualAsyncClock: Clock, Sendable {
  /// A point on the clock: its offset from the clock's origin, as ``VirtualClock/now`` reads.
  public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
    public var offset: Duration

    public init(offset: Duration) { self.offset = offset }

    public func advanced(by duration: Duration) -> Instant {
      // SchedulerInstant's `+` saturates at the ends of the range instead of wrapping.
      let later = SchedulerInstant(nanoseconds: offset.clampedNanoseconds) + duration
      return Instant(offset: .nanoseconds(later.nanoseconds))
    }

    public func duration(to other: Instant) -> Duration { other.offset - offset }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

    public var description: String { "\(offset)" }
  }

  /// The timeline this clock shares with virtual schedulers.
  public let clock: VirtualClock
  private let router = JobRouter()
  private let sleeps: VirtualScheduler
  /// Unfinished tasks started by ``task(_:)`` (how to cancel each), drives under way, and
  /// whether a drive ever came from inside a task (an `async` test method): the clock routes jobs
  /// while a drive is under way, and between drives while it has unfinished tasks — unless it is
  /// driven from a task, whose own jobs would then wait in the clock's queue with nobody to run
  /// them the moment the test awaits anything.
  private let activity = Mutex<Activity>(Activity())

  private struct Activity {
    var tasks: [ObjectIdentifier: @Sendable () -> Void] = [:]
    var drives = 0
    var drivenFromATask = false

    var routes: Bool { drives > 0 || (!tasks.isEmpty && !drivenFromATask) }
  }

  /// A clock on `clock`'s timeline (a new one by default).
  public init(clock: VirtualClock = VirtualClock()) {
    self.clock = clock
    sleeps = VirtualScheduler(label: "Task.sleep", kind: .concurrent, clock: clock)
    let router = self.router
    clock.setAfterEachAction { router.runUntilIdle() }
  }

  deinit {
    clock.setAfterEachAction(nil)
    GlobalJobRouting.deactivate(router)
  }

  public var now: Instant { Instant(offset: clock.now) }

  public var minimumResolution: Duration { .nanoseconds(1) }

  /// Suspends until the clock reaches `deadline`: until a test moves it there. A deadline now or
  /// past wakes at the next move (``advance()`` does it without moving time).
  ///
  /// - Throws: `CancellationError` when the task is cancelled, at once.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let sleeper = Sleeper()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        guard sleeper.wait(continuation) else { return }
        let wake = clock.schedule(
          { sleeper.wake() }, on: sleeps, at: deadline.offset.clampedNanoseconds,
          callSite: CallSite(fileID: "Swift/Task.swift", line: 0, function: "sleep(until:)"))
        sleeper.armed(wake)
      }
    } onCancel: {
      sleeper.cancel()
    }
  }

  /// Starts `body` as a task and runs it until it first suspends (or finishes).
  ///
  /// - Parameter name: The task's name (`Task(name:)`), which a recording shows on its lane.
  /// - Returns: A handle whose ``VirtualTask/result`` is set once the body returns or throws.
  @discardableResult
  public func task<Success: Sendable>(
    name: String? = nil, _ body: @escaping @Sendable () async throws -> Success
  ) -> VirtualTask<Success> {
    let handle = VirtualTask<Success>(clock: self)
    let id = ObjectIdentifier(handle)
    changeActivity { $0.tasks[id] = { [weak handle] in handle?.cancelWithoutDriving() } }
    let operation: @Sendable () async -> Void = {
      let outcome: Result<Success, any Error>
      do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
      handle.finish(outcome)
      self.changeActivity { $0.tasks[id] = nil }
    }
    drive {
      #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
          handle.started(Task(name: name, operation: operation))
        } else {
          handle.started(Task(operation: operation))
        }
      #else
        handle.started(Task(operation: operation))
      #endif
    }
    return handle
  }

  /// Runs the code that can run now — jobs queued and work due now — without moving time.
  public func advance() {
    drive { clock.advance() }
  }

  /// Moves time forward by `duration`, waking sleepers and running scheduler work as they fall
  /// due, each followed by the code it made runnable.
  public func advance(by duration: Duration) {
    drive { clock.advance(by: duration) }
  }

  /// Moves time forward to `deadline`, as ``advance(by:)`` does.
  public func advance(to deadline: Instant) {
    drive { clock.advance(to: deadline.offset) }
  }

  /// Moves time from sleeper to sleeper (and action to action) until nothing is pending.
  ///
  /// - Throws: ``VirtualTimeError`` as ``VirtualClock/run(maxSteps:horizon:)`` does.
  public func run(maxSteps: Int = 1_000_000, horizon: Duration? = nil) throws(VirtualTimeError) {
    var failure: VirtualTimeError?
    drive {
      do throws(VirtualTimeError) {
        try clock.run(maxSteps: maxSteps, horizon: horizon)
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
  }

  /// Fails, listing what is left, if a sleeper, scheduler work or a task started by
  /// ``task(_:)`` is unfinished; call it at a test's end. The error starts with the caller's
  /// file and line. Unfinished tasks are cancelled and run to their end before it throws, so
  /// that none is left holding the runtime's jobs after the test.
  public func checkNoPendingWork(
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function
  ) throws(VirtualTimeError) {
    let checkedAt = CallSite(fileID: fileID, line: line, function: function)
    let unfinished = activity.withLock { Array($0.tasks.values) }
    if !unfinished.isEmpty {
      let pending = clock.pendingActions
      drive { for cancel in unfinished { cancel() } }
      throw .unfinishedTasks(count: unfinished.count, pending: pending, checkedAt: checkedAt)
    }
    try clock.checkNoPendingWork(fileID: fileID, line: line, function: function)
  }

  // MARK: - Driving

  /// Runs `body` with jobs routed here, then runs what is runnable until nothing is.
  private func drive(_ body: () -> Void) {
    let fromATask = withUnsafeCurrentTask { $0 != nil }
    changeActivity {
      $0.drives += 1
      if fromATask { $0.drivenFromATask = true }
    }
    router.runUntilIdle()
    body()
    settle()
    changeActivity { $0.drives -= 1 }
  }

  /// Runs jobs and work due now until neither is left.
  private func settle() {
    while true {
      router.runUntilIdle()
      guard let due = clock.nextDue, due <= clock.now else { return }
      clock.advance()
    }
  }

  /// Changes what keeps the clock active, and starts or stops routing jobs here as that changes
  /// (under the same lock, so that two threads' changes cannot cross).
  private func changeActivity(_ change: (inout Activity) -> Void) {
    activity.withLock { activity in
      let was = activity.routes
      change(&activity)
      let now = activity.routes
      if !was, now { GlobalJobRouting.activate(router) }
      if was, !now { GlobalJobRouting.deactivate(router) }
    }
  }
}

/// A task started by ``VirtualAsyncClock/task(_:)``: its outcome, readable without `await` once
/// the clock has run it to the end.
public final class VirtualTask<Success: Sendable>: Sendable {
  private let clock: VirtualAsyncClock
  private let state = Mutex<(task: Task<Void, Never>?, outcome: Result<Success, any Error>?)>(
    (nil, nil))

  init(clock: VirtualAsyncClock) { self.clock = clock }

  /// What the task returned or threw; nil while it has not finished.
  public var result: Result<Success, any Error>? { state.withLock { $0.outcome } }

  /// Whether the task has finished.
  public var isFinished: Bool { result != nil }

  /// Cancels the task and runs what that makes runnable: a sleep it waits in throws
  /// `CancellationError` at the current instant.
  public func cancel() {
    cancelWithoutDriving()
    clock.advance()
  }

  func cancelWithoutDriving() { state.withLock { $0.task }?.cancel() }

  func started(_ task: Task<Void, Never>) { state.withLock { $0.task = task } }

  func finish(_ outcome: Result<Success, any Error>) { state.withLock { $0.outcome = outcome } }
}

/// One sleep: its continuation and its wake-up on the virtual clock, whichever of waking and
/// cancelling comes first resumes it, once.
private final class Sleeper: Sendable {
  private enum Phase {
    case idle
    case waiting(CheckedContinuation<Void, any Error>, SchedulerTask?)
    case cancelled
    case done
  }

  private let phase = Mutex<Phase>(.idle)

  /// Takes the continuation; false (having resumed it throwing) if the task was cancelled first.
  func wait(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
    let cancelled = phase.withLock { phase in
      if case .cancelled = phase { return true }
      phase = .waiting(continuation, nil)
      return false
    }
    if cancelled { continuation.resume(throwing: CancellationError()) }
    return !cancelled
  }

  /// Keeps the wake-up, to cancel it if the task is cancelled.
  func armed(_ wake: SchedulerTask) {
    let cancelledMeanwhile = phase.withLock { phase in
      guard case .waiting(let continuation, nil) = phase else { return true }
      phase = .waiting(continuation, wake)
      return false
    }
    if cancelledMeanwhile { wake.cancel() }
  }

  func wake() {
    let continuation = phase.withLock { phase -> CheckedContinuation<Void, any Error>? in
      guard case .waiting(let continuation, _) = phase else { return nil }
      phase = .done
      return continuation
    }
    continuation?.resume()
  }

  func cancel() {
    let (continuation, wake) = phase.withLock {
      phase -> (CheckedContinuation<Void, any Error>?, SchedulerTask?) in
      switch phase {
      case .idle:
        phase = .cancelled
        return (nil, nil)
      case .waiting(let continuation, let wake):
        phase = .done
        return (continuation, wake)
      case .cancelled, .done:
        return (nil, nil)
      }
    }
    wake?.cancel()
    continuation?.resume(throwing: CancellationError())
  }
}
