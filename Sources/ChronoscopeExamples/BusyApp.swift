import ChronoscopeScheduling
import ChronoscopeSchedulingTesting

/// A small app that keeps several queues busy, for recordings and demos: a database queue, a
/// network pool, a cache, main; a heartbeat and a poller; bursts of requests, each with a
/// ``TimeoutService`` timeout, some abandoned (cancelled) by the user, some timing out.
///
/// ```swift
/// let app = BusyApp(factory: DispatchSchedulerFactory())
/// try app.runLive()                                  // about two seconds of real work
/// ```
package struct BusyApp: Sendable {
  /// Records a mark with fields, where the host records (a trace recorder's `mark`), or nothing.
  package typealias Mark = @Sendable (_ name: String, _ fields: [String: String]) -> Void

  private let factory: any SchedulerFactory
  private let mark: Mark

  /// - Parameters:
  ///   - factory: Where the app's queues come from.
  ///   - mark: Called at the start of each burst of requests and when they are done.
  package init(factory: any SchedulerFactory, mark: @escaping Mark = { _, _ in }) {
    self.factory = factory
    self.mark = mark
  }

  /// Runs 100 requests on live queues with random latencies, waiting for them as they go.
  package func runLive() throws(ExampleTimedOut) {
    let database = factory.makeSerial(label: "app.database")
    let network = factory.makeConcurrent(label: "app.network")
    let cache = factory.makeSerial(label: "app.cache")
    let main = factory.main
    let completed = Locked(0)
    let heartbeats = Locked(0)
    let heartbeat = main.every(.milliseconds(40)) { heartbeats.withLock { $0 += 1 } }
    let poller = cache.every(.milliseconds(90)) {
      database.async { _ = (0..<200).reduce(0, +) }
    }
    let requests = 100
    var services: [TimeoutService] = []
    var generator = SystemRandomNumberGenerator()
    for request in 0..<requests {
      if request % 25 == 0 { mark("burst", ["first": String(request)]) }
      let latency = Duration.milliseconds(Int.random(in: 1...60, using: &generator))
      // Each request is named: what it schedules, on any queue, carries the name on.
      let service = WorkContext.with(name: "request \(request)") {
        startRequest(
          request, latency: latency, on: (network, database, cache, main), completed: completed)
      }
      services.append(service)
      try waitForExample("busy-app") { completed.value >= request / 2 }
      if request % 10 == 0 {
        let pause = Locked(false)
        main.after(.milliseconds(5)) { pause.withLock { $0 = true } }
        try waitForExample("busy-app") { pause.value }
      }
    }
    try waitForExample("busy-app") { completed.value >= requests }
    heartbeat.cancel()
    poller.cancel()
    let settled = Locked(false)
    database.after(.milliseconds(50)) { settled.withLock { $0 = true } }
    try waitForExample("busy-app") { settled.value }
    withExtendedLifetime(services) {}
  }

  /// The same shape on a clock the caller moves, the same way on every run: 40 requests every
  /// 25 ms with latencies fixed by their number, one long-labelled queue that syncs in the
  /// background, and one piece of work scheduled and never run nor cancelled (lost work).
  /// `advance` moves the clock by a step and is called 13 times (1.3 s of its time).
  package func runOnVirtualTime(advance: (Duration) -> Void) {
    let database = factory.makeSerial(label: "app.database")
    let network = factory.makeConcurrent(label: "app.network")
    let cache = factory.makeSerial(label: "app.cache")
    let backgroundSync = factory.makeSerial(
      label: "com.example.app.background-sync.very-long-queue-label")
    let main = factory.main
    let completed = Locked(0)
    let services = Locked<[TimeoutService]>([])
    let heartbeat = main.every(.milliseconds(40)) {}
    let poller = cache.every(.milliseconds(90)) {
      database.async { _ = (0..<200).reduce(0, +) }
    }
    let syncing = backgroundSync.every(.milliseconds(250)) {
      let rows = database.sync { 42 }
      cache.async { _ = rows }
    }
    let app = self
    let mark = self.mark
    for request in 0..<40 {
      // Requests arrive every 25 ms; their latency (1…60 ms) is fixed by their number. Each is
      // named: what it schedules, on any queue, carries the name on.
      main.after(.milliseconds(25 * request), name: "request \(request)") {
        if request % 10 == 0 { mark("burst", ["first": String(request), "size": "10"]) }
        let latency = Duration.milliseconds((request * 37) % 60 + 1)
        let service = app.startRequest(
          request, latency: latency, on: (network, database, cache, main), completed: completed)
        services.withLock { $0.append(service) }
      }
    }
    for _ in 0..<12 { advance(.milliseconds(100)) }
    mark("requests done", ["completed": String(completed.value)])
    heartbeat.cancel()
    poller.cancel()
    syncing.cancel()
    // Lost work: scheduled for an hour from now, never run, never cancelled.
    backgroundSync.after(.seconds(3600)) { _ = completed.value }
    advance(.milliseconds(100))
    withExtendedLifetime(services) {}
  }

  /// Starts request `number` with a 45 ms timeout: after `latency` on the network pool it reads
  /// a row with a `sync` onto the database, touches the cache and answers on its own queue, one
  /// of five; every seventh the user starts again (cancelling the one in flight). Its end counts
  /// on main.
  private func startRequest(
    _ number: Int, latency: Duration,
    on queues: (
      network: any Scheduler, database: any Scheduler, cache: any Scheduler,
      main: any Scheduler
    ),
    completed: Locked<Int>
  ) -> TimeoutService {
    let service = TimeoutService(context: factory.makeSerial(label: "app.request.\(number % 5)")) {
      context, done in
      queues.network.after(latency) {
        let payload = queues.database.sync { "row \(number)" }
        queues.cache.async { _ = payload.count }
        context.async { done(.success(payload)) }
      }
    }
    let finish: TimeoutService.ResultHandler = { _ in
      queues.main.async { completed.withLock { $0 += 1 } }
    }
    service.start(timeout: .milliseconds(45), handler: finish)
    if number % 7 == 3 {
      // The user gives up: starting again cancels the request in flight.
      service.start(timeout: .milliseconds(45), handler: finish)
    }
    return service
  }
}
