import CChronoscopeShims
import ChronoscopeCore
import ChronoscopeFatalSignals
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The recorder's machinery: ids, the clock, per-thread buffers and the writer.
final class RecorderCore: Sendable {
  let clock: TraceClock
  private let origin: Int64
  private let bufferCapacity: Int
  private let actionIDs = ActionIDCounter()
  private let nextScheduler = Atomic<UInt32>(0)
  /// The thread-specific key under which each thread finds its buffer.
  let bufferKey: pthread_key_t
  private let buffers = Mutex<[ThreadBuffer]>([])
  private let definitions = LockedDefinitions()
  private let writer: Mutex<TraceWriter>
  private let stopping = Atomic<Bool>(false)
  /// Whether threads wait for room in their rings rather than drop (see
  /// `ThreadBuffer.makeRoom`): while a writer thread writes a file. A flight recorder never
  /// makes the app wait: its window may drop, by design.
  private let waitsForRoom: Bool
  private let writerRunning = WriterRunning()
  /// This core's place in the crash-handler chain, while it is open.
  private let crashRegistration = Mutex<FatalSignals.Registration?>(nil)
  /// The writer as it was before ``endBeforeExec()`` ended the trace, and where its file ended
  /// then: what an `exec` that failed goes back to.
  private let beforeExec = Mutex<(writer: TraceWriter, fileEnd: Int64)?>(nil)
  /// What the crash path writes when the writer's lock never comes free.
  private let lastResort = LastResort()
  // Signalled to make the writer flush before its interval is up: on close, and when a thread's
  // buffer is half full.
  private let wakeUp = DispatchSemaphore(value: 0)

  struct Definitions {
    var schedulers: [SchedulerRecord] = []
    var sites: [CallSiteRecord] = []
    var siteIDs: [CallSite.Identity: UInt32] = [:]
    var marks: [(index: UInt32, record: MarkRecord)] = []
    var markCount: UInt32 = 0
    /// Names and values of named work, by the index its `work` event carries.
    var works: [(index: UInt32, record: WorkRecord)] = []
    var workCount: UInt32 = 0
    /// Names of Swift tasks, by the index (from 1) their `task` event carries.
    var taskNames: [(index: UInt32, name: String)] = []
    var taskNameCount: UInt32 = 0
    /// What tells a code address's module (see ``RecorderCore/describeCode(with:)``).
    var describeCode: CodeDescriber?
  }

  /// Tells the module and offset of a code address, or nil when no module holds it.
  typealias CodeDescriber = @Sendable (UInt) -> CodeLocation?

  /// A recorder writing to the file at `path`, opened by the recorder's rules (`TraceOutputFile`).
  convenience init(
    path: String, clock: TraceClock, metadata: [String: String], bufferCapacity: Int,
    onError: @escaping @Sendable (String) -> Void, reproducible: Bool = false,
    rotation: TraceRotation? = nil, spool: Bool = false
  ) throws(TraceRecorderError) {
    FileSizeLimit.survive
    // By the recorder's rules for its files (links, owners, other recorders, FIFOs: see
    // `TraceOutputFile`); without blocking: a FIFO nobody reads would otherwise hold the app in
    // `open` for ever.
    let opened = try TraceOutputFile.open(path: path)
    let descriptor = opened.descriptor
    // A rotation renames and deletes what is at the path: never a device, FIFO or socket
    // (`--max-bytes` onto /dev/null, as root, would delete /dev/null).
    if rotation != nil, opened.kind == .special {
      TraceOutputFile.release(descriptor)
      throw .cannotOpen(
        path: path,
        reason:
          "it is not a regular file (a device, FIFO or socket), which rotation would rename or delete; record to it without a size limit, or name a file"
      )
    }
    // It stays non-blocking: a FIFO whose reader stops would otherwise hold the writer, and the
    // app's exit behind it, for ever. The writer waits a bounded time for room instead (see
    // `TraceWriter.stallLimitMilliseconds`).
    let header = Self.header(clock: clock, metadata: metadata, reproducible: reproducible)
    var writer =
      rotation.map {
        TraceWriter(descriptor: descriptor, path: path, rotation: $0, onError: onError)
      }
      ?? TraceWriter(
        descriptor: descriptor, path: path,
        // A spool only in a regular file: what a device, FIFO or socket gets is read as it
        // comes, and nothing converts it.
        spool: spool && opened.kind == .regular, onError: onError)
    // A header that cannot be written is an error of `init`, like a file that cannot be opened:
    // `onError` is only ever called from the writer, for failures after the recorder started.
    guard writer.writeHeader(header) else {
      let reason = String(cString: strerror(errno))
      writer.close(time: 0)
      throw .cannotWrite(path: path, reason: reason)
    }
    self.init(writer: writer, clock: clock, bufferCapacity: bufferCapacity, waitsForRoom: true)
  }

