import Examples
import Foundation
import Recording
import Scheduling
import VirtualTime

/// The bodies of the recordable examples. Live ones run on real queues and wait for their work
/// with `waitUntil` (keeping the main queue serviced); the virtual one drives its clock.
enum ExampleRuns {
  private static func wait(_ example: String, _ condition: () -> Bool) throws {
    guard waitUntil(timeout: .seconds(30), condition) == .satisfied else {
      throw ExampleTimedOut(example: example)
    }
  }

  /// Work on the service's context that succeeds after `duration`.
  private static func work(taking duration: Duration) -> TimeoutService.WorkFunction {
    { context, done in context.after(duration) { done(.success("payload")) } }
  }

  static func timeout(factory: any SchedulerFactory, work duration: Duration, timeout: Duration)
    throws
  {
    let service = TimeoutService(
      context: factory.makeSerial(label: "timeout-service"), work: work(taking: duration))
    let outcome = Locked<String?>(nil)
    service.start(timeout: timeout) { result in
      outcome.withLock { $0 = (try? result.get()) ?? "timeout" }
    }
    try wait("timeout") { outcome.value != nil }
    // Let the losing side's cancellation settle before the trace closes.
    let settled = Locked(false)
    factory.makeSerial(label: "settle").after(.milliseconds(20)) { settled.withLock { $0 = true } }
    try wait("timeout") { settled.value }
    withExtendedLifetime(service) {}
  }

  static func retry(factory: any SchedulerFactory) throws {
    let retries = Locked(0)
    let useCase = RetryUseCase(
      delay: .milliseconds(30), scheduler: factory.makeSerial(label: "retry")
    ) {
      retries.withLock { $0 += 1 }
    }
    useCase.failed()
    try wait("retry") { retries.value == 1 }
    useCase.failed()
    try wait("retry") { retries.value == 2 }
  }

  static func contactLoader(factory: any SchedulerFactory) throws {
    let loader = ContactLoader(factory: factory) {
      ["Grace", "Ada", "Edsger", "Barbara"].map(Contact.init(name:))
    }
    let loads = Locked(0)
    for _ in 0..<3 {
      loader.loadContacts { _ in loads.withLock { $0 += 1 } }
    }
    try wait("contact-loader") { loads.value == 3 }
  }

  static func messageLoader(factory: any SchedulerFactory) throws {
    let loader = MessageLoader(factory: factory) { ["Hello", "How are you?"] }
    let delivered = Locked(0)
    loader.load { _ in delivered.withLock { $0 += 1 } }
    loader.load { _ in delivered.withLock { $0 += 1 } }
    try wait("message-loader") { delivered.value == 2 }
  }

