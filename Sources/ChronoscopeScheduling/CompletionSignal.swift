import Foundation
import Synchronization

/// Wakes ``waitUntil(timeout:_:)`` whenever a live scheduler finishes an action.
///
/// The cost for a finished action while nobody waits is one atomic load.
package final class CompletionSignal: Sendable {
  /// The process-wide signal every live family reports to.
  package static let shared = CompletionSignal()

  private let waiters = Atomic<Int>(0)
  private let mainThreadWaiters = Atomic<Int>(0)
  // Counts completions seen while someone waited, guarded by `condition`.
  private let generation = Mutex<UInt64>(0)
  private let condition = SendableCondition()

  /// Reports that an action finished; wakes waiting threads and the main run loop.
  @inline(__always)
  package func actionCompleted() {
    guard waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
    wakeAll()
  }

  /// Wakes waiters without an action having finished, for state changes made outside a
  /// scheduler (a test thread flipping a flag, say).
  package func wakeAll() {
    condition.lock()
    generation.withLock { $0 &+= 1 }
    condition.broadcast()
    condition.unlock()
    if mainThreadWaiters.load(ordering: .sequentiallyConsistent) > 0 {
      // The main thread sleeps in its run loop; an empty block on the main queue wakes it.
      DispatchQueue.main.async {}
    }
  }

  /// Registers a waiter for the duration of `body`, so completions from then on wake it.
  package func withWaiter<R>(onMainThread: Bool, _ body: () -> R) -> R {
    waiters.add(1, ordering: .sequentiallyConsistent)
    if onMainThread { mainThreadWaiters.add(1, ordering: .sequentiallyConsistent) }
    defer {
      waiters.subtract(1, ordering: .sequentiallyConsistent)
      if onMainThread { mainThreadWaiters.subtract(1, ordering: .sequentiallyConsistent) }
    }
    return body()
  }

  /// The number of completions seen so far while someone waited.
  package var currentGeneration: UInt64 {
    condition.lock()
    defer { condition.unlock() }
    return generation.withLock { $0 }
  }

  /// Sleeps until a completion after `seen` or until `deadline`; returns false on the deadline.
  package func wait(after seen: UInt64, until deadline: Date) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while generation.withLock({ $0 }) == seen {
      if !condition.wait(until: deadline) { return false }
    }
    return true
  }
}

// @unchecked Sendable: NSCondition is a thread-safe lock; the wrapper only hides that Foundation
// on some platforms does not declare it Sendable.
private final class SendableCondition: @unchecked Sendable {
  private let condition = NSCondition()
  func lock() { condition.lock() }
  func unlock() { condition.unlock() }
  func broadcast() { condition.broadcast() }
  func wait(until date: Date) -> Bool { condition.wait(until: date) }
}
