import Scheduling
import Synchronization
import TraceFormat

/// One thread's events on their way to the writer, plus the actions running on that thread.
///
/// The owning thread appends under `storage`'s lock, which only the writer ever contends for,
/// briefly, when it swaps the arrays out. When the buffer is full the event is dropped and
/// counted. Events are the compact 48-byte `TraceEvent`; a schedule's call site goes to a
/// parallel array and the event's `site` holds its index + 1 until the writer interns it.
final class ThreadBuffer: Sendable {
  struct Storage {
    var events: [TraceEvent] = []
    var callSites: [CallSite] = []
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
  // Only the writer touches this, under the recorder's writer lock: last flush's arrays, emptied
  // but keeping their capacity, handed back at the next swap so the buffer does not regrow.
  nonisolated(unsafe) var spare = Storage()

  init(
    threadID: UInt32, threadName: String, capacity: Int,
    reserveIDs: @escaping @Sendable () -> UInt32, onHalfFull: @escaping @Sendable () -> Void
  ) {
    self.reserveIDs = reserveIDs
    self.threadID = threadID
    self.threadName = threadName
    self.capacity = capacity
    self.onHalfFull = onHalfFull
    var storage = Storage()
    storage.events.reserveCapacity(min(capacity, 1 << 14))
    self.storage = Mutex(storage)
  }

  // Action ids this thread may hand out without touching the shared counter: threads take
  // blocks of ids, so recording on several threads never fights over one cache line.
  nonisolated(unsafe) private var nextID: UInt32 = 0
  nonisolated(unsafe) private var lastID: UInt32 = 0
  private let reserveIDs: @Sendable () -> UInt32

  /// A fresh action id. Ids are unique in the trace; across threads they are not in time order.
  @inline(__always)
  func makeActionID() -> UInt32 {
    if nextID == lastID {
      nextID = reserveIDs()
      lastID = nextID &+ Self.idBlock
    }
    nextID &+= 1
    return nextID
  }

  /// How many ids a thread takes at once.
  static let idBlock: UInt32 = 256

  /// The action running on this thread now, or 0.
  var currentAction: UInt32 { running.last ?? 0 }

  /// Appends an event; a schedule's call site goes to the side array and the event keeps its
  /// index + 1 until the writer interns it.
  @inline(__always)
  func append(_ event: TraceEvent, callSite: CallSite? = nil) {
    let capacity = self.capacity
    let count = storage.withLock { storage in
      guard storage.events.count < capacity else {
        storage.dropped += 1
        return 0
      }
      var event = event
      if let callSite {
        storage.callSites.append(callSite)
        event.site = UInt32(storage.callSites.count)
      }
      storage.events.append(event)
      return storage.events.count
    }
    if count == capacity / 2 { onHalfFull() }
  }

  /// Hands the buffered events to the writer in exchange for the spare arrays.
  func take() -> Storage {
    var taken = spare
    storage.withLock { swap(&$0, &taken) }
    spare = Storage()
    return taken
  }

  /// Returns drained arrays for reuse at the next swap.
  func recycle(_ storage: Storage) {
    var storage = storage
    storage.events.removeAll(keepingCapacity: true)
    storage.callSites.removeAll(keepingCapacity: true)
    storage.dropped = 0
    spare = storage
  }
}