  /// A flight recorder's core: it keeps `window` in memory and writes it on ``dump(to:)`` and,
  /// to `crashDumpPath` if given, on a crash.
  convenience init(
    window: FlightRecorderWindow, crashDumpPath: String?, clock: TraceClock,
    metadata: [String: String], bufferCapacity: Int
  ) {
    let writer = TraceWriter(
      window: window, header: Self.header(clock: clock, metadata: metadata, reproducible: false),
      crashDumpPath: crashDumpPath)
    self.init(writer: writer, clock: clock, bufferCapacity: bufferCapacity, waitsForRoom: false)
  }

  private init(
    writer: TraceWriter, clock: TraceClock, bufferCapacity: Int, waitsForRoom: Bool
  ) {
    self.waitsForRoom = waitsForRoom
    var key = pthread_key_t()
    // Each thread's slot points at its buffer without owning it: `buffers` owns every buffer, so
    // a finished thread's events stay until drained, and all buffers go with the recorder (a
    // thread that outlives many recorders keeps none of their memory).
    pthread_key_create(&key, nil)
    bufferKey = key
    self.clock = clock
    // Host time starts at the recorder's start. A virtual clock's own time is the trace's time
    // (a clock at 5 s shows 5 s, wherever the recorder started), unless it reads below zero:
    // trace times are never negative.
    origin = clock.isHost ? clock.nanoseconds() : min(clock.nanoseconds(), 0)
    self.bufferCapacity = max(bufferCapacity, 2)
    self.writer = Mutex(writer)
  }

