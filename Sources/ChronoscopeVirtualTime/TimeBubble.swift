import CChronoscopeSlots
import ChronoscopeScheduling
import Foundation
import Synchronization

/// Virtual time for code that was never written for it: inside a bubble, `Task.sleep`,
/// `DispatchQueue.asyncAfter`, `DispatchSourceTimer`, `ContinuousClock.now`, `Date()` and the rest
/// of what docs/TimeBubbles.md lists run on a timeline that moves only when nothing in the bubble
/// can run, straight to the next deadline.
///
/// ```swift
/// func testRetriesWithBackoff() async throws {
///   try await withTimeBubble { bubble in
///     let start = ContinuousClock.now
///     let result = try await FlakyClient().fetchWithRetry()  // Task.sleep(for: .seconds(2 << n))
///     XCTAssertEqual(result, "ok")
///     XCTAssertEqual(ContinuousClock.now - start, .seconds(30))  // at once, 30 virtual seconds
///   }
/// }
/// ```
///
/// The bubble's work is the body, every task it starts (and theirs), and every piece of Dispatch
/// work scheduled from the bubble's work. It runs on the thread that drives the bubble, one piece
/// at a time, first in first out: serial queues keep their order, and nothing of the bubble runs
/// in parallel with anything else of it. Everything else in the process — other tests running in
/// parallel, the test runner, threads the code starts itself — keeps real time and real threads.
///
/// The bubble works by rewriting, in the running process, the imported-function slots of the
/// Swift runtime's libraries (libswift_Concurrency, libswiftDispatch, libdispatch, Foundation):
/// Linux only; ``TimeBubbleError/unsupported(reason:)`` elsewhere.
public final class TimeBubble: Sendable {
  /// What `Date()` reads when a bubble starts: 2001-01-01 00:00:00 UTC, Foundation's reference
  /// date (`Date(timeIntervalSinceReferenceDate: 0)`).
  public static let realTimeStart = Date(timeIntervalSinceReferenceDate: 0)
  /// What the monotonic clocks (`ContinuousClock`, `SuspendingClock`, `DispatchTime`,
  /// `ProcessInfo.systemUptime`) read when a bubble starts: 1,000 seconds since boot.
  public static let uptimeStart: Duration = .seconds(1_000)

  /// The bubble whose body is running, inherited by the tasks it starts; nil outside a bubble.
  public static var current: TimeBubble? { scope }
  @TaskLocal static var scope: TimeBubble?

  /// Where the bubble was made: its body's task is listed there.
  public let createdAt: CallSite
  /// Where the bubble was made, as messages name it (`file:line`; a test host's test).
  package let origin: String
  /// How long the bubble waits for something outside it (a real thread, a socket) to wake its work
  /// when nothing in it can run and no timer is pending, before it fails as stuck.
  public let stuckLimit: Duration

  let core: BubbleCore
  let clock: VirtualAsyncClock

  /// A bubble on `timeline`, its Dispatch work on schedulers `factory` makes (virtual ones on
  /// `timeline` by default): how a test host records the bubble's work, and explores its orders
  /// (an exploring `timeline`).
  package init(
    timeline: VirtualClock = VirtualClock(), factory: (any SchedulerFactory)? = nil,
    stuckLimit: Duration, callSite: CallSite, origin: String? = nil
  ) throws(TimeBubbleError) {
    self.origin = origin ?? "\(callSite.fileID):\(callSite.line)"
    core = BubbleCore(timeline: timeline, factory: factory, stuckLimit: stuckLimit)
    // The watchdog's "nobody moved the clock" never applies: the bubble moves it itself, and
    // says itself when nothing can.
    clock = VirtualAsyncClock(
      clock: timeline, idleLimit: .seconds(3_600), fileID: callSite.fileID, line: callSite.line,
      function: callSite.function)
    createdAt = callSite
    self.stuckLimit = stuckLimit
    core.router.withLock { $0 = clock.router }
    clock.router.bubble.store(
      UInt(bitPattern: Unmanaged.passUnretained(core).toOpaque()), ordering: .releasing)
    try BubbleSlots.install()
  }

  /// How far the bubble's time has moved since it started.
  public var elapsed: Duration { core.timeline.now }

