import Dispatch

/// Runs work on a `DispatchQueue`; delays use the queue's own timers.
struct DispatchExecutor: LiveExecutor {
  let queue: DispatchQueue

  func execute(_ block: @escaping @Sendable () -> Void) {
    queue.async(execute: block)
  }

  func executeAndWait(_ block: () -> Void) {
    queue.sync(execute: block)
  }

  func execute(at deadline: DispatchTime, _ block: @escaping @Sendable () -> Void) {
    queue.asyncAfter(deadline: deadline, execute: block)
  }
}