  private static func header(
    clock: TraceClock, metadata: [String: String], reproducible: Bool
  ) -> TraceHeader {
    // A reproducible recording leaves out the two header fields that differ from run to run.
    var header = TraceHeader(
      clock: clock.kind, start: reproducible ? "" : Date().formatted(.iso8601),
      process: ProcessInfo.processInfo.processName,
      pid: reproducible ? 0 : Int64(ProcessInfo.processInfo.processIdentifier),
      metadata: metadata)
    // The core count tells a reader how many threads at once are too many; it differs from
    // machine to machine, so a reproducible recording leaves it out.
    if !reproducible {
      header.cores = ProcessInfo.processInfo.activeProcessorCount
      // Time 0 on the wall clock, for lining this trace up with other processes' traces.
      var now = timespec()
      clock_gettime(CLOCK_REALTIME, &now)
      header.startNanoseconds = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
    return header
  }

  deinit {
    close()
    pthread_key_delete(bufferKey)
  }

  // MARK: - Hot path

  @inline(__always)
  func now() -> Int64 { clock.nanoseconds() &- origin }

  /// The trace time of an instant of the host's monotonic clock (`CLOCK_MONOTONIC`), or nil
  /// when this recorder's clock is not the host's.
  func traceTime(ofHostInstant instant: Int64) -> Int64? {
    clock.isHost ? instant.subtractingReportingOverflow(origin).partialValue : nil
  }

  /// Calls `body` with the calling thread's buffer, made on its first event, without retaining
  /// it: the core owns every buffer until it goes, and `body` runs while the core is held.
  @inline(__always)
  func withCurrentBuffer<R, E: Error>(_ body: (ThreadBuffer) throws(E) -> R) throws(E) -> R {
    try Self.withBuffer(forKey: bufferKey, orMake: self, body)
  }

  /// ``withCurrentBuffer(_:)`` for a caller that holds the key but not the core (a recorded
  /// action): `core` is touched only on the thread's first event.
  @inline(__always)
  static func withBuffer<R, E: Error>(
    forKey key: pthread_key_t, orMake core: @autoclosure () -> RecorderCore,
    _ body: (ThreadBuffer) throws(E) -> R
  ) throws(E) -> R {
    guard let pointer = pthread_getspecific(key) else { return try body(core().makeBuffer()) }
    let buffer = Unmanaged<ThreadBuffer>.fromOpaque(pointer)
    // A typed throw cannot pass through `_withUnsafeGuaranteedRef`; the result carries it.
    let result = buffer._withUnsafeGuaranteedRef { buffer in
      Result { () throws(E) -> R in try body(buffer) }
    }
    return try result.get()
  }

  private func makeBuffer() -> ThreadBuffer {
    // A stack overflow in a recorded action still runs the crash flush.
    FatalSignals.installAlternateStack()
    let wakeUp = self.wakeUp
    let block = ThreadBuffer.idBlock
    let definitions = self.definitions
    let buffer = ThreadBuffer(
      threadID: ThreadIdentity.currentID(), threadName: ThreadIdentity.currentName(),
      capacity: bufferCapacity, clock: clock, origin: origin,
      reserveIDs: { [actionIDs] in actionIDs.reserve(block) },
      internSite: { site in Self.intern(site, in: definitions) },
      internCode: { address, caller in
        Self.intern(codeAddress: address, caller: caller, in: definitions)
      },
      mayWaitForRoom: { [writerRunning] in writerRunning.flag.load(ordering: .relaxed) },
      onHalfFull: { wakeUp.signal() })
    pthread_setspecific(bufferKey, Unmanaged.passUnretained(buffer).toOpaque())
    buffers.withLock { $0.append(buffer) }
    return buffer
  }

  /// The id of a call site, defining it (for the writer to announce) the first time it is seen.
  private static func intern(_ site: CallSite, in definitions: LockedDefinitions) -> UInt32 {
    let key = site.identity
    return definitions.withLock { definitions in
      if let id = definitions.siteIDs[key] { return id }
      let id = UInt32(definitions.siteIDs.count + 1)
      definitions.siteIDs[key] = id
      definitions.sites.append(
        CallSiteRecord(
          id: id, file: "\(site.fileID)", line: Int(site.line), function: "\(site.function)"))
      return id
    }
  }

  /// The id of a call site known by a code address, defining it the first time it is seen with
  /// what the definitions' describer says of the address (nothing without one: the site is then
  /// the address alone). The describer runs outside the lock: it may ask the dynamic linker.
  private static func intern(
    codeAddress address: UInt, caller: UInt, in definitions: LockedDefinitions
  ) -> UInt32 {
    let key = CallSite.Identity(file: 0, function: address, line: caller)
    let describe = definitions.withLock { definitions -> CodeDescriber? in
      definitions.siteIDs[key] == nil ? definitions.describeCode : nil
    }
    var code = describe?(address)
    // The caller counts when it is in the same module, where its offset means something.
    if let described = code, caller != 0, let outer = describe?(caller),
      outer.module == described.module
    {
      code?.callerOffset = outer.offset
    }
    return definitions.withLock { definitions in
      if let id = definitions.siteIDs[key] { return id }
      let id = UInt32(definitions.siteIDs.count + 1)
      definitions.siteIDs[key] = id
      let hex = "0x" + String(code?.offset ?? UInt64(address), radix: 16)
      let file = code.map { $0.module.split(separator: "/").last.map(String.init) ?? $0.module }
      definitions.sites.append(
        CallSiteRecord(id: id, file: file ?? "?", line: 0, function: hex, code: code))
      return id
    }
  }

  /// Sets what tells a code address's module and offset for call sites known by address.
  func describeCode(with describer: @escaping CodeDescriber) {
    definitions.withLock { $0.describeCode = describer }
  }

  func registerScheduler(label: String, kind: SchedulerKind, family: SchedulerFamily) -> UInt32 {
    let id = nextScheduler.add(1, ordering: .relaxed).newValue
    let record = SchedulerRecord(
      id: id, label: label, kind: kind.rawValue, family: family.rawValue, time: now())
    definitions.withLock { $0.schedulers.append(record) }
    return id
  }

  func mark(_ name: String, _ fields: [String: String]) {
    let index = definitions.withLock { definitions in
      defer { definitions.markCount += 1 }
      definitions.marks.append((definitions.markCount, MarkRecord(name: name, fields: fields)))
      return definitions.markCount
    }
    withCurrentBuffer { buffer in
      buffer.stamp {
        buffer.append(.mark(time: buffer.now(), thread: buffer.threadID, mark: index))
      }
    }
  }

  /// The index a `work` event carries for `context`, whose name and values the writer writes on
  /// that event's line.
  func workIndex(for context: WorkContext) -> UInt32 {
    let record = WorkRecord(name: context.name, fields: context.values)
    return definitions.withLock { definitions in
      defer { definitions.workCount &+= 1 }
      definitions.works.append((definitions.workCount, record))
      return definitions.workCount
    }
  }

  /// The index (from 1) a `task` event carries for a task named `name`, whose name the writer
  /// writes on that event's line.
  func taskNameIndex(for name: String) -> UInt32 {
    definitions.withLock { definitions in
      definitions.taskNameCount &+= 1
      definitions.taskNames.append((definitions.taskNameCount, name))
      return definitions.taskNameCount
    }
  }

  // MARK: - Writer

  func flush() {
    writer.withLock { drain(into: &$0) }
  }

  /// Writes what is buffered and the end marker, once; returns only when the trace is closed,
  /// whichever thread closes it. A second caller waits for the first rather than returning at
  /// once: the process's exit closes its recorders, and a recorder whose last reference went on
  /// another thread just then could be halfway through closing when the process ended, leaving
  /// its trace without the marker.
  /// Makes a crash write this core's buffers (see ``CrashFlush``), until it closes.
  func registerForCrashes() {
    crashRegistration.withLock { $0 = CrashFlush.register(self) }
  }

  func close() {
    if let registration = crashRegistration.withLock({ $0.take() }) {
      CrashFlush.unregister(registration)
    }
    writerRunning.flag.store(false, ordering: .relaxed)
    if !stopping.exchange(true, ordering: .acquiringAndReleasing) { wakeUp.signal() }
    writer.withLock { writer in
      guard !writer.isClosed else { return }
      // The close line's time is the last cut: what threads still running stamp after it is
      // after the trace's end, and left out whole (a begin never without its schedule).
      let end = now()
      drain(into: &writer, upTo: end)
      writer.close(time: end)
    }
    RecorderRegistry.shared.remove(self)
  }

  /// Before an `exec` (see ``ExecHandoff``): writes what is buffered and the end marker, as
  /// ``close()`` does, but keeps the file open, remembering the writer as it was, so that
  /// ``resumeAfterFailedExec()`` can take the marker back. Only a regular file can be cut back:
  /// a device, FIFO or socket is flushed and left open without the marker.
  func endBeforeExec() {
    writer.withLock { writer in
      guard !writer.isClosed, writer.isOpen else { return }
      let end = now()
      drain(into: &writer, upTo: end)
      guard let fileEnd = writer.regularFileEnd else { return }
      let before = writer
      writer.close(time: end, keepingFile: true)
      beforeExec.withLock { $0 = (before, fileEnd) }
    }
  }

  /// After an `exec` that failed: cuts the file back to where it ended before
  /// ``endBeforeExec()`` and goes on writing as before. A file that cannot be cut stays ended.
  func resumeAfterFailedExec() {
    writer.withLock { writer in
      guard let (before, fileEnd) = beforeExec.withLock({ $0.take() }),
        writer.cutBack(to: fileEnd)
      else { return }
      writer = before
    }
  }

  /// Moves the action-id counter on to `value` (for tests of the ids' wrap-around).
  func skipActionIDs(to value: UInt64) { actionIDs.skip(to: value) }

  /// Whether closing (or the crash path) has begun: for tests.
  var isStopping: Bool { stopping.load(ordering: .acquiring) }

  /// Writes a flight recorder's window, everything recorded until now included, to `path`.
  func dump(to path: String) throws(TraceRecorderError) {
    try writer.withLock { (writer: inout TraceWriter) throws(TraceRecorderError) in
      drain(into: &writer)
      try writer.dump(to: path, time: now())
    }
  }

  var counts: (written: Int64, dropped: Int64) {
    writer.withLock { ($0.written, $0.dropped) }
  }

  /// Starts the thread that flushes every `interval` until the recorder closes. It holds the
  /// core strongly; closing ends it.
  func startWriterThread(interval: Duration) {
    let seconds =
      Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
    let thread = Thread { [self] in
      // The name the OS shows (`top -H`, /proc), which Foundation does not set on Linux.
      chronoscope_name_current_thread("chronoscope.trace-writer")
      while !stopping.load(ordering: .acquiring) {
        flush()
        _ = wakeUp.wait(timeout: .now() + seconds)
      }
      writerRunning.flag.store(false, ordering: .relaxed)
    }
    thread.name = "chronoscope.trace-writer"
    // The writer takes none of the app's signals: a signal the app waits for with all its own
    // threads blocking it (a Dispatch signal source reads it from a signalfd) would otherwise be
    // delivered to this thread, and handled or dropped there. It inherits this mask as it is
    // created; the crash signals stay open, so a crash on it still runs the crash path.
    var all = sigset_t()
    sigfillset(&all)
    for crash in FatalSignals.signals { sigdelset(&all, crash) }
    sigdelset(&all, SIGFPE)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &all, &previous)
    // Up before the thread runs: a ring that fills before its first flush waits for it too.
    if waitsForRoom, !stopping.load(ordering: .acquiring) {
      writerRunning.flag.store(true, ordering: .relaxed)
    }
    thread.start()
    pthread_sigmask(SIG_SETMASK, &previous, nil)
  }

