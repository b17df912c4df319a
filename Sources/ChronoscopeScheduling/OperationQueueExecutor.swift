import Dispatch
import Foundation

/// Runs work as operations on an `OperationQueue`; a delay waits on a Dispatch timer, not on a
/// worker, and only then adds the operation.
struct OperationQueueExecutor: LiveExecutor {
  let queue: OperationQueue

  func execute(_ block: @escaping @Sendable () -> Void) {
    queue.addOperation(block)
  }

  func executeAndWait(_ block: () -> Void) {
    withoutActuallyEscaping(block) { block in
      // The queue keeps the operation (and so its closure) a little after it finishes; the box
      // drops the borrowed block as soon as it has run, so nothing outlives this call.
      let box = BorrowedBlock(block)
      queue.addOperations([BlockOperation { box.runOnce() }], waitUntilFinished: true)
    }
  }

  func execute(at deadline: DispatchTime, _ block: @escaping @Sendable () -> Void) {
    let queue = self.queue
    DispatchQueue.global().asyncAfter(deadline: deadline) { queue.addOperation(block) }
  }
}

// @unchecked Sendable: `block` is written by the waiting caller before the operation is queued
// and cleared by the one operation that runs it; `addOperations(_:waitUntilFinished:)` orders the
// two.
private final class BorrowedBlock: @unchecked Sendable {
  private var block: (() -> Void)?
  init(_ block: @escaping () -> Void) { self.block = block }
  func runOnce() {
    block?()
    block = nil
  }
}
