import ChronoscopeScheduling
import ChronoscopeSchedulingTesting

/// An example whose work did not finish before its deadline.
package struct ExampleTimedOut: Error, CustomStringConvertible {
  /// Which example gave up.
  package var example: String
  /// Says that `example` gave up waiting.
  package init(example: String) { self.example = example }
  package var description: String { "example \(example) did not finish within its deadline" }
}

/// Waits (keeping the main queue serviced) until `condition` holds, at most 30 seconds: how the
/// live examples wait for their own work.
package func waitForExample(_ example: String, _ condition: () -> Bool) throws(ExampleTimedOut) {
  guard waitUntil(timeout: .seconds(30), condition) == .satisfied else {
    throw ExampleTimedOut(example: example)
  }
}

extension TimeoutService {
  /// One attempt on live queues: work that succeeds after `work`, against a `timeout`; waits
  /// for the outcome, then for the losing side's cancellation to settle. Returns "payload" or
  /// "timeout".
  package static func runOnce(factory: any SchedulerFactory, work: Duration, timeout: Duration)
    throws(ExampleTimedOut) -> String
  {
    let service = TimeoutService(context: factory.makeSerial(label: "timeout-service")) {
      context, done in context.after(work) { done(.success("payload")) }
    }
    let outcome = Locked<String?>(nil)
    service.start(timeout: timeout) { result in
      outcome.withLock { $0 = (try? result.get()) ?? "timeout" }
    }
    try waitForExample("timeout") { outcome.value != nil }
    let settled = Locked(false)
    factory.makeSerial(label: "settle").after(.milliseconds(20)) { settled.withLock { $0 = true } }
    try waitForExample("timeout") { settled.value }
    withExtendedLifetime(service) {}
    return outcome.value ?? "timeout"
  }

  /// The service's scenarios one after another on one serial context, on a clock the caller
  /// moves: the work finishes first; the timeout fires first; the service is released before
  /// either; it is started again while in flight. `mark` names each scenario as it begins;
  /// `advance` moves the clock by a duration and `settle` runs it until nothing is due.
  package static func scenarios(
    factory: any SchedulerFactory, mark: (String) -> Void, advance: (Duration) -> Void,
    settle: () throws -> Void
  ) rethrows {
    let context = factory.makeSerial(label: "timeout-service")
    let results = Locked<[String]>([])
    let handler: ResultHandler = { result in
      results.withLock { $0.append((try? result.get()) ?? "timeout") }
    }
    func work(taking duration: Duration) -> WorkFunction {
      { context, done in context.after(duration) { done(.success("payload")) } }
    }
    mark("work finishes first")
    var service: TimeoutService? = TimeoutService(context: context, work: work(taking: .seconds(1)))
    service?.start(timeout: .seconds(2), handler: handler)
    try settle()
    mark("timeout fires first")
    service = TimeoutService(context: context, work: work(taking: .seconds(5)))
    service?.start(timeout: .seconds(2), handler: handler)
    try settle()
    mark("released before either")
    service?.start(timeout: .seconds(2), handler: handler)
    advance(.milliseconds(500))
    service = nil
    try settle()
    mark("started again while in flight")
    service = TimeoutService(context: context, work: work(taking: .seconds(2)))
    service?.start(timeout: .seconds(5), handler: handler)
    advance(.seconds(1))
    service?.start(timeout: .seconds(5), handler: handler)
    try settle()
    withExtendedLifetime(service) {}
  }
}