  /// Moves buffered events into the file. Runs under the writer's lock.
  ///
  /// Events stamped after the drain began stay for the next one: a thread may append such an
  /// event to its buffer after that buffer was taken, while a later event that depends on it
  /// (the begin of an action it scheduled) sits in a buffer taken afterwards. Holding back
  /// everything past the cut keeps causes before effects in the file; waiting for each thread's
  /// stamp in progress keeps anything at or before the cut from arriving late. So every flush
  /// writes exactly the events stamped in (previous cut, this cut], and `t` never decreases.
  private func drain(into writer: inout TraceWriter, upTo end: Int64? = nil) {
    // An ended trace (closed, or before an `exec`) takes nothing more.
    guard writer.isOpen, !writer.isClosed else { return }
    let cutoff = end ?? now()
    // After the cut is read: every stamp flag raised before a clock reading earlier than the
    // cut is now visible (see `ThreadBuffer.stamp`).
    AsymmetricFence.heavy()
    // Take the events first: any site or scheduler they mention was defined before they were
    // recorded, so it is in the definitions taken next, ready when the writer reaches its first
    // use.
    var runs: [[TraceEvent]] = []
    var dropped: Int64 = 0
    let threads = buffers.withLock { $0 }
    for buffer in threads {
      // An event stamped before the cut but not appended yet would otherwise land in the next
      // flush, behind later lines.
      buffer.waitForPendingStamp()
      var events: [TraceEvent] = []
      dropped += buffer.drain(into: &events)
      if !events.isEmpty {
        writer.nameThread(buffer.threadID, buffer.threadName)
        runs.append(events)
      }
    }
    let definitions = self.definitions.withLock { definitions in
      defer {
        definitions.schedulers.removeAll()
        definitions.sites.removeAll()
        definitions.marks.removeAll()
        definitions.works.removeAll()
        definitions.taskNames.removeAll()
      }
      return definitions
    }
    writer.define(definitions)
    writer.write(runs: runs, upTo: cutoff, dropped: dropped)
    if actionIDs.needsLiveIDs, let live = writer.liveActionIDs { actionIDs.noteLive(live) }
    writer.reserveForCrash(
      maxActionID: actionIDs.reserved &+ 4 &* ThreadBuffer.idBlock, threads: threads.count)
    lastResort.note(descriptor: writer.currentDescriptor, time: writer.lastWrittenTime)
  }

