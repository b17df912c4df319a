import Foundation

/// A debouncer on `DispatchQueue.main.asyncAfter`: only the last call within `delay` runs.
final class Debouncer: @unchecked Sendable {
  // @unchecked Sendable: `generation` is read and written on the main queue and by the caller of
  // `call`, which the code's users keep on the main queue.
  private let delay: TimeInterval
  private var generation = 0
  private let queue: DispatchQueue

  init(delay: TimeInterval, queue: DispatchQueue = .main) {
    self.delay = delay
    self.queue = queue
  }

  func call(_ action: @escaping @Sendable () -> Void) {
    generation += 1
    let mine = generation
    queue.asyncAfter(deadline: .now() + delay) { [self] in
      guard mine == generation else { return }
      action()
    }
  }
}

/// A cache whose entries live `ttl` seconds by `Date()`.
final class TTLCache: @unchecked Sendable {
  // @unchecked Sendable: used from one task at a time in the tests.
  private var entries: [String: (value: String, stored: Date)] = [:]
  private let ttl: TimeInterval

  init(ttl: TimeInterval) { self.ttl = ttl }

  func store(_ value: String, for key: String) { entries[key] = (value, Date()) }

  func value(for key: String) -> String? {
    guard let entry = entries[key] else { return nil }
    if Date().timeIntervalSince(entry.stored) >= ttl {
      entries[key] = nil
      return nil
    }
    return entry.value
  }
}

/// A poller on a `DispatchSourceTimer`: polls every `interval` on its queue until stopped.
final class Poller: @unchecked Sendable {
  // @unchecked Sendable: `polls` is touched only on `queue`.
  private let timer: DispatchSourceTimer
  private let queue = DispatchQueue(label: "poller")
  private(set) var polls: [TimeInterval] = []
  private let started = ProcessInfo.processInfo.systemUptime

  init(interval: TimeInterval) {
    timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
    timer.setEventHandler { [unowned self] in
      polls.append(ProcessInfo.processInfo.systemUptime - started)
    }
  }

  func start() { timer.resume() }
  func pause() { timer.suspend() }
  func stop() { timer.cancel() }
  func pollsSoFar() -> [TimeInterval] { queue.sync { polls } }
}

/// A heartbeat monitor: the connection is dead when no beat came for `timeout`, raced with
/// `withThrowingTaskGroup` as a `withDeadline` helper would.
struct DeadlineExceeded: Error {}

func withDeadline<T: Sendable>(
  _ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T.self) { group in
    group.addTask { try await operation() }
    group.addTask {
      try await Task.sleep(for: timeout)
      throw DeadlineExceeded()
    }
    defer { group.cancelAll() }
    guard let first = try await group.next() else { throw DeadlineExceeded() }
    return first
  }
}

/// A heartbeat monitor: beats come from a peer task; the connection is declared dead when no beat
/// came for `timeout`, checked every second.
actor HeartbeatMonitor {
  private var lastBeat = ContinuousClock.now
  private(set) var beats = 0

  func beat() {
    beats += 1
    lastBeat = ContinuousClock.now
  }

  /// Returns when the connection is dead: the instant it was declared so.
  func watch(timeout: Duration) async throws -> ContinuousClock.Instant {
    while true {
      try await Task.sleep(for: .seconds(1))
      let now = ContinuousClock.now
      if now - lastBeat > timeout { return now }
    }
  }
}
