import Dispatch

/// The three primitives a live family supplies; ``LiveScheduler`` builds the contract on them.
package protocol LiveExecutor: Sendable {
  /// Runs `block` later, in the family's order.
  func execute(_ block: @escaping @Sendable () -> Void)
  /// Runs `block` on the context and returns when it has finished.
  func executeAndWait(_ block: () -> Void)
  /// Runs `block` at or after `deadline`, without holding a worker thread until then.
  func execute(at deadline: DispatchTime, _ block: @escaping @Sendable () -> Void)
}