  /// The crash path, from a signal handler (see ``CrashFlush``), or from the thread that handles
  /// a stop signal: writes what the threads have buffered and a `crash` line, once.
  ///
  /// Another thread may be in the middle of a flush — it keeps running while this thread handles
  /// the signal — so this tries the writer's lock, yielding then sleeping between tries, for at
  /// most ``crashWaitNanoseconds`` (longer than a write waits for a stalled reader). If the lock
  /// never comes free (the crash hit the writer, or the writer waits for a lock the crashed
  /// thread holds) it writes what it can without it: a `dropped` line counting the events still
  /// buffered and the `crash` line, after the last line the writer wrote (see ``LastResort``).
  /// The definitions (mark names) are only tried: a crash inside `mark` holds their lock.
  func writeAfterCrash(signal: StaticString) {
    // A forked child's crash is not its parent's to write (see `RecorderRegistry.owner`).
    guard getpid() == RecorderRegistry.shared.owner else { return }
    guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
    // The thread the signal interrupted: this code runs on another (see `ChronoscopeFatalSignals`).
    let thread = UInt32(truncatingIfNeeded: FatalSignals.interruptedThreadTag)
    // A virtual clock's `now` may take a lock the crashing thread holds: its crash line takes
    // the last time buffered instead.
    let time = clock.isHost ? now() : 0
    let start = CrashFlush.monotonicNanoseconds()
    var tries = 0
    while true {
      let written: Bool? = writer.withLockIfAvailable { writer in
        guard let buffers = buffers.withLockIfAvailable({ $0 }) else { return false }
        let pending = definitions.withLockIfAvailable { $0 }
        // The crash line's time is a cut, as each flush's is: other threads go on recording
        // while this one writes (a stop signal lets them), and an event stamped after it — the
        // begin of work whose schedule its thread appended after its ring was read — would be
        // an effect without its cause. Stamps in progress at the cut are waited for, as a flush
        // waits (a thread stopped by the crash is given up on after about a second).
        if clock.isHost {
          AsymmetricFence.heavy()
          var index = 0
          while index < buffers.count {
            buffers[index].waitForPendingStamp()
            index += 1
          }
        }
        writer.writeAfterCrash(
          buffers: buffers, definitions: pending, signal: signal, thread: thread, time: time,
          cut: clock.isHost ? time : .max)
        return true
      }
      if written == true { return }
      if CrashFlush.monotonicNanoseconds() &- start > Self.crashWaitNanoseconds { break }
      tries &+= 1
      CrashFlush.pause(after: tries)
    }
    let buffered = buffers.withLockIfAvailable { buffers in
      buffers.reduce(Int64(0)) { $0 &+ Int64($1.publishedPositions().count) }
    }
    lastResort.write(
      signal: signal, thread: thread, time: time, buffered: buffered ?? 0)
  }

