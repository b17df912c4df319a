@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import XCTest

/// The seed articles' scenarios, on virtual time: exact instants, no waiting.
final class SeedScenarioTests: XCTestCase {
  private var clock = VirtualClock()
  private var factory = VirtualSchedulerFactory(clock: VirtualClock())

  override func setUp() {
    clock = VirtualClock()
    factory = VirtualSchedulerFactory(clock: clock)
  }

  override func tearDown() {
    XCTAssertNoThrow(try clock.checkNoPendingWork())
  }

  // MARK: 1. Delays, and work scheduled inside work

  func testActionsRunInDelayOrderAndNestedDelaysAdd() {
    let queue = factory.makeSerial(label: "q")
    let log = Locked<[String]>([])
    queue.after(.seconds(5)) { log.withLock { $0.append("five") } }
    queue.after(.seconds(2)) {
      log.withLock { $0.append("two") }
      queue.after(.seconds(5)) { log.withLock { $0.append("two+five") } }
    }
    clock.travel(
      by: .seconds(2), justBefore: { XCTAssertEqual(log.value, []) },
      justAfter: { XCTAssertEqual(log.value, ["two"]) })
    clock.travel(
      by: .seconds(3), justBefore: { XCTAssertEqual(log.value, ["two"]) },
      justAfter: { XCTAssertEqual(log.value, ["two", "five"]) })
    clock.travel(
      by: .seconds(2), justBefore: { XCTAssertEqual(log.value, ["two", "five"]) },
      justAfter: { XCTAssertEqual(log.value, ["two", "five", "two+five"]) })
    XCTAssertEqual(clock.now, .seconds(7))
  }

  // MARK: 2. RetryUseCase

  func testRetryHappensExactlyAtTheDelay() {
    let retries = Locked<[Duration]>([])
    let useCase = RetryUseCase(delay: .seconds(3), scheduler: factory.makeSerial(label: "retry")) {
      [clock] in retries.withLock { $0.append(clock.now) }
    }
    useCase.failed()
    clock.travel(
      by: .seconds(3), justBefore: { XCTAssertEqual(retries.value, []) },
      justAfter: { XCTAssertEqual(retries.value, [.seconds(3)]) })
    withExtendedLifetime(useCase) {}
  }

  func testRetryDoesNotHappenIfTheUseCaseIsReleasedFirst() {
    let retries = Locked(0)
    var useCase: RetryUseCase? = RetryUseCase(
      delay: .seconds(3), scheduler: factory.makeSerial(label: "retry")
    ) { retries.withLock { $0 += 1 } }
    useCase?.failed()
    clock.advance(by: .seconds(2))
    useCase = nil
    clock.advance(by: .seconds(10))
    XCTAssertEqual(retries.value, 0)
  }

  // MARK: 3. TimeoutService, all five scenarios

  private typealias Outcome = (result: Result<String, any Error>, at: Duration, onService: Bool)

  /// Work that succeeds `duration` after it starts, on the service's context.
  private func work(taking duration: Duration, payload: String = "payload")
    -> TimeoutService.WorkFunction
  {
    { context, done in context.after(duration) { done(.success(payload)) } }
  }

  private func makeService(_ work: @escaping TimeoutService.WorkFunction) -> (
    TimeoutService, any Scheduler
  ) {
    let context = factory.makeSerial(label: "timeout-service")
    return (TimeoutService(context: context, work: work), context)
  }

  private func recordOutcome(into outcomes: Locked<[Outcome]>, context: any Scheduler)
    -> TimeoutService.ResultHandler
  {
    { [clock] result in
      outcomes.withLock { $0.append((result, clock.now, clock.currentScheduler === context)) }
    }
  }

  func testTimeoutServiceWorkFinishingFirstSucceeds() throws {
    let (service, context) = makeService(work(taking: .seconds(1)))
    let outcomes = Locked<[Outcome]>([])
    service.start(timeout: .seconds(2), handler: recordOutcome(into: outcomes, context: context))
    try clock.run()
    XCTAssertEqual(outcomes.value.count, 1)
    XCTAssertEqual(try outcomes.value.first?.result.get(), "payload")
    XCTAssertEqual(outcomes.value.first?.at, .seconds(1))
    XCTAssertEqual(outcomes.value.first?.onService, true)
    withExtendedLifetime(service) {}
  }