  /// Suspends the calling task of the bubble until everything else in the bubble waits (on time,
  /// or on something that will not come by itself), without moving time: the bubble's counterpart
  /// of Go's `synctest.Wait`.
  public func waitUntilIdle() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      core.addIdleWaiter(continuation)
    }
  }

  /// Suspends the calling task of the bubble while the bubble's time moves `duration` forward,
  /// running everything that falls due meanwhile (a `Task.sleep` that cannot be cancelled).
  public func advance(by duration: Duration) async {
    let target = core.timeline.now.clampedNanoseconds.adding(
      saturating: max(duration.clampedNanoseconds, 0))
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      _ = core.sleeps.scheduleAt(
        SchedulerInstant(nanoseconds: target),
        from: CallSite(fileID: "Chronoscope/TimeBubble.swift", line: 0, function: "advance(by:)")
      ) { continuation.resume() }
    }
  }

  /// Moves time forward by `duration` from a synchronous body, running what falls due.
  public func advance(by duration: Duration, fileID: StaticString = #fileID, line: UInt = #line) {
    clock.advance(by: duration, fileID: fileID, line: line)
  }

  // MARK: - Running a body

  /// Runs `body` as the bubble's body task until it returns or the bubble is stuck. A stuck body
  /// is cancelled and given ``stuckLimit`` again to end; one that does not (it waits on something
  /// deaf to cancellation) is left suspended for ever — unless `bodyMustEnd` (its closure does not
  /// really escape: a test host's test function), which then ends the process with the message:
  /// returning would free what the suspended body still holds.
  package func run<R: Sendable>(
    bodyMustEnd: Bool = false, _ body: @escaping @Sendable (TimeBubble) async throws -> R
  ) async throws -> R {
    defer { finish() }
    let handle = clock.task(
      name: "time bubble", fileID: createdAt.fileID, line: createdAt.line,
      function: createdAt.function
    ) { [self] in
      try await Self.$scope.withValue(self) { try await body(self) }
    }
    while true {
      clock.drive {}
      if let result = handle.result {
        if let blocked = core.blockingFailure {
          throw TimeBubbleError.blocked(bubble: origin, reason: blocked)
        }
        return try result.get()
      }
      if core.notifyEmptiedGroups() { continue }
      if core.resumeIdleWaiters(in: clock) { continue }
      if let due = core.timeline.nextDue?.clampedNanoseconds {
        var failure: VirtualTimeError?
        clock.drive { failure = core.timeline.move(toNanoseconds: due, maxSteps: 1_000_000) }
        if let failure { throw TimeBubbleError.virtualTime(failure) }
        continue
      }
      // Nothing in the bubble can run and nothing is due: only something outside can wake it.
      if await wokeFromOutside(handle) { continue }
      let stuck = TimeBubbleError.stuck(
        bubble: origin, waiting: waitingDescription(), waitedFor: stuckLimit)
      // Cancelled, the body ends if what it waits on heeds cancellation (a sleep, a stream); it
      // gets as long again to do so. A body that waits on something deaf to it is left waiting.
      _ = handle.cancel()
      let cancelledAt = realNow()
      while !handle.isFinished, realNow() - cancelledAt < stuckLimit {
        clock.drive {}
        if let due = core.timeline.nextDue?.clampedNanoseconds {
          clock.drive { _ = core.timeline.move(toNanoseconds: due, maxSteps: 1_000) }
        } else if !handle.isFinished {
          try? await Task.sleep(for: .milliseconds(1))
        }
      }
      if bodyMustEnd, !handle.isFinished {
        fatalError(
          "\(stuck)\nThe body did not end when cancelled, and the test cannot go on without it.")
      }
      throw stuck
    }
  }

  package func run<R>(_ body: (TimeBubble) throws -> R) throws -> R {
    defer { finish() }
    var result: Result<R, any Error> = .failure(CancellationError())
    clock.drive { result = Result { try Self.$scope.withValue(self) { try body(self) } } }
    if let blocked = core.blockingFailure {
      throw TimeBubbleError.blocked(bubble: origin, reason: blocked)
    }
    return try result.get()
  }

  /// Waits, in real time, up to ``stuckLimit`` for something outside the bubble to make its
  /// work runnable (a real thread resuming a continuation, a socket's answer).
  private func wokeFromOutside<R>(_ handle: VirtualTask<R>) async -> Bool {
    let before = clock.router.pushes.load(ordering: .relaxed)
    let start = realNow()
    while realNow() - start < stuckLimit {
      try? await Task.sleep(for: .milliseconds(1))
      if handle.isFinished || clock.router.pushes.load(ordering: .relaxed) != before
        || core.timeline.nextDue != nil || !clock.router.isEmpty || core.hasIdleWaiters
      {
        return true
      }
    }
    return false
  }

  private func waitingDescription() -> [String] {
    clock.waiting.map {
      $0.hasPrefix("task \"time bubble\"")
        ? "the bubble's body" + $0.dropFirst("task \"time bubble\"".count) : $0
    } + core.waitingDescription()
  }

  /// Ends the bubble: what it still holds — timed work not yet due, timers — goes on in real time,
  /// on the queues it was meant for, as if the bubble had never been.
  private func finish() {
    let outer = chronoscope_slots_set_current(nil)
    defer { chronoscope_slots_set_current(outer) }
    core.close()
    clock.router.bubble.store(0, ordering: .releasing)
  }
}

/// Runs `body` in a new ``TimeBubble`` and returns what it returns, once it has: time in the
/// bubble moves only when nothing in it can run, to the next deadline, so a body that sleeps for
/// an hour returns at once, an hour of virtual time later.
///
/// - Parameters:
///   - stuckLimit: How long, in real time, the bubble waits for something outside it to wake its
///     work when nothing in it can run and no timer is pending; then it cancels the body and throws
///     ``TimeBubbleError/stuck(bubble:waiting:waitedFor:)``. One second by default.
/// - Throws: What `body` throws; ``TimeBubbleError`` when the bubble cannot work here or is stuck.
public func withTimeBubble<R: Sendable>(
  stuckLimit: Duration = .seconds(1),
  fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
  _ body: @escaping @Sendable (TimeBubble) async throws -> R
) async throws -> R {
  let bubble = try TimeBubble(
    stuckLimit: stuckLimit, callSite: CallSite(fileID: fileID, line: line, function: function))
  return try await bubble.run(body)
}

/// Runs a synchronous `body` in a new ``TimeBubble``: Dispatch work and timers it schedules run
/// when it moves time (``TimeBubble/advance(by:fileID:line:)``), and what is due when it returns
/// runs before this returns.
///
/// Named apart from ``withTimeBubble(stuckLimit:fileID:line:function:_:)``: a closure with no
/// `await` in an async test would otherwise pick this one silently.
public func withSynchronousTimeBubble<R>(
  fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
  _ body: (TimeBubble) throws -> R
) throws -> R {
  let bubble = try TimeBubble(
    stuckLimit: .seconds(1), callSite: CallSite(fileID: fileID, line: line, function: function))
  return try bubble.run(body)
}
