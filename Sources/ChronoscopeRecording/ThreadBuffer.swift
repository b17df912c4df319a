import ChronoscopeScheduling
import ChronoscopeTraceFormat
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One thread's events on their way to the writer — a single-producer, single-consumer ring —
/// plus the actions running on that thread and its cache of interned call sites.
///
/// The owning thread writes a 48-byte event into the next slot and publishes it with one
/// release store; the writer copies out everything published and hands the slots back with
/// another. Neither waits for the other while there is room. When the ring is nearly full, a
/// thread of a full recording waits for the writer to make room (see ``makeRoom()``), so that
/// nothing is lost; where it may not wait (a flight recorder, no writer thread) or the writer
/// makes no progress, the event is dropped and counted.
// @unchecked Sendable: a slot is written only by the owning thread, at `tail`, before `tail`
// moves past it (release), and read only by the writer (under the recorder's writer lock) below
// the `tail` it loaded (acquire) and above `head`, which only it moves. The `nonisolated(unsafe)`
// properties are touched by the owning thread alone, and carry `@exclusivity(unchecked)`: the
// dynamic exclusivity check Swift makes on every access to a class's stored `var` cost a fifth
// of the recording hot path (Benchmarks/README.md, "Figures behind the code"), to guard state
// that only one thread ever touches.
final class ThreadBuffer: @unchecked Sendable {
  let threadID: UInt32
  let threadName: String
  /// Slots in the ring: a power of two.
  let capacity: Int
  private let mask: Int
  private let slots: UnsafeMutablePointer<TraceEvent>
  private let tail = Atomic<Int>(0)
  private let head = Atomic<Int>(0)
  private let dropped = Atomic<Int64>(0)
  /// Odd while the owning thread holds a timestamp it has not appended yet (see ``stamp(_:)``);
  /// it counts up by one as each stamp starts and ends, so the writer can wait for the one stamp
  /// in progress at its cut without waiting for the thread to go quiet.
  private let stamps = Atomic<UInt>(0)
  /// The owning thread's copy of `stamps`, so that it never reads the atomic back.
  @exclusivity(unchecked) nonisolated(unsafe) private var localStamps: UInt = 0
  /// ``AsymmetricFence/isSplit``, read once.
  private let splitFence = AsymmetricFence.isSplit
  private let onHalfFull: @Sendable () -> Void
  /// Whether a thread may wait for room now (see ``makeRoom()``).
  private let mayWaitForRoom: @Sendable () -> Bool
  private let reserveIDs: @Sendable () -> UInt32
  private let internSite: @Sendable (CallSite) -> UInt32
  private let internCode: @Sendable (UInt, UInt) -> UInt32
  /// The recorder's clock and its reading at the recorder's start, so that timestamps need only
  /// the buffer: the recorder is not retained for them.
  private let clock: TraceClock
  private let origin: Int64

  /// The producer's last look at `head`; refreshed only when the ring seems full.
  @exclusivity(unchecked) nonisolated(unsafe) private var knownHead = 0
  /// Where `head` was when the thread last gave up waiting for room (see ``makeRoom()``), or
  /// -1: until the writer takes something, the thread does not wait again, so a stalled writer
  /// costs it one wait, not one per event.
  @exclusivity(unchecked) nonisolated(unsafe) private var gaveUpAt = -1
  /// Actions pushed and popped around their runs on this thread.
  @exclusivity(unchecked) nonisolated(unsafe) var running = RunningActions()
  /// An action that never left the call that scheduled it on this thread, kept for the thread's
  /// next one (see `RecorderCore.recordScheduled`). Nothing else references it, and it does not
  /// hold the core, which owns this buffer.
  @exclusivity(unchecked) nonisolated(unsafe) var spareAction: RecordedAction?
  /// The action whose scheduling call is under way on this thread, its handle not yet
  /// returned, or 0 (see `RecordedAction.whileUnpublished`).
  @exclusivity(unchecked) nonisolated(unsafe) var unpublished: UInt32 = 0
  // Action ids this thread may hand out without touching the shared counter: threads take
  // blocks of ids, so recording on several threads never fights over one cache line.
  @exclusivity(unchecked) nonisolated(unsafe) private var nextID: UInt32 = 0
  @exclusivity(unchecked) nonisolated(unsafe) private var lastID: UInt32 = 0
  /// The ids of the call sites this thread recorded lately.
  @exclusivity(unchecked) nonisolated(unsafe) private var sites = CallSiteCache(
    size: ThreadBuffer.siteCacheSize)

  /// How many ids a thread takes at once.
  static let idBlock: UInt32 = 256
  private static let siteCacheSize = 64