  func testTimeoutServiceTimeoutFirstDeliversTimeoutAtExactlyTheTimeout() throws {
    let (service, context) = makeService(work(taking: .seconds(5)))
    let outcomes = Locked<[Outcome]>([])
    service.start(timeout: .seconds(2), handler: recordOutcome(into: outcomes, context: context))
    clock.travel(
      by: .seconds(2), justBefore: { XCTAssertTrue(outcomes.value.isEmpty) },
      justAfter: { XCTAssertEqual(outcomes.value.count, 1) })
    try clock.run()
    XCTAssertEqual(outcomes.value.count, 1, "the late work result is dropped")
    let outcome = try XCTUnwrap(outcomes.value.first)
    XCTAssertThrowsError(try outcome.result.get()) { error in
      XCTAssertEqual(error as? TimeoutService.Timeout, TimeoutService.Timeout())
    }
    XCTAssertEqual(outcome.at, .seconds(2))
    XCTAssertTrue(outcome.onService, "delivered on the service's context")
    withExtendedLifetime(service) {}
  }

  func testTimeoutServiceReleasedBeforeEitherNeverCallsTheHandler() throws {
    var (service, context): (TimeoutService?, any Scheduler) = makeService(
      work(taking: .seconds(2)))
    let outcomes = Locked<[Outcome]>([])
    service?.start(timeout: .seconds(1), handler: recordOutcome(into: outcomes, context: context))
    clock.advance(by: .milliseconds(500))
    service = nil
    try clock.run()
    XCTAssertTrue(outcomes.value.isEmpty)
  }

  func testTimeoutServiceStartingAgainAfterCompletionRunsNewWork() throws {
    let runs = Locked(0)
    let (service, context) = makeService { context, done in
      let run = runs.withLock { runs in
        runs += 1
        return runs
      }
      return context.after(.seconds(1)) { done(.success("run \(run)")) }
    }
    let outcomes = Locked<[Outcome]>([])
    service.start(timeout: .seconds(2), handler: recordOutcome(into: outcomes, context: context))
    try clock.run()
    service.start(timeout: .seconds(2), handler: recordOutcome(into: outcomes, context: context))
    try clock.run()
    XCTAssertEqual(try outcomes.value.map { try $0.result.get() }, ["run 1", "run 2"])
    XCTAssertEqual(outcomes.value.map(\.at), [.seconds(1), .seconds(2)])
  }

  func testTimeoutServiceStartingAgainWhileInFlightCancelsThePreviousWork() throws {
    let started = Locked<[String]>([])
    let (service, context) = makeService { context, done in
      let name = started.withLock { started in
        started.append("work \(started.count + 1)")
        return started.last ?? ""
      }
      return context.after(.seconds(2)) { done(.success(name)) }
    }
    let outcomes = Locked<[Outcome]>([])
    service.start(timeout: .seconds(5), handler: recordOutcome(into: outcomes, context: context))
    clock.advance(by: .seconds(1))
    service.start(timeout: .seconds(5), handler: recordOutcome(into: outcomes, context: context))
    try clock.run()
    XCTAssertEqual(started.value, ["work 1", "work 2"])
    XCTAssertEqual(outcomes.value.count, 1, "only the newer attempt reports")
    XCTAssertEqual(try outcomes.value.first?.result.get(), "work 2")
    XCTAssertEqual(outcomes.value.first?.at, .seconds(3))
  }

  // MARK: 4. MessageLoader: background, then main

  func testMessageLoaderCompletesOnTheMainVirtualContextWithoutDeadlock() throws {
    let loader = MessageLoader(factory: factory) { ["hello"] }
    let delivered = Locked<(messages: [String], onMain: Bool)?>(nil)
    let main = factory.main
    loader.load { [clock] messages in
      delivered.withLock { $0 = (messages, clock.currentScheduler === main && main.isCurrent) }
    }
    XCTAssertNil(delivered.value, "nothing runs before time moves")
    try clock.run()
    XCTAssertEqual(delivered.value?.messages, ["hello"])
    XCTAssertEqual(delivered.value?.onMain, true)
  }
}
