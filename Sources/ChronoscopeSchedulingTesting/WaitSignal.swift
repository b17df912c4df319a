import Foundation
import Synchronization

/// Wakes ``waitUntil(timeout:_:)`` when a ``Locked`` value changes or on ``wakeWaiters()``: the
/// changes a wait can know of at once. (Nothing in the libraries an app links reports to it.)
///
/// The cost of a change while nobody waits is one atomic load.
package final class WaitSignal: Sendable {
  /// The process-wide signal.
  package static let shared = WaitSignal()

  private let waiters = Atomic<Int>(0)
  private let mainThreadWaiters = Atomic<Int>(0)
  // Counts wake-ups while someone waited, guarded by `condition`.
  private let generation = Mutex<UInt64>(0)
  private let condition = SendableCondition()

  /// Reports that something a wait may be waiting for changed; wakes waiting threads and the
  /// main run loop.
  @inline(__always)
  package func changed() {
    guard waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
    wakeAll()
  }

  /// Wakes every waiter.
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

  /// Registers a waiter for the duration of `body`, so changes from then on wake it.
  package func withWaiter<R>(onMainThread: Bool, _ body: () -> R) -> R {
    waiters.add(1, ordering: .sequentiallyConsistent)
    if onMainThread { mainThreadWaiters.add(1, ordering: .sequentiallyConsistent) }
    defer {
      waiters.subtract(1, ordering: .sequentiallyConsistent)
      if onMainThread { mainThreadWaiters.subtract(1, ordering: .sequentiallyConsistent) }
    }
    return body()
  }

  /// The number of wake-ups so far while someone waited.
  package var currentGeneration: UInt64 {
    condition.lock()
    defer { condition.unlock() }
    return generation.withLock { $0 }
  }

  /// Sleeps until a wake-up after `seen` or until `deadline`; returns false on the deadline.
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
