import ChronoscopeScheduling

/// Async/await versions of the timing patterns the scheduler examples show, written against any
/// `Clock` so that tests run them on a `VirtualAsyncClock` and apps on `ContinuousClock`.

/// Thrown when an operation takes longer than its limit.
package struct TimedOut: Error, Equatable {
  package init() {}
}

/// Runs `operation`, failing with ``TimedOut`` if it has not finished after `limit` on `clock`:
/// a race of the work and a sleep in a task group, the loser cancelled.
///
/// ```swift
/// let page = try await withTimeout(.seconds(5), clock: ContinuousClock()) { try await api.page() }
/// ```
package func withTimeout<Success: Sendable, C: Clock<Duration>>(
  _ limit: Duration, clock: C, operation: @escaping @Sendable () async throws -> Success
) async throws -> Success {
  try await withThrowingTaskGroup(of: Success.self) { group in
    group.addTask { try await operation() }
    group.addTask {
      try await clock.sleep(for: limit)
      throw TimedOut()
    }
    defer { group.cancelAll() }
    guard let first = try await group.next() else { throw CancellationError() }
    return first
  }
}

/// The "Testing actions over time" timeout example with async/await: one attempt at a time,
/// each with a time limit; starting again cancels the attempt in flight.
package actor AsyncTimeoutService<C: Clock<Duration>> {
  private let clock: C
  private let work: @Sendable () async throws -> String
  private var current: Task<String, any Error>?

  package init(clock: C, work: @escaping @Sendable () async throws -> String) {
    self.clock = clock
    self.work = work
  }

  /// The work's result, or ``TimedOut`` after `timeout`; `CancellationError` if a newer call
  /// replaced this one.
  package func start(timeout: Duration) async throws -> String {
    current?.cancel()
    let clock = self.clock
    let work = self.work
    let attempt = Task { try await withTimeout(timeout, clock: clock, operation: work) }
    current = attempt
    return try await attempt.value
  }
}

/// The elements of `input` that were followed by `quiet` of silence, the others dropped: the
/// classic search-field debounce. Each element cancels the emission waiting for the one before,
/// and starts its own in an unstructured task — as app code usually writes it.
package func debounced<Element: Sendable, C: Clock<Duration>>(
  _ input: AsyncStream<Element>, for quiet: Duration, clock: C
) -> AsyncStream<Element> {
  AsyncStream { output in
    let consumer = Task {
      var pending: Task<Void, Never>?
      for await element in input {
        pending?.cancel()
        pending = Task {
          do {
            try await clock.sleep(for: quiet)
            output.yield(element)
          } catch {}  // cancelled by a newer element
        }
      }
      // The input ended: the last element still goes out after its quiet time.
      await pending?.value
      output.finish()
    }
    output.onTermination = { _ in consumer.cancel() }
  }
}

/// Calls `operation` until it succeeds, at most `attempts` times, waiting `firstDelay`, then
/// twice as long each time, between attempts; rethrows the last failure.
package func retrying<Success: Sendable, C: Clock<Duration>>(
  attempts: Int, firstDelay: Duration, clock: C,
  operation: @Sendable (_ attempt: Int) async throws -> Success
) async throws -> Success {
  var delay = firstDelay
  for attempt in 1..<max(attempts, 1) {
    do {
      return try await operation(attempt)
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      try await clock.sleep(for: delay)
      delay *= 2
    }
  }
  return try await operation(max(attempts, 1))
}

/// One side of an actor ping-pong: hits the ball back after `think` until `rallies` hits in all.
package actor Player<C: Clock<Duration>> {
  package let name: String
  private let clock: C
  private let think: Duration
  /// Weak: two players facing each other would otherwise keep each other, and their clock, alive
  /// for ever (a virtual clock kept alive routes the runtime's jobs until its idle limit).
  private weak var opponent: Player<C>?

  package init(name: String, clock: C, think: Duration) {
    self.name = name
    self.clock = clock
    self.think = think
  }

  package func face(_ opponent: Player<C>) { self.opponent = opponent }

  /// Receives the ball with `remaining` hits left in the rally, and returns every hit made
  /// from here on, in order.
  package func receive(remaining: Int) async throws -> [(name: String, at: C.Instant)] {
    guard remaining > 0, let opponent else { return [] }
    try await clock.sleep(for: think)
    let hit = (name, clock.now)
    return [hit] + (try await opponent.receive(remaining: remaining - 1))
  }
}

/// A search field, end to end with async/await: keystrokes come in, are debounced, and each
/// query that survives is searched with a time limit and retried with backoff against a backend
/// actor whose first answer for "swift" is too slow. Three clocks (of one kind) time the three
/// parts, so a recording shows each as a lane of its own.
package enum AsyncSearchDemo {
  /// The backend: answers after `latency`, except the first "swift" request, which takes 200 ms.
  package actor Backend<C: Clock<Duration>> {
    private let clock: C
    private var slowOnce: Set<String> = ["swift"]

    package init(clock: C) { self.clock = clock }

    package func search(_ query: String) async throws -> String {
      let slow = slowOnce.remove(query) != nil
      try await clock.sleep(for: slow ? .milliseconds(200) : .milliseconds(40))
      return "\(query): \(query.count * 7) results"
    }
  }

  /// Types, debounces and searches; returns what the field showed, in order.
  package static func run<C: Clock<Duration>>(typing: C, debounce: C, search: C) async -> [String] {
    let (keystrokes, field) = AsyncStream.makeStream(of: String.self)
    let type: @Sendable () async throws -> Void = {
      for (pause, text) in [
        (0, "s"), (80, "sw"), (80, "swi"), (80, "swift"), (400, "swiftui"), (60, "swiftu"),
      ] {
        try await typing.sleep(for: .milliseconds(pause))
        field.yield(text)
      }
      try await typing.sleep(for: .milliseconds(300))
      field.finish()
    }
    // Named, so that a recording's task lanes say whose sleeps these are.
    let typist: Task<Void, any Error>
    #if compiler(>=6.2)
      if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
        typist = Task(name: "typist", operation: type)
      } else {
        typist = Task(operation: type)
      }
    #else
      typist = Task(operation: type)
    #endif
    let backend = Backend(clock: search)
    var shown: [String] = []
    for await query in debounced(keystrokes, for: .milliseconds(150), clock: debounce) {
      // Every sleep the search makes — the backend's, the timeout's, the retry's backoff — is
      // named after the query in a recording.
      await WorkContext.with(name: "search \"\(query)\"", ["query": query]) {
        do {
          let answer = try await retrying(attempts: 3, firstDelay: .milliseconds(50), clock: search)
          { _ in
            try await withTimeout(.milliseconds(120), clock: search) {
              try await backend.search(query)
            }
          }
          shown.append(answer)
        } catch {
          shown.append("\(query): failed (\(error))")
        }
      }
    }
    _ = await typist.result
    return shown
  }
}
