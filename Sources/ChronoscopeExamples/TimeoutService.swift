import ChronoscopeScheduling
import ChronoscopeSchedulingTesting

/// Runs asynchronous work with a time limit: the "Testing actions over time" article's example.
///
/// Each ``start(timeout:handler:)`` runs the work function and starts a timer on the service's
/// context. Whichever finishes first wins: the handler gets the work's result, or ``Timeout``.
/// Starting again cancels work in flight in favour of the new attempt, and releasing the service
/// cancels everything, so the handler is never called late.
///
/// ```swift
/// let service = TimeoutService(context: factory.makeSerial(label: "service")) { context, done in
///   context.after(.seconds(2)) { done(.success("payload")) }
/// }
/// service.start(timeout: .seconds(1)) { result in … }  // fails with Timeout after one second
/// ```
package final class TimeoutService: Sendable {
  /// The error delivered when the time limit passes first.
  package struct Timeout: Error, Equatable {
    /// Makes the error.
    package init() {}
  }

  /// Receives the outcome of one attempt.
  package typealias ResultHandler = @Sendable (Result<String, any Error>) -> Void
  /// Starts the underlying work on the given context and reports through the handler; returns
  /// the handle that cancels it.
  package typealias WorkFunction =
    @Sendable (any Scheduler, @escaping ResultHandler) -> SchedulerTask

  private let context: any Scheduler
  private let work: WorkFunction
  private let current = Locked<Attempt?>(nil)

  /// Makes a service whose bookkeeping, timer and callbacks all run on `context`, which should
  /// be serial.
  package init(context: any Scheduler, work: @escaping WorkFunction) {
    self.context = context
    self.work = work
  }

  deinit { current.value?.cancel() }

  /// Starts the work with a time limit, cancelling any attempt still in flight.
  package func start(timeout: Duration, handler: @escaping ResultHandler) {
    let context = self.context
    let work = self.work
    let previous = context.sync {
      let attempt = Attempt()
      let workTask = work(context) { [weak attempt] result in
        guard let attempt, attempt.finish() else { return }
        handler(result)
      }
      let timer = context.after(timeout) { [weak attempt] in
        guard let attempt, attempt.finish() else { return }
        handler(.failure(Timeout()))
      }
      attempt.own(workTask, timer)
      return current.withLock { current in
        defer { current = attempt }
        return current
      }
    }
    previous?.cancel()
  }
}

/// One run of the work and its timer; the first to finish cancels the other.
private final class Attempt: Sendable {
  private let state = Locked<(tasks: [SchedulerTask], finished: Bool)>(([], false))

  func own(_ tasks: SchedulerTask...) {
    state.withLock { $0.tasks += tasks }
  }

  /// Marks the attempt finished and cancels what is left; false if it already was.
  func finish() -> Bool {
    let tasks: [SchedulerTask]? = state.withLock { state in
      if state.finished { return nil }
      state.finished = true
      return state.tasks
    }
    tasks?.forEach { $0.cancel() }
    return tasks != nil
  }

  func cancel() { _ = finish() }

  deinit { state.value.tasks.forEach { $0.cancel() } }
}