  /// How long the crash path waits for the writer's lock: longer than a write waits for a
  /// stalled FIFO reader (`TraceWriter.stallLimitMilliseconds`), so a writer that is only slow
  /// finishes first.
  static let crashWaitNanoseconds: Int64 = 3_000_000_000
}

/// The recorder's shared action-id counter, from which threads take blocks of ids. A class of
/// its own so that thread buffers can hold it without holding the recorder.
///
/// Ids are 32 bits in a trace, and a long-running recording hands out more: the count itself is
/// 64 bits, and the ids go round. So that ids never repeat within a file that keeps them (a
/// flight recorder's dump, a rotated file), a block is skipped when it would hold id 0 ("no
/// action") or, once the ids have gone round, an id that an action still live holds (a timer
/// scheduled long ago): the writer tells the counter which ones (``noteLive(_:)``). Two actions
/// four billion ids apart can still meet in a flight window that holds both, which no realistic
/// window does.
final class ActionIDCounter: Sendable {
  private let next = Atomic<UInt64>(0)
  /// The live actions' ids, sorted, once the ids are about to go round (see ``needsLiveIDs``).
  private let live = Mutex<[UInt32]>([])

  /// Reserves `count` ids and returns the one before the first (ids start at 1).
  ///
  /// - Complexity: O(1) until the ids first go round; then O(log live actions) a block.
  func reserve(_ count: UInt32) -> UInt32 {
    while true {
      let end = next.add(UInt64(count), ordering: .relaxed).newValue
      let start = end &- UInt64(count)
      let first = UInt32(truncatingIfNeeded: start)
      if UInt32(truncatingIfNeeded: end) == 0 { continue }
      if start >> 32 != 0, holdsLiveID(from: first &+ 1, count: count) { continue }
      return first
    }
  }