  init(
    threadID: UInt32, threadName: String, capacity: Int, clock: TraceClock, origin: Int64,
    reserveIDs: @escaping @Sendable () -> UInt32,
    internSite: @escaping @Sendable (CallSite) -> UInt32,
    internCode: @escaping @Sendable (UInt, UInt) -> UInt32 = { _, _ in 0 },
    mayWaitForRoom: @escaping @Sendable () -> Bool = { false },
    onHalfFull: @escaping @Sendable () -> Void
  ) {
    self.threadID = threadID
    self.threadName = threadName
    var size = 2
    while size < capacity { size <<= 1 }
    self.capacity = size
    mask = size - 1
    slots = .allocate(capacity: size)
    self.reserveIDs = reserveIDs
    self.internSite = internSite
    self.internCode = internCode
    self.onHalfFull = onHalfFull
    self.mayWaitForRoom = mayWaitForRoom
    self.clock = clock
    self.origin = origin
  }

  deinit {
    slots.deallocate()
    running.deallocate()
  }

  /// The recorder's time now, in nanoseconds since it started.
  @inline(__always)
  func now() -> Int64 { clock.nanoseconds() &- origin }

  /// The action running on this thread now, or 0.
  var currentAction: UInt32 { running.top }

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

  /// The trace's id for a call site, from this thread's cache when it can.
  @inline(__always)
  func siteID(_ site: CallSite) -> UInt32 {
    let identity = site.identity
    if let id = sites.id(of: identity) { return id }
    let id = internSite(site)
    sites.remember(id, for: identity)
    return id
  }

  /// The trace's id for a call site known only by return addresses in machine code (a program
  /// recorded from outside): `address`, and its caller's (or 0). From this thread's cache when
  /// it can; it shares the cache with ``siteID(_:)``: file 0 is no string's address, so the two
  /// kinds never match each other.
  @inline(__always)
  func siteID(codeAddress address: UInt, caller: UInt) -> UInt32 {
    let identity = CallSite.Identity(file: 0, function: address, line: caller)
    if let id = sites.id(of: identity) { return id }
    let id = internCode(address, caller)
    sites.remember(id, for: identity)
    return id
  }

  /// Runs `body` with the flag up that tells the writer this thread holds a timestamp it has not
  /// appended yet; `body` reads the clock and appends what it stamped (owning thread only).
  ///
  /// Without it, a thread preempted between reading the clock and appending could publish an
  /// event after the writer has written later ones, and the file would go back in time. The
  /// flag must be visible to a writer whose clock reading is later than this thread's: the
  /// flag's store, a light fence, then the clock; the writer reads its clock, passes the heavy
  /// fence (``AsymmetricFence``), then looks at the flag. Either this thread's store was
  /// before its light fence was reached by the heavy one, and the writer sees the flag up (or
  /// the event appended), or the heavy fence came first, and this thread's clock reading is
  /// not earlier than the writer's. Where the fence cannot be split, the light half is a full
  /// fence, as a sequentially consistent store was before.
  @inline(__always)
  func stamp<R>(_ body: () -> R) -> R {
    // Room first, before the flag is up: the writer waits for a stamp in progress, so a thread
    // must never wait for the writer inside one.
    if tail.load(ordering: .relaxed) &- knownHead > capacity &- Self.stampSlots { makeRoom() }
    localStamps &+= 1
    stamps.store(localStamps, ordering: .relaxed)
    AsymmetricFence.light(split: splitFence)
    defer {
      localStamps &+= 1
      stamps.store(localStamps, ordering: .releasing)
    }
    return body()
  }

  /// Appends the begin of run `run` of action `action`, scheduled from thread `from` (after a
  /// hop when that is another thread), stamped `start`, and pushes the action as running here.
  /// Inside a ``stamp(_:)``.
  @inline(__always)
  func appendBegin(of action: UInt32, scheduledFrom from: UInt32, run: UInt32, at start: Int64) {
    if threadID != from {
      append(.hop(time: start, action: action, from: from, to: threadID))
    }
    append(.begin(time: start, action: action, thread: threadID, run: run))
    running.push(action)
  }

  /// Pops the running action `action` and records the end of its run `run`.
  @inline(__always)
  func recordEnd(of action: UInt32, run: UInt32, startedAt start: Int64) {
    running.pop()
    stamp {
      let end = now()
      append(.end(time: end, action: action, thread: threadID, run: run, duration: end &- start))
    }
  }

  /// The most events one stamp appends (a hop and a begin, a schedule and its `task` and `work`
  /// lines).
  private static let stampSlots = 4

