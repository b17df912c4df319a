@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeSchedulingTesting
import ChronoscopeVirtualTime
import Foundation

/// The bodies of the recordable examples. Live ones run on real queues and wait for their work
/// with `waitUntil` (keeping the main queue serviced); the virtual one drives its clock.
enum ExampleRuns {
  static func retry(factory: any SchedulerFactory) throws {
    let retries = Locked(0)
    let useCase = RetryUseCase(
      delay: .milliseconds(30), scheduler: factory.makeSerial(label: "retry")
    ) {
      retries.withLock { $0 += 1 }
    }
    useCase.failed()
    try waitForExample("retry") { retries.value == 1 }
    useCase.failed()
    try waitForExample("retry") { retries.value == 2 }
  }

  static func contactLoader(factory: any SchedulerFactory) throws {
    let loader = ContactLoader(factory: factory) {
      ["Grace", "Ada", "Edsger", "Barbara"].map(Contact.init(name:))
    }
    let loads = Locked(0)
    for _ in 0..<3 {
      loader.loadContacts { _ in loads.withLock { $0 += 1 } }
    }
    try waitForExample("contact-loader") { loads.value == 3 }
  }

  static func messageLoader(factory: any SchedulerFactory) throws {
    let loader = MessageLoader(factory: factory) { ["Hello", "How are you?"] }
    let delivered = Locked(0)
    loader.load { _ in delivered.withLock { $0 += 1 } }
    loader.load { _ in delivered.withLock { $0 += 1 } }
    try waitForExample("message-loader") { delivered.value == 2 }
  }

  /// The busy app on live queues; its bursts are marked in the trace.
  static func busyApp(factory: any SchedulerFactory, recorder: TraceRecorder) throws {
    try BusyApp(factory: factory, mark: recorder.mark).runLive()
  }

  /// The TimeoutService scenarios, driven on a virtual clock.
  static func virtualTimeout(
    factory: any SchedulerFactory, clock: VirtualClock, recorder: TraceRecorder
  ) throws {
    try TimeoutService.scenarios(
      factory: factory, mark: { recorder.mark($0) }, advance: { clock.advance(by: $0) },
      settle: { try clock.run() })
  }

  /// The busy app on a virtual clock, for tests that need the same trace every time. The
  /// clock's seeded jitter makes timers drift late. Everything runs on the thread driving the
  /// clock, so there are no hops.
  static func busyAppVirtual(
    factory: any SchedulerFactory, clock: VirtualClock, recorder: TraceRecorder
  ) {
    BusyApp(factory: factory, mark: recorder.mark).runOnVirtualTime { step in
      clock.advance(by: step)
      // Flush as time goes, so no thread buffer ever fills: a drop would change the file.
      recorder.flush()
    }
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
    try waitForExample("async-search") { done.value != nil }
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
    try waitForExample("async-actors") { hits.value != nil }
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
    try waitForExample("findings-demo") { finished.value }
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