  private func holdsLiveID(from first: UInt32, count: UInt32) -> Bool {
    live.withLock { ids in
      let low = ids.partitioningIndex { $0 >= first }
      return low < ids.count && ids[low] - first < count
    }
  }

  /// The highest id handed out so far.
  var reserved: UInt32 { UInt32(truncatingIfNeeded: next.load(ordering: .relaxed)) }

  /// Whether the ids are within a few million of going round, or went round: from then on, the
  /// writer reports the live actions after each flush.
  var needsLiveIDs: Bool { next.load(ordering: .relaxed) >= (1 << 32) - (1 << 24) }

  /// The ids of the actions live now (in any order), which blocks handed out later must avoid.
  func noteLive(_ ids: [UInt32]) {
    let sorted = ids.sorted()
    live.withLock { $0 = sorted }
  }

  /// Moves the counter on to `value`, so that tests reach the ids' wrap-around quickly.
  func skip(to value: UInt64) {
    next.store(value, ordering: .relaxed)
  }
}

/// Whether a core's writer thread is writing a file, shared with its thread buffers, which may
/// then wait for room (see `ThreadBuffer.makeRoom`) and must not hold the core.
final class WriterRunning: Sendable {
  let flag = Atomic<Bool>(false)
}

/// The definitions waiting to be written, shared by the core and the thread buffers (which
/// intern call sites without going through the core).
final class LockedDefinitions: Sendable {
  private let state = Mutex(RecorderCore.Definitions())

  func withLock<R>(_ body: (inout RecorderCore.Definitions) -> R) -> R {
    state.withLock { body(&$0) }
  }

  /// The definitions, if their lock is free now: for the crash path.
  func withLockIfAvailable<R>(_ body: (inout RecorderCore.Definitions) -> R) -> R? {
    state.withLockIfAvailable { body(&$0) }
  }
}

/// A file that grows past the process's size limit (`ulimit -f`) raises SIGXFSZ, which by default
/// kills the process: a recorder must not kill the app it records. So when the app left that
/// signal at its default, the recorder ignores it — the write then fails with EFBIG, which the
/// writer reports once, and the app goes on. A handler the app installed is kept.
enum FileSizeLimit {
  static let survive: Void = {
    let previous = signal(SIGXFSZ, SIG_IGN)
    let wasDefault =
      previous.map { unsafeBitCast($0, to: Int.self) }
      == SIG_DFL.map { unsafeBitCast($0, to: Int.self) }
    if !wasDefault { signal(SIGXFSZ, previous) }
  }()
}
