import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import Testing
import XCTest

/// The scope a work name and its values live in: nested scopes add up, tasks inherit them, and a
/// per-call name lasts for that call alone.
final class WorkContextTests: XCTestCase {
  func testNestedScopesAddValuesAndTheInnerNameWins() {
    XCTAssertNil(WorkContext.current)
    WorkContext.with(name: "request", ["id": "42", "user": "a"]) {
      XCTAssertEqual(
        WorkContext.current, WorkContext(name: "request", values: ["id": "42", "user": "a"]))
      WorkContext.with(name: "search", ["user": "b", "query": "swift"]) {
        XCTAssertEqual(
          WorkContext.current,
          WorkContext(name: "search", values: ["id": "42", "user": "b", "query": "swift"]))
      }
      WorkContext.with(["page": "2"]) {
        XCTAssertEqual(WorkContext.current?.name, "request", "no name given: the outer one stays")
      }
    }
    XCTAssertNil(WorkContext.current, "gone after the scope")
  }

  func testAPerCallNameIsCurrentOnlyWhileTheCallSchedules() {
    let seen = Locked<[WorkContext?]>([])
    let scheduler = ProbeScheduler { seen.withLock { $0.append(WorkContext.current) } }
    scheduler.async(name: "load", ["id": "7"]) {}
    scheduler.after(.seconds(1), name: "retry") {}
    scheduler.every(.seconds(1), name: "poll") {}
    scheduler.at(scheduler.now, name: "deadline") {}
    scheduler.sync(name: "read") {}
    scheduler.async {}
    XCTAssertEqual(
      seen.value,
      [
        WorkContext(name: "load", values: ["id": "7"]), WorkContext(name: "retry"),
        WorkContext(name: "poll"), WorkContext(name: "deadline"), WorkContext(name: "read"), nil,
      ])
    XCTAssertNil(WorkContext.current)
  }

  func testATaskStartedInAScopeInheritsIt() async {
    let inherited = await WorkContext.with(name: "request", ["id": "1"]) {
      await Task { WorkContext.current }.value
    }
    XCTAssertEqual(inherited, WorkContext(name: "request", values: ["id": "1"]))
    let detached = await WorkContext.with(name: "request") {
      await Task.detached { WorkContext.current }.value
    }
    XCTAssertNil(detached, "a detached task starts with no task-locals")
  }
}

/// The same scope under Swift Testing, whose tests run in parallel: each test's scope is its own.
@Suite struct WorkContextParallelTests {
  @Test(arguments: 0..<8) func eachParallelTestSeesOnlyItsOwnScope(_ index: Int) async {
    await WorkContext.with(name: "test \(index)") {
      await Task.yield()
      #expect(WorkContext.current?.name == "test \(index)")
    }
    #expect(WorkContext.current == nil)
  }
}

/// A scheduler that runs nothing and reports each scheduling call.
private final class ProbeScheduler: Scheduler {
  let label = "probe"
  let kind = SchedulerKind.serial
  let family = SchedulerFamily.immediate
  let isCurrent = false
  let now = SchedulerInstant(nanoseconds: 0)
  private let onSchedule: @Sendable () -> Void

  init(onSchedule: @escaping @Sendable () -> Void) { self.onSchedule = onSchedule }

  func scheduleAsync(from callSite: CallSite, _ work: @escaping @Sendable () -> Void)
    -> SchedulerTask
  {
    onSchedule()
    return SchedulerTask()
  }

  func scheduleAfter(
    _ delay: Duration, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask { scheduleAsync(from: callSite, work) }

  func scheduleRepeating(
    every interval: Duration, firstAfter firstDelay: Duration, from callSite: CallSite,
    _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask { scheduleAsync(from: callSite, work) }

  func scheduleAt(
    _ deadline: SchedulerInstant, from callSite: CallSite, _ work: @escaping @Sendable () -> Void
  ) -> SchedulerTask { scheduleAsync(from: callSite, work) }

  func scheduleSync<T, E: Error>(from callSite: CallSite, _ work: () throws(E) -> T) throws(E) -> T
  {
    onSchedule()
    return try work()
  }
}
