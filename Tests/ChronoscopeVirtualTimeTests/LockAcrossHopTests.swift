import ChronoscopeVirtualTime
import Dispatch
import Foundation
import Synchronization
import XCTest

/// A lock taken before `withUnsafeContinuation` and released inside its closure, as
/// swift-async-algorithms' `merge` does ("safe: the closure runs straight away"). Production
/// never suspends there. The clock once did (the task hopped off the router's identity to the
/// generic executor and waited its turn), so another job, blocking on the lock, stopped the one
/// thread that runs the clock's jobs, for good. Found by field-testing exploration on `merge`.
final class LockAcrossHopTests: XCTestCase {
  /// A pthread mutex, as swift-async-algorithms' `Lock` is on Linux.
  private final class Mutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(mutex, nil) }
    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
  }

  /// Two child tasks: one holds the lock into a continuation's closure, the other takes it.
  private static func lockedIntoAContinuation(_ lock: Mutex) async {
    async let holder: Void = {
      lock.lock()
      await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
        lock.unlock()
        continuation.resume()
      }
    }()
    async let taker: Void = {
      lock.lock()
      lock.unlock()
    }()
    _ = await (holder, taker)
  }

  /// Runs `body` on a thread of its own and waits for it a generous minute: a deadlock fails
  /// the test instead of hanging the suite (the stuck thread is left behind).
  private func finishes(_ what: String, _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread {
      body()
      done.signal()
    }.start()
    XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "\(what) deadlocked")
  }

  func testOnAPlainClock() {
    finishes("a plain clock") {
      for _ in 0..<200 {
        let clock = VirtualAsyncClock()
        let lock = Mutex()
        let task = clock.task { await Self.lockedIntoAContinuation(lock) }
        clock.advance()
        precondition(task.result != nil, "the task finished")
      }
    }
  }

  func testInEveryExploredOrder() {
    finishes("an explored order") {
      for strategy in [Exploration.Strategy.random, .pct(depth: 2)] {
        try? explore(iterations: 300, strategy: strategy) { clock in
          let tasks = VirtualAsyncClock(clock: clock)
          let lock = Mutex()
          let task = tasks.task { await Self.lockedIntoAContinuation(lock) }
          tasks.advance()
          precondition(task.result != nil, "the task finished")
        }
      }
    }
  }
}
