/// Something that runs work: now, later, repeatedly, or synchronously, on one execution context.
///
/// Code that needs concurrency asks a ``SchedulerFactory`` for schedulers and never touches
/// `DispatchQueue` or `OperationQueue` directly, so a test can hand it a factory whose schedulers
/// run inline (``ImmediateSchedulerFactory``) or on a simulated clock (the `ChronoscopeVirtualTime` module).
///
/// ```swift
/// let queue = factory.makeSerial(label: "contacts")
/// let task = queue.after(.seconds(2)) { print("two seconds later") }
/// task.cancel()  // it will not run
/// let count = queue.sync { cache.count }
/// ```
///
/// Conformers implement the `schedule…` requirements and ``now``; callers use the conveniences
/// ``async(fileID:line:function:_:)``, ``after(_:fileID:line:function:_:)``,
/// ``at(_:fileID:line:function:_:)``, ``every(_:firstAfter:fileID:line:function:_:)`` and
/// ``sync(fileID:line:function:_:)``, which capture the call site for recordings.
///
/// Every conformer keeps these rules (the contract suite in `Tests/ChronoscopeSchedulingTests` checks them):
/// - A cancelled action that has not started never runs; cancelling a repeating action stops
///   further runs.
/// - Work on a serial scheduler runs one at a time, in the order it was scheduled.
/// - Delayed work never runs before its delay has passed.
/// - A `sync` call made from code already running on the same scheduler runs the block inline
///   instead of deadlocking.
public protocol Scheduler: AnyObject, Sendable {
  /// The name given when the scheduler was made; recordings show it as the lane's name.
  var label: String { get }
  /// Whether work runs one at a time, may overlap, or runs on the main thread.
  var kind: SchedulerKind { get }
  /// The implementation behind the scheduler, for recordings and diagnostics.
  var family: SchedulerFamily { get }
  /// Whether the calling code is running on this scheduler's context right now.
  ///
  /// Use it for assertions in tests and preconditions in apps:
  /// `precondition(stateQueue.isCurrent)`.
  var isCurrent: Bool { get }

  /// Schedules `work` to run as soon as the scheduler allows.
  func scheduleAsync(from callSite: CallSite, _ work: @escaping @Sendable () -> Void)
    -> SchedulerTask
  /// Schedules `work` to run once, no sooner than `delay` after this call.
  func scheduleAfter(
    _ delay: Duration, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask
  /// Schedules `work` to run every `interval`, the first time `firstDelay` after this call,
  /// until the returned task is cancelled.
  func scheduleRepeating(
    every interval: Duration, firstAfter firstDelay: Duration, from callSite: CallSite,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask
  /// The current instant on this scheduler's clock (see ``SchedulerInstant``).
  var now: SchedulerInstant { get }
  /// Schedules `work` to run once, no sooner than `deadline` on this scheduler's clock; a
  /// deadline already passed is due at once.
  func scheduleAt(
    _ deadline: SchedulerInstant, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask
  /// Runs `work` on this scheduler's context, waits for it, and returns its value or rethrows its
  /// error.
  func scheduleSync<T, E: Error>(from callSite: CallSite, _ work: () throws(E) -> T) throws(E) -> T
}

extension Scheduler {
  /// Runs `work` as soon as the scheduler allows and returns a handle that can cancel it.
  ///
  /// - Parameters:
  ///   - fileID: The call site, captured automatically for recordings.
  ///   - line: The call site's line.
  ///   - function: The calling function.
  ///   - work: The action.
  @discardableResult
  public func async(
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    scheduleAsync(from: CallSite(fileID: fileID, line: line, function: function), work)
  }

  /// Runs `work` once, no sooner than `delay` from now.
  ///
  /// ```swift
  /// let retry = scheduler.after(.milliseconds(250)) { connect() }
  /// ```
  ///
  /// On an ``ImmediateScheduler`` the delay is ignored and `work` runs before this returns — so
  /// a timeout set up before the work it guards fires first. Test timeouts on virtual time
  /// (`VirtualSchedulerFactory`), where the test decides when the deadline passes.
  @discardableResult
  public func after(
    _ delay: Duration, fileID: StaticString = #fileID, line: UInt = #line,
    function: StaticString = #function, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    scheduleAfter(delay, from: CallSite(fileID: fileID, line: line, function: function), work)
  }

  /// Runs `work` every `interval` until the returned task is cancelled, the first time one
  /// interval from now, or after `firstDelay` when given (Combine's `schedule(after:interval:)`,
  /// swift-nio's `initialDelay`).
  ///
  /// ```swift
  /// let poll = scheduler.every(.seconds(30), firstAfter: .zero) { refresh() }  // now, then every 30 s
  /// ```
  @discardableResult
  public func every(
    _ interval: Duration, firstAfter firstDelay: Duration? = nil, fileID: StaticString = #fileID,
    line: UInt = #line, function: StaticString = #function,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    scheduleRepeating(
      every: interval, firstAfter: firstDelay ?? interval,
      from: CallSite(fileID: fileID, line: line, function: function), work)
  }

  /// Runs `work` once, no sooner than `deadline` on this scheduler's clock (take it from
  /// ``now``), and returns a handle that can cancel it.
  ///
  /// ```swift
  /// let deadline = scheduler.now + .seconds(5)
  /// scheduler.at(deadline) { giveUp() }
  /// ```
  @discardableResult
  public func at(
    _ deadline: SchedulerInstant, fileID: StaticString = #fileID, line: UInt = #line,
    function: StaticString = #function, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    scheduleAt(deadline, from: CallSite(fileID: fileID, line: line, function: function), work)
  }

  /// Runs `work` on this scheduler, waits for it, and returns its result.
  ///
  /// Called from code already running on this scheduler, the block runs inline rather than
  /// deadlocking.
  public func sync<T, E: Error>(
    fileID: StaticString = #fileID, line: UInt = #line, function: StaticString = #function,
    _ work: () throws(E) -> T
  ) throws(E) -> T {
    try scheduleSync(from: CallSite(fileID: fileID, line: line, function: function), work)
  }
}
