#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The floor of recording one event, for ``HotPath``: what any in-process recorder must do at
/// least. Per event: find the calling thread's ring through a thread-local slot
/// (`pthread_getspecific`, as a library that is not handed its buffer must), read the clock the
/// recorder reads (`CLOCK_MONOTONIC`), and store a 24-byte record at the ring's tail. No
/// publishing to a reader, no action ids, no call sites, no scheduler.
///
/// Each thread has its own ring of 65,536 records (the recorder's default per-thread buffer),
/// allocated and touched before the timed loop, so no page fault is timed; it wraps around
/// rather than filling up.
// @unchecked Sendable: ring `index` is touched only by the thread `timeOnThreads` runs with
// that index (between its release and its end), and freed in `deinit`, after the threads have
// finished.
final class FloorRings: @unchecked Sendable {
  /// One event as the floor stores it: 24 bytes.
  struct Record {
    var time: Int64
    var action: UInt32
    var kind: UInt32
    var thread: UInt32
    var argument: UInt32
  }

  /// A thread's ring: what its thread-local slot points to.
  struct Ring {
    var slots: UnsafeMutablePointer<Record>
    var tail: Int
    var thread: UInt32
  }

  static let capacity = 65_536
  private static let mask = capacity - 1
  /// The thread-local slot holding the current thread's ``Ring``.
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-local key for the floor")
    return key
  }()

  private let rings: UnsafeMutablePointer<Ring>
  private let count: Int

  init(count: Int) {
    self.count = count
    rings = .allocate(capacity: count)
    for index in 0..<count {
      let slots = UnsafeMutablePointer<Record>.allocate(capacity: Self.capacity)
      slots.initialize(
        repeating: Record(time: 0, action: 0, kind: 0, thread: 0, argument: 0),
        count: Self.capacity)
      (rings + index).initialize(to: Ring(slots: slots, tail: 0, thread: UInt32(index + 1)))
    }
  }

  deinit {
    for index in 0..<count { rings[index].slots.deallocate() }
    rings.deallocate()
  }

  /// Makes ring `index` this thread's, then records `count` events into it.
  func recordEvents(on index: Int, count: Int) {
    pthread_setspecific(Self.key, rings + index)
    Self.recordEvents(count: count, key: Self.key)
    pthread_setspecific(Self.key, nil)
  }

  /// The timed loop, out of line so the compiler cannot fold the thread-local look-up out of it.
  @inline(never)
  private static func recordEvents(count: Int, key: pthread_key_t) {
    for index in 0..<count {
      guard let slot = pthread_getspecific(key) else { return }
      let ring = slot.assumingMemoryBound(to: Ring.self)
      var now = timespec()
      clock_gettime(CLOCK_MONOTONIC, &now)
      let time = Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
      let tail = ring.pointee.tail
      ring.pointee.slots[tail & mask] = Record(
        time: time, action: UInt32(truncatingIfNeeded: index),
        kind: UInt32(truncatingIfNeeded: index) & 3,
        thread: ring.pointee.thread, argument: 0)
      ring.pointee.tail = tail &+ 1
    }
  }
}
