import ChronoscopeScheduling

/// A stand-in for a scheduler that the code under test must not use: every use fails the test
/// at the call that scheduled, naming the scheduler, and runs nothing (a `sync` block runs, so
/// that the caller gets its value and the test can go on to its other failures).
///
/// ```swift
/// // The cache must never hop to main: any hop fails the test where it is made.
/// let cache = Cache(factory: .unimplemented)
/// ```
///
/// The failure reaches XCTest when it runs the test (otherwise it is printed to standard error).
public final class UnimplementedScheduler: Scheduler {
  public let label: String
  public let kind: SchedulerKind
  public var family: SchedulerFamily { .unimplemented }
  public var isCurrent: Bool { false }

  /// Makes a stand-in named `label`.
  public init(label: String = "unimplemented", kind: SchedulerKind = .serial) {
    self.label = label
    self.kind = kind
  }

  private func fail(_ what: String, _ callSite: CallSite) {
    TestFailure.report(
      "unimplemented: \(what) on scheduler \"\(label)\" (\(kind)), called from \(callSite)",
      file: callSite.fileID, line: callSite.line)
  }

  public func scheduleAsync(from callSite: CallSite, _ work: @escaping @Sendable () -> Void)
    -> SchedulerTask
  {
    fail("async", callSite)
    return .finished()
  }

  public func scheduleAfter(
    _ delay: Duration, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    fail("after(\(delay))", callSite)
    return .finished()
  }

  public func scheduleRepeating(
    every interval: Duration, firstAfter firstDelay: Duration, from callSite: CallSite,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    fail("every(\(interval))", callSite)
    return .finished()
  }

  /// The host's monotonic time (reading the time is no use of the scheduler).
  public var now: SchedulerInstant { LiveScheduler.hostNow }

  public func scheduleAt(
    _ deadline: SchedulerInstant, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask {
    fail("at(\(deadline))", callSite)
    return .finished()
  }

  public func scheduleSync<T, E: Error>(from callSite: CallSite, _ work: () throws(E) -> T)
    throws(E) -> T
  {
    fail("sync", callSite)
    return try work()
  }
}

/// A stand-in factory whose schedulers are all ``UnimplementedScheduler``s: making them is
/// allowed, using them fails the test.
///
/// ```swift
/// let loader = ContactLoader(factory: .unimplemented)   // loading must not schedule at all
/// ```
public struct UnimplementedSchedulerFactory: SchedulerFactory {
  /// A factory whose schedulers fail the test when used.
  public init() {}

  public func makeSerial(label: String) -> any Scheduler {
    UnimplementedScheduler(label: label, kind: .serial)
  }

  public func makeConcurrent(label: String) -> any Scheduler {
    UnimplementedScheduler(label: label, kind: .concurrent)
  }

  public var main: any Scheduler { UnimplementedScheduler(label: "main", kind: .main) }
}

extension SchedulerFactory where Self == UnimplementedSchedulerFactory {
  /// A factory whose schedulers fail the test when used: `Cache(factory: .unimplemented)`.
  public static var unimplemented: UnimplementedSchedulerFactory { UnimplementedSchedulerFactory() }
}

extension SchedulerFamily {
  /// Stand-ins that fail the test when used.
  public static let unimplemented = SchedulerFamily(rawValue: "unimplemented")
}
