import ChronoscopeScheduling
import Synchronization

/// A value guarded by a lock, for sharing state between scheduled actions and a test.
///
/// ```swift
/// let received = Locked<[Contact]?>(nil)
/// loader.loadContacts { contacts in received.withLock { $0 = contacts } }
/// XCTAssertEqual(received.value?.count, 3)
/// ```
public final class Locked<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>

  /// Makes a locked value.
  public init(_ value: Value) { mutex = Mutex(value) }

  /// Runs `body` with the lock held, giving it the value to read or change; then makes every
  /// ``waitUntil(timeout:_:)`` in progress check its condition again, so a wait on a locked value
  /// ends as soon as it changes — from async code or a plain thread as from a scheduled action.
  /// (Not from a wait's own condition, which would wake itself for ever; while nobody waits this
  /// costs one atomic load.)
  public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
    defer { if !ConditionCheck.isRunning { WaitSignal.shared.changed() } }
    return try mutex.withLock { (value: inout Value) throws(E) -> R in try body(&value) }
  }

  /// A copy of the value, read under the lock.
  public var value: Value { mutex.withLock { $0 } }
}