  /// Waits for the writer to take events until the ring has room for a stamp's events, when
  /// the recording may wait (a file written by a writer thread): a program that makes events
  /// faster than they are written is slowed to the writer's pace rather than losing any. The
  /// writer is woken, then waited for, yielding, then sleeping 50 µs at a time. Gives up when
  /// the writer has taken nothing for ``roomPatienceNanoseconds`` (a FIFO whose reader stopped,
  /// a writer that is closing): the events that do not fit are then dropped and counted, as
  /// they are where waiting is not allowed.
  @inline(never)
  private func makeRoom() {
    let position = tail.load(ordering: .relaxed)
    knownHead = head.load(ordering: .acquiring)
    guard position &- knownHead > capacity &- Self.stampSlots, knownHead != gaveUpAt,
      mayWaitForRoom()
    else { return }
    onHalfFull()
    var waitedSince = clock.isHost ? now() : 0
    var seenHead = knownHead
    var tries = 0
    while position &- knownHead > capacity &- Self.stampSlots {
      tries += 1
      if tries < 16 {
        sched_yield()
      } else {
        var pause = timespec(tv_sec: 0, tv_nsec: 50_000)
        nanosleep(&pause, nil)
      }
      knownHead = head.load(ordering: .acquiring)
      if knownHead != seenHead {
        seenHead = knownHead
        waitedSince = clock.isHost ? now() : 0
        continue
      }
      // A virtual clock does not move while the thread waits: count the pauses instead.
      let waited = clock.isHost ? now() &- waitedSince : Int64(tries) &* 50_000
      if waited > Self.roomPatienceNanoseconds || !mayWaitForRoom() {
        gaveUpAt = knownHead
        return
      }
      if tries % 64 == 0 { onHalfFull() }
    }
  }

  /// How long a thread waits for a writer that takes nothing before it drops events instead:
  /// longer than a flush of a full ring takes, far shorter than a FIFO's stall limit.
  static let roomPatienceNanoseconds: Int64 = 200_000_000

  /// Waits until the stamp the owning thread had in progress, if any, is appended (the writer
  /// only, after reading the clock for its cut and passing ``AsymmetricFence/heavy()``). Later
  /// stamps are later than the cut and do not matter, so a thread that stamps without pause
  /// never holds the writer up. Gives up after about a second, for a thread stopped in a
  /// debugger.
  func waitForPendingStamp() {
    let seen = stamps.load(ordering: .sequentiallyConsistent)
    guard seen & 1 == 1 else { return }
    var spins = 0
    while stamps.load(ordering: .acquiring) == seen {
      spins += 1
      if spins > 64 { sched_yield() }
      if spins > 1_000_000 { return }
    }
  }

  /// Appends an event (owning thread only).
  @inline(__always)
  func append(_ event: TraceEvent) {
    let position = tail.load(ordering: .relaxed)
    if position &- knownHead >= capacity {
      knownHead = head.load(ordering: .acquiring)
      if position &- knownHead >= capacity {
        dropped.add(1, ordering: .relaxed)
        return
      }
    }
    (slots + (position & mask)).initialize(to: event)
    tail.store(position &+ 1, ordering: .releasing)
    if (position &+ 1) & (capacity / 2 &- 1) == 0 { onHalfFull() }
  }

  /// The positions of the events published and not yet taken, for the crash path, which reads
  /// them in place with ``event(at:)`` instead of copying.
  func publishedPositions() -> Range<Int> {
    let start = head.load(ordering: .acquiring)
    return start..<max(start, tail.load(ordering: .acquiring))
  }

  /// The events dropped since the last drain, counted as taken: for the crash path, which
  /// reads the ring in place and writes how many it lost.
  func takeDropped() -> Int64 { dropped.exchange(0, ordering: .relaxed) }

  /// The event at a position from ``publishedPositions()``.
  func event(at position: Int) -> TraceEvent { slots[position & mask] }

  /// Copies every published event into `events` and frees their slots (the writer only).
  /// Returns how many events were dropped since the last call.
  func drain(into events: inout [TraceEvent]) -> Int64 {
    let start = head.load(ordering: .relaxed)
    let end = tail.load(ordering: .acquiring)
    if end > start {
      events.reserveCapacity(events.count + (end - start))
      for position in start..<end { events.append(slots[position & mask]) }
      head.store(end, ordering: .releasing)
    }
    return dropped.exchange(0, ordering: .relaxed)
  }
}

/// The ids of the actions running on one thread, innermost last: a stack that its thread pushes
/// and pops around every run.
///
/// Not an `Array`: each append and removal checked the array's storage for uniqueness and its
/// capacity through calls into the runtime on the recording hot path, for storage only its
/// thread ever touches (Benchmarks/README.md, "Figures behind the code").
struct RunningActions {
  private var base = UnsafeMutablePointer<UInt32>.allocate(capacity: 16)
  private var capacity = 16
  private var count = 0

  /// The innermost running action, or 0 when none runs.
  var top: UInt32 { count == 0 ? 0 : base[count &- 1] }

  @inline(__always)
  mutating func push(_ id: UInt32) {
    if count == capacity { grow() }
    base[count] = id
    count &+= 1
  }

  /// Removes the innermost action (there is one: every pop follows its push).
  @inline(__always)
  mutating func pop() {
    precondition(count > 0, "a run ended that had not begun on this thread")
    count &-= 1
  }

  private mutating func grow() {
    let larger = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity * 2)
    larger.moveInitialize(from: base, count: count)
    base.deallocate()
    base = larger
    capacity *= 2
  }

  /// Frees the storage (the owning buffer's `deinit`).
  func deallocate() { base.deallocate() }
}
