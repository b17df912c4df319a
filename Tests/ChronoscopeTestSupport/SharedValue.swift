import Foundation

/// A value a test shares with a thread it starts (a FIFO's reader, say), under a lock.
public final class SharedValue<Value: Sendable>: @unchecked Sendable {
  // @unchecked Sendable: `value` is only touched under `lock`.
  private let lock = NSLock()
  private var value: Value

  public init(_ value: Value) { self.value = value }

  public func get() -> Value { lock.withLock { value } }

  public func set(_ new: Value) { lock.withLock { value = new } }
}
