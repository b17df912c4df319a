import Scheduling
import Synchronization
import TraceFormat

/// One thread's events on their way to the writer, plus the actions running on that thread.
///
/// The owning thread appends under `storage`'s lock, which only the writer ever contends for,
/// briefly, when it swaps the array out. When the array is full the event is dropped and counted.
final class ThreadBuffer: Sendable {
  struct Storage {
    var events: [RawEvent] = []
    var dropped: Int64 = 0
  }

  let threadID: UInt32
  let threadName: String
  let capacity: Int
  let storage: Mutex<Storage>
  private let onHalfFull: @Sendable () -> Void
  // Only the owning thread reads or writes this: actions are pushed and popped around their
  // runs on that thread.
  nonisolated(unsafe) var running: [UInt32] = []

  init(
    threadID: UInt32, threadName: String, capacity: Int, onHalfFull: @escaping @Sendable () -> Void
  ) {
    self.threadID = threadID
    self.threadName = threadName
    self.capacity = capacity
    self.onHalfFull = onHalfFull
    var storage = Storage()
    storage.events.reserveCapacity(min(capacity, 4096))
    self.storage = Mutex(storage)
  }

  /// The action running on this thread now, or 0.
  var currentAction: UInt32 { running.last ?? 0 }

  @inline(__always)
  func append(_ event: TraceEvent, callSite: CallSite? = nil) {
    let capacity = self.capacity
    let count = storage.withLock { storage in
      if storage.events.count < capacity {
        storage.events.append(RawEvent(event: event, callSite: callSite))
      } else {
        storage.dropped += 1
      }
      return storage.events.count
    }
    if count == capacity / 2 { onHalfFull() }
  }

  /// Hands the buffered events to the writer in exchange for `spare` (an empty array with
  /// capacity), and returns how many were dropped since the last call.
  func take(into spare: inout [RawEvent]) -> Int64 {
    storage.withLock { storage in
      swap(&storage.events, &spare)
      defer { storage.dropped = 0 }
      return storage.dropped
    }
  }
}