  /// A small app: a database queue, a network pool, a cache, main; a heartbeat and a poller;
  /// bursts of requests, each with a timeout, some abandoned (cancelled) by the user.
  static func busyApp(factory: any SchedulerFactory, recorder: TraceRecorder) throws {
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
      if request % 25 == 0 { recorder.mark("burst", ["first": String(request)]) }
      let latency = Duration.milliseconds(Int.random(in: 1...60, using: &generator))
      let service = TimeoutService(context: factory.makeSerial(label: "app.request.\(request % 5)"))
      {
        context, done in
        network.after(latency) {
          let payload = database.sync { "row \(request)" }
          cache.async { _ = payload.count }
          context.async { done(.success(payload)) }
        }
      }
      let finish: TimeoutService.ResultHandler = { _ in
        main.async { completed.withLock { $0 += 1 } }
      }
      // Each request is named: what it schedules, on any queue, carries the name on.
      WorkContext.with(name: "request \(request)") {
        service.start(timeout: .milliseconds(45), handler: finish)
        if request % 7 == 3 {
          // The user gives up: starting again cancels the request in flight.
          service.start(timeout: .milliseconds(45), handler: finish)
        }
      }
      services.append(service)
      try wait("busy-app") { completed.value >= request / 2 }
      if request % 10 == 0 {
        let pause = Locked(false)
        main.after(.milliseconds(5)) { pause.withLock { $0 = true } }
        try wait("busy-app") { pause.value }
      }
    }
    try wait("busy-app") { completed.value >= requests }
    heartbeat.cancel()
    poller.cancel()
    let settled = Locked(false)
    database.after(.milliseconds(50)) { settled.withLock { $0 = true } }
    try wait("busy-app") { settled.value }
    withExtendedLifetime(services) {}
  }

  /// The TimeoutService scenarios, driven on a virtual clock.
  static func virtualTimeout(
    factory: any SchedulerFactory, clock: VirtualClock, recorder: TraceRecorder
  ) throws {
    let context = factory.makeSerial(label: "timeout-service")
    let results = Locked<[String]>([])
    let handler: TimeoutService.ResultHandler = { result in
      results.withLock { $0.append((try? result.get()) ?? "timeout") }
    }
    recorder.mark("work finishes first")
    var service: TimeoutService? = TimeoutService(context: context, work: work(taking: .seconds(1)))
    service?.start(timeout: .seconds(2), handler: handler)
    try clock.run()
    recorder.mark("timeout fires first")
    service = TimeoutService(context: context, work: work(taking: .seconds(5)))
    service?.start(timeout: .seconds(2), handler: handler)
    try clock.run()
    recorder.mark("released before either")
    service?.start(timeout: .seconds(2), handler: handler)
    clock.advance(by: .milliseconds(500))
    service = nil
    try clock.run()
    recorder.mark("started again while in flight")
    service = TimeoutService(context: context, work: work(taking: .seconds(2)))
    service?.start(timeout: .seconds(5), handler: handler)
    clock.advance(by: .seconds(1))
    service?.start(timeout: .seconds(5), handler: handler)
    try clock.run()
    withExtendedLifetime(service) {}
  }

  /// The busy app's shape on a virtual clock, for tests that need the same trace every time:
  /// main, serial and concurrent queues, repeating timers, requests with timeouts (some
  /// abandoned, some timing out), sync calls and marks with fields. The clock's seeded jitter
  /// makes timers drift late; one long-labelled queue syncs in the background; and one piece of
  /// work is scheduled and never run nor cancelled (lost work). Everything runs on the thread
  /// driving the clock, so there are no hops.
  static func busyAppVirtual(
    factory: any SchedulerFactory, clock: VirtualClock, recorder: TraceRecorder
  ) {
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
    let requests = 40
    for request in 0..<requests {
      // Requests arrive every 25 ms; their latency (1…60 ms) is fixed by their number. Each is
      // named: what it schedules, on any queue, carries the name on.
      main.after(.milliseconds(25 * request), name: "request \(request)") {
        if request % 10 == 0 {
          recorder.mark("burst", ["first": String(request), "size": "10"])
        }
        let latency = Duration.milliseconds((request * 37) % 60 + 1)
        let service = TimeoutService(
          context: factory.makeSerial(label: "app.request.\(request % 5)")
        ) { context, done in
          network.after(latency) {
            let payload = database.sync { "row \(request)" }
            cache.async { _ = payload.count }
            context.async { done(.success(payload)) }
          }
        }
        let finish: TimeoutService.ResultHandler = { _ in
          main.async { completed.withLock { $0 += 1 } }
        }
        service.start(timeout: .milliseconds(45), handler: finish)
        if request % 7 == 3 {
          // The user gives up: starting again cancels the request in flight.
          service.start(timeout: .milliseconds(45), handler: finish)
        }
        services.withLock { $0.append(service) }
      }
    }
    // Flush as time goes, so no thread buffer ever fills: a drop would change the file.
    for _ in 0..<12 {
      clock.advance(by: .milliseconds(100))
      recorder.flush()
    }
    recorder.mark("requests done", ["completed": String(completed.value)])
    heartbeat.cancel()
    poller.cancel()
    syncing.cancel()
    // Lost work: scheduled for an hour from now, never run, never cancelled.
    backgroundSync.after(.seconds(3600)) { _ = completed.value }
    clock.advance(by: .milliseconds(100))
    withExtendedLifetime(services) {}
  }

  /// The async search demo, its three clocks recorded: on `ContinuousClock`, or on a
  /// `VirtualAsyncClock` moved until nothing is pending. Returns the recorder, still open.
  static func asyncSearch(
    virtual: Bool, open: (TraceClock) throws -> TraceRecorder
  ) throws -> TraceRecorder {
    if virtual {
      let clock = VirtualAsyncClock()
      let recorder = try open(.virtual { clock.now.offset })
      let demo = clock.task {
        await AsyncSearchDemo.run(
          typing: RecordingClock(wrapping: clock, recorder: recorder, label: "typing"),
          debounce: RecordingClock(wrapping: clock, recorder: recorder, label: "debounce"),
          search: RecordingClock(wrapping: clock, recorder: recorder, label: "search"))
      }
      try clock.run()
      guard demo.isFinished else { throw ExampleTimedOut(example: "async-search-virtual") }
      return recorder
    }
    let recorder = try open(.host)
    let clock = ContinuousClock()
    let done = Locked<[String]?>(nil)
    Task {
      let shown = await AsyncSearchDemo.run(
        typing: RecordingClock(wrapping: clock, recorder: recorder, label: "typing"),
        debounce: RecordingClock(wrapping: clock, recorder: recorder, label: "debounce"),
        search: RecordingClock(wrapping: clock, recorder: recorder, label: "search"))
      done.withLock { $0 = shown }
    }
    try wait("async-search") { done.value != nil }
    return recorder
  }

  /// Two actors whose jobs are recorded by their executors rally a ball six times, each
  /// thinking on a recorded `ContinuousClock` before it hits back: actor hops between lanes,
  /// thread hops, and sleeps, live.
  static func asyncActors(recorder: TraceRecorder) throws {
    let clock = RecordingClock(wrapping: ContinuousClock(), recorder: recorder, label: "think")
    let ping = RallyPlayer(name: "ping", think: .milliseconds(30), clock: clock, recorder: recorder)
    let pong = RallyPlayer(name: "pong", think: .milliseconds(45), clock: clock, recorder: recorder)
    let hits = Locked<[String]?>(nil)
    Task.detached {
      await ping.face(pong)
      await pong.face(ping)
      let rally = try await ping.receive(6)
      hits.withLock { $0 = rally }
    }
    try wait("async-actors") { hits.value != nil }
    ping.executor.waitForEnqueuedJobs()
    pong.executor.waitForEnqueuedJobs()
  }

  /// Runs ``FindingsDemo`` on live queues; it closes the recorder from inside its last, long
  /// run, with work due behind it still pending.
  static func findingsDemo(factory: any SchedulerFactory, recorder: TraceRecorder) throws {
    // More fetches than the default thread limit of the machine that records.
    let fanOut = 4 * ProcessInfo.processInfo.activeProcessorCount + 4
    let demo = FindingsDemo(factory: factory, fanOut: fanOut) { duration in
      let seconds =
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
      Thread.sleep(forTimeInterval: seconds)
    }
    let finished = Locked(false)
    demo.run {
      recorder.close()
      finished.withLock { $0 = true }
    }
    try wait("findings-demo") { finished.value }
  }

  /// ``FindingsDemo`` on virtual time: runs take time with `VirtualClock.spend`; the same trace
  /// on every run.
  static func findingsDemoVirtual(
    factory: any SchedulerFactory, clock: VirtualClock, recorder: TraceRecorder
  ) {
    let demo = FindingsDemo(factory: factory) { clock.spend($0) }
    demo.runToEnd(advance: { clock.advance(by: .milliseconds(10)) }) { recorder.close() }
  }
}

/// A player of the `async-actors` example: an actor that opts into a recording executor.
actor RallyPlayer {
  let name: String
  private let think: Duration
  private let clock: RecordingClock<ContinuousClock>
  nonisolated let executor: RecordingSerialExecutor
  private var opponent: RallyPlayer?
  nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

  init(
    name: String, think: Duration, clock: RecordingClock<ContinuousClock>,
    recorder: TraceRecorder
  ) {
    self.name = name
    self.think = think
    self.clock = clock
    executor = RecordingSerialExecutor(label: name, recorder: recorder)
  }

  func face(_ opponent: RallyPlayer) { self.opponent = opponent }

  /// Thinks, hits back, and returns the hits from here to the end of the rally.
  func receive(_ remaining: Int) async throws -> [String] {
    guard remaining > 0, let opponent else { return [] }
    try await clock.sleep(for: think)
    return [name] + (try await opponent.receive(remaining - 1))
  }
}
