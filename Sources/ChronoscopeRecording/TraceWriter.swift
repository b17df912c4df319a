import ChronoscopeScheduling
import ChronoscopeTraceFormat
import HeapModule

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns batches of events into trace lines — the encoding core — and hands them to its sink
/// (``TraceSink``): a plain file, a rotating file, or a flight recorder's memory.
///
/// What it guarantees about the lines, beyond each thread's own order, whatever the sink:
/// - **Time order.** `t` never decreases from one line to the next, and every `t` is the time
///   measured. Each flush writes the events stamped between the previous cut and its own, merged
///   by time; the recorder waits for stamps in progress before taking a thread's events (see
///   `ThreadBuffer.stamp`), so none stamped before a cut arrives after it.
/// - **Definitions where they are needed.** A `thread`, `scheduler` or `site` line is written
///   just before the first line that refers to it, with that line's `t`; so the file reads the
///   same however the writer's flushes fell. Schedulers nothing used are defined just before
///   the end marker.
/// - **Dense action ids.** Recorders hand out ids in per-thread blocks; the file numbers actions
///   1, 2, 3… in order of first appearance, with `parent` and `by` mapped the same way.
///
/// Where the bytes go, and what happens to them on a crash, is the sink's. A sink that starts
/// traces part way through a recording (a flight recorder's segments, a rotating file's files)
/// gets the context they start with from the writer (``TraceContext``), and keeps the
/// recorder's action ids, since a table mapping them would grow with every action ever recorded.
///
/// Only ever used under the recorder's writer lock.
package struct TraceWriter {
  private var sink: TraceSink
  /// The sink's ``TraceSink/keepsIDs``, read once: each batch's loop is specialised for it
  /// (see ``IDPolicy``), so the hot path switches on no sink and tests no flag per event.
  private let keepsIDs: Bool
  /// Whether the file is a spool (see `TraceSpool`): each batch goes out as the threads' runs
  /// of events, as they are, for `TraceSpoolConversion` to write as lines afterwards with this
  /// same type. No merge, no encoding, no definitions held back on the recording's side.
  private let spooling: Bool
  /// Whether ``close(time:)`` has run: the end marker is written once.
  private(set) var isClosed = false
  /// Set on the crash path: failures are not reported (that would call the app's code).
  private var crashing = false
  /// On the crash path, the definitions recorded since the last flush, if their lock was free:
  /// read in place for the names of marks and works that have no pending entry yet.
  private var crashDefinitions: RecorderCore.Definitions?
  /// On the crash path, the schedulers and sites of ``crashDefinitions`` written so far: those
  /// definitions were never handed to the writer (no flush came after them), so they are
  /// written from there, once each, in room made up front (``reserveForCrash(maxActionID:threads:)``).
  private var crashWrittenSchedulers: [UInt32] = []
  private var crashWrittenSites: [UInt32] = []
  private var encoder = TraceEncoder()
  /// Events stamped after the last cut, written next time.
  private var carried: [[TraceEvent]] = []
  /// Mark texts whose events have not been written yet.
  private var pendingMarks: [UInt32: MarkRecord] = [:]
  /// Names and values of named work whose `work` events have not been written yet.
  private var pendingWorks: [UInt32: WorkRecord] = [:]
  /// Names of Swift tasks whose `task` events have not been written yet.
  private var pendingTaskNames: [UInt32: String] = [:]
  /// Definitions not written yet, by id: each goes out just before its first use.
  private var pendingSchedulers: [UInt32: SchedulerRecord] = [:]
  private var pendingSites: [UInt32: CallSiteRecord] = [:]
  private var threadNames: [UInt32: String] = [:]
  private var namedThreads: Set<UInt32> = []
  /// The thread of the last event written: consecutive events on one thread skip the lookup.
  private var lastThread: UInt32?
  private var actionIDs = DenseActionIDs()
  /// The `t` of the last line written.
  private var lastTime: Int64 = 0
  /// Events whose lines reached the sink.
  private(set) var written: Int64 = 0
  /// How many encoded bytes are written at once: 1 MiB, or what a rotating file has room for
  /// (see ``TraceSink/chunkLimit``).
  private var chunkLimit = 1 << 20
  /// Room for the crash path's merge of the threads' buffers (see ``reserveForCrash``).
  private var crashCursors: [Int] = []
  /// Where each event line encoded since the last write ends in `encoder.bytes`: when a write
  /// fails part way, the lines that made it count as written and the rest as dropped.
  private var eventEnds: [Int] = []
  private(set) var dropped: Int64 = 0
  /// The definitions written and the work live, for a sink that keeps the recorder's ids.
  private var context = TraceContext()

  /// Reserves room up front, so the crash path can encode a full chunk without allocating.
  private init(sink: TraceSink) {
    self.sink = sink
    keepsIDs = sink.keepsIDs
    if case .file(let file) = sink { spooling = file.isSpool } else { spooling = false }
    encoder.bytes.reserveCapacity((1 << 20) + (1 << 16))
    eventEnds.reserveCapacity(1 << 16)
    // A crash before the first flush merges up to 64 threads' buffers.
    crashCursors = [Int](repeating: 0, count: 2 * 64)
  }

  /// A plain file's writer; with `spool`, the file is a spool (see `TraceSpool`).
  init(
    descriptor: Int32, path: String, spool: Bool = false,
    onError: @escaping @Sendable (String) -> Void
  ) {
    self.init(
      sink: .file(
        TraceFileSink(descriptor: descriptor, path: path, spool: spool, onError: onError)))
  }

  /// A writer whose lines go to `buffer`: a spool's conversion.
  init(buffer: TraceByteSink) {
    self.init(sink: .buffer(buffer))
  }

  /// A rotating file's writer (see ``RotatingTraceFileSink``).
  init(
    descriptor: Int32, path: String, rotation: TraceRotation,
    onError: @escaping @Sendable (String) -> Void
  ) {
    self.init(
      sink: .rotating(
        RotatingTraceFileSink(
          descriptor: descriptor, path: path, rotation: rotation, onError: onError)))
  }

  /// A flight recorder's writer: lines go to memory; `crashDumpPath`, if any, receives the
  /// window when the process crashes (see ``FlightMemorySink``).
  init(window: FlightRecorderWindow, header: TraceHeader, crashDumpPath: String?) {
    self.init(
      sink: .memory(FlightMemorySink(window: window, header: header, crashDumpPath: crashDumpPath)))
  }

  var isOpen: Bool { sink.isOpen }
  /// Whether the writer follows what a context needs (see ``TraceContext``).
  private func tracksContext<IDs: IDPolicy>(_: IDs.Type) -> Bool { IDs.keepsIDs && !crashing }

  /// Writes the header; false, with the reason in `errno`, if the file takes nothing.
  mutating func writeHeader(_ header: TraceHeader) -> Bool {
    sink.writeHeader(header)
  }

  /// The ids of the actions live now, for a writer that keeps the recorder's ids (a flight
  /// recorder, a rotating file): new ids must not repeat them (see `ActionIDCounter`). Nil for a
  /// file that numbers actions itself.
  var liveActionIDs: [UInt32]? { keepsIDs ? context.liveActionIDs : nil }

  /// Takes scheduler and call-site definitions and mark texts; each is written with the first
  /// event that needs it.
  mutating func define(_ definitions: RecorderCore.Definitions) {
    if spooling {
      guard
        !(definitions.schedulers.isEmpty && definitions.sites.isEmpty && definitions.marks.isEmpty
          && definitions.works.isEmpty && definitions.taskNames.isEmpty)
      else { return }
      TraceSpool.appendDefinitions(
        schedulers: definitions.schedulers, sites: definitions.sites, marks: definitions.marks,
        works: definitions.works, taskNames: definitions.taskNames, to: &encoder.bytes)
      return
    }
    for scheduler in definitions.schedulers { pendingSchedulers[scheduler.id] = scheduler }
    for site in definitions.sites { pendingSites[site.id] = site }
    for mark in definitions.marks { pendingMarks[mark.index] = mark.record }
    for work in definitions.works { pendingWorks[work.index] = work.record }
    for task in definitions.taskNames { pendingTaskNames[task.index] = task.name }
  }

  /// Makes room, outside any crash, for what the crash path may need: ids up to `maxActionID`,
  /// `threads` thread names and the merge of that many threads' buffers, and some to spare for
  /// threads that start before the next flush.
  mutating func reserveForCrash(maxActionID: UInt32, threads: Int) {
    if !keepsIDs { actionIDs.reserve(upTo: maxActionID) }
    namedThreads.reserveCapacity(threads + 64)
    crashWrittenSchedulers.reserveCapacity(Self.crashDefinitionRoom)
    crashWrittenSites.reserveCapacity(Self.crashDefinitionRoom)
    // A source per buffer and per run held back from the last flush (at most one a buffer).
    let cursors = 2 * (2 * threads + 64)
    if crashCursors.count < cursors {
      crashCursors = [Int](repeating: 0, count: cursors)
    }
  }

  /// The file descriptor lines go to now, or -1 (a flight recorder's memory, a failed or closed
  /// file): for the crash path's last resort (see `RecorderCore.writeAfterCrash(signal:)`).
  var currentDescriptor: Int32 { sink.currentDescriptor }

  /// The `t` of the last line written.
  var lastWrittenTime: Int64 { lastTime }

  /// Learns a thread's name; it is written before the thread's first event.
  mutating func nameThread(_ id: UInt32, _ name: String) {
    if spooling {
      if namedThreads.insert(id).inserted {
        TraceSpool.appendThread(id: id, name: name, to: &encoder.bytes)
      }
      return
    }
    if !namedThreads.contains(id) { threadNames[id] = name }
  }

  /// Writes the events stamped up to `cutoff` in time order, merging the threads' runs (each
  /// already in order) so that each thread's own order is kept. Later events wait for the next
  /// call.
  mutating func write(runs newRuns: [[TraceEvent]], upTo cutoff: Int64, dropped: Int64) {
    if spooling { return spool(runs: newRuns, upTo: cutoff, dropped: dropped) }
    self.dropped += dropped
    var runs = carried
    carried.removeAll()
    for run in newRuns where !run.isEmpty {
      // A thread's run is in time order and usually all before the cut: search from the end.
      let split = run.lastIndex { $0.time <= cutoff }.map { $0 + 1 } ?? 0
      if split < run.endIndex { carried.append(Array(run[split...])) }
      if split > 0 { runs.append(split == run.endIndex ? run : Array(run[..<split])) }
    }
    if sink.failed, !crashing {
      sink.restartAfterFailure(
        time: lastTime, written: written, dropped: self.dropped, context: context)
    }
    if sink.failed {
      // The file is gone; what would have been written is lost, and counted as such.
      self.dropped += Int64(runs.reduce(0) { $0 + $1.count })
      encoder.bytes.removeAll(keepingCapacity: true)
      return
    }
    if dropped > 0 {
      encoder.dropped(time: lastTime, count: dropped)
      sink.noteDropped(dropped)
    }
    encoder.bytes.reserveCapacity((1 << 20) + (1 << 12))
    chunkLimit = sink.chunkLimit
    if keepsIDs {
      encode(runs, KeepingRecorderIDs.self)
    } else {
      encode(runs, NumberingIDsDensely.self)
    }
    emit()
    sink.endBatch(time: lastTime, written: written, dropped: self.dropped, context: context)
  }

  /// Writes the window, up to `time`, to `path` as a trace of its own (a flight recorder's: see
  /// ``FlightMemorySink``), with the definitions nothing used yet before its end marker.
  func dump(to path: String, time: Int64) throws(TraceRecorderError) {
    let end = max(time, lastTime)
    var unused = TraceEncoder()
    Self.encodeUnusedDefinitions(pendingSchedulers, pendingSites, time: end, into: &unused)
    try sink.dump(to: path, end: end, unusedDefinitions: unused.bytes)
  }

  /// Definitions nothing used, so that every scheduler made still shows as a lane.
  private static func encodeUnusedDefinitions(
    _ schedulers: [UInt32: SchedulerRecord], _ sites: [UInt32: CallSiteRecord], time: Int64,
    into encoder: inout TraceEncoder
  ) {
    for var scheduler in schedulers.values.sorted(by: { $0.id < $1.id }) {
      scheduler.time = time
      encoder.scheduler(scheduler)
    }
    for site in sites.values.sorted(by: { $0.id < $1.id }) { encoder.callSite(site, time: time) }
  }

  /// Writes what the threads have buffered and what the last flush held back, merged by time,
  /// then a `crash` line: the crash path, run from a signal handler. It allocates nothing while
  /// the reserved capacities hold (see `init(sink:)`).
  mutating func writeAfterCrash(
    buffers: [ThreadBuffer], definitions: RecorderCore.Definitions?, signal: StaticString,
    thread: UInt32, time: Int64, cut: Int64
  ) {
    crashing = true
    crashDefinitions = definitions
    // A flight recorder writes its window to the crash dump, then carries on as a file would.
    guard sink.beginCrash() else { return }
    if spooling {
      return spoolAfterCrash(
        buffers: buffers, definitions: definitions, signal: signal, thread: thread, time: time,
        cut: cut)
    }
    // Two numbers per source, the next position and the end, in room made outside the crash
    // (`withUnsafeTemporaryAllocation` may call malloc, whose lock the interrupted thread may
    // hold). Threads that started since the last flush, beyond the room's slack, are left out.
    let held = min(carried.count, crashCursors.count / 2)
    let sources = min(held + buffers.count, crashCursors.count / 2)
    // Taken out while the loop encodes (which needs `self`); an empty array allocates nothing.
    var room: [Int] = []
    swap(&room, &crashCursors)
    defer { swap(&room, &crashCursors) }
    room.withUnsafeMutableBufferPointer { cursors in
      // Plain index loops: a generic sequence met for the first time (an `EnumeratedSequence`
      // in a debug build) makes the runtime allocate its metadata, under malloc's lock.
      var index = 0
      while index < held {
        cursors[2 * index] = 0
        cursors[2 * index + 1] = carried[index].count
        index += 1
      }
      while index < sources {
        let range = buffers[index - held].publishedPositions()
        cursors[2 * index] = range.lowerBound
        cursors[2 * index + 1] = range.upperBound
        index += 1
      }
      while true {
        var best = -1
        var bestTime = Int64.max
        var source = 0
        while source < sources {
          defer { source += 1 }
          let position = cursors[2 * source]
          guard position < cursors[2 * source + 1] else { continue }
          let time =
            source < held
            ? carried[source][position].time : buffers[source - held].event(at: position).time
          // Past the cut: after the trace's end (each source is in time order).
          guard time <= cut else {
            cursors[2 * source + 1] = position
            continue
          }
          if best < 0 || time < bestTime {
            best = source
            bestTime = time
          }
        }
        guard best >= 0 else { break }
        let position = cursors[2 * best]
        let event = best < held ? carried[best][position] : buffers[best - held].event(at: position)
        if keepsIDs {
          encode(event, KeepingRecorderIDs.self)
        } else {
          encode(event, NumberingIDsDensely.self)
        }
        cursors[2 * best] = position + 1
      }
    }
    // Events a full ring turned away since the last flush (a writer that fell behind): after
    // what the rings held, as they came after it, so the trace says what it lost.
    var lost: Int64 = 0
    var index = 0
    while index < buffers.count {
      lost &+= buffers[index].takeDropped()
      index += 1
    }
    if lost > 0 {
      encoder.dropped(time: lastTime, count: lost)
      dropped &+= lost
    }
    encoder.crash(time: max(time, lastTime), signal: signal, thread: thread)
    emit(reporting: false)
    sink.endCrash()  // nothing more: the process is going down
  }

  /// A batch as a spool holds it: each thread's run as its ring gave it, then the cut and the
  /// count of events the rings dropped. The conversion merges them and holds back what is past
  /// the cut, as ``write(runs:upTo:dropped:)`` does here for a trace.
  private mutating func spool(runs: [[TraceEvent]], upTo cutoff: Int64, dropped: Int64) {
    self.dropped += dropped
    if sink.failed {
      self.dropped += Int64(runs.reduce(0) { $0 + $1.count })
      encoder.bytes.removeAll(keepingCapacity: true)
      return
    }
    encoder.bytes.reserveCapacity((1 << 20) + (1 << 12))
    for run in runs where !run.isEmpty {
      spoolRun(count: run.count) { run[$0] }
      lastTime = max(lastTime, min(run[run.count - 1].time, cutoff))
    }
    TraceSpool.appendBatchEnd(cut: cutoff, dropped: dropped, to: &encoder.bytes)
    emit()
  }

  /// Spools a run of `count` events, read with `event`, writing a chunk whenever one is full.
  /// Allocates nothing (the crash path) while the encoder's reserved capacity holds.
  @inline(__always)
  private mutating func spoolRun(count: Int, _ event: (Int) -> TraceEvent) {
    TraceSpool.appendRunStart(to: &encoder.bytes)
    var index = 0
    while index < count {
      TraceSpool.appendEvent(event(index), to: &encoder.bytes)
      eventEnds.append(encoder.bytes.count)
      if encoder.bytes.count >= chunkLimit { emit(reporting: !crashing) }
      index += 1
    }
  }

  /// The crash path of a spool: the definitions made since the last flush (when there is room
  /// for them), what each thread's ring holds, the cut with the events the rings turned away,
  /// and the crash. Allocates nothing while the reserved capacities hold: loops over indices,
  /// records built in the encoder's room.
  private mutating func spoolAfterCrash(
    buffers: [ThreadBuffer], definitions: RecorderCore.Definitions?, signal: StaticString,
    thread: UInt32, time: Int64, cut: Int64
  ) {
    if let definitions {
      let size = TraceSpool.definitionsSize(
        schedulers: definitions.schedulers, sites: definitions.sites, marks: definitions.marks,
        works: definitions.works, taskNames: definitions.taskNames)
      if encoder.bytes.capacity &- encoder.bytes.count < size { emit(reporting: false) }
      if encoder.bytes.capacity &- encoder.bytes.count >= size {
        TraceSpool.appendDefinitions(
          schedulers: definitions.schedulers, sites: definitions.sites, marks: definitions.marks,
          works: definitions.works, taskNames: definitions.taskNames, to: &encoder.bytes)
      }
    }
    var lost: Int64 = 0
    var index = 0
    while index < buffers.count {
      let buffer = buffers[index]
      let positions = buffer.publishedPositions()
      if !positions.isEmpty {
        spoolRun(count: positions.count) { buffer.event(at: positions.lowerBound &+ $0) }
      }
      lost &+= buffer.takeDropped()
      index += 1
    }
    dropped &+= lost
    TraceSpool.appendBatchEnd(cut: cut, dropped: lost, to: &encoder.bytes)
    TraceSpool.appendCrash(
      time: max(time, lastTime), thread: thread, signal: signal, to: &encoder.bytes)
    emit(reporting: false)
    sink.endCrash()
  }

  /// Ends a spool's conversion where the spool stops without its close or crash record (its
  /// process killed): the events of a flush it did not finish writing, and those held back past
  /// the last cut, are left out — a cause among them may be missing — and counted in a `dropped`
  /// line. Returns how many.
  mutating func endCutShort(unfinished: Int) -> Int64 {
    let lost = Int64(unfinished) + Int64(carried.reduce(0) { $0 + $1.count })
    carried.removeAll()
    if lost > 0 {
      encoder.dropped(time: lastTime, count: lost)
      dropped += lost
      emit()
    }
    return lost
  }

  /// Writes a spool's crash record as the trace's `crash` line (its conversion).
  mutating func writeCrash(time: Int64, thread: UInt32, signal: String) {
    encoder.crash(time: max(time, lastTime), signalName: signal, thread: thread)
    emit()
    isClosed = true
  }

  /// Writes a spool's record of a failed write as the trace's last line (its conversion).
  mutating func writeFailure(time: Int64, dropped count: Int64, reason: String) {
    encoder.writeFailed(time: max(time, lastTime), dropped: count, reason: reason)
    dropped += count
    emit()
    isClosed = true
  }

  /// Encodes `runs` merged by time, with the action ids `IDs` says: one loop per policy.
  private mutating func encode<IDs: IDPolicy>(_ runs: [[TraceEvent]], _ ids: IDs.Type) {
    if runs.count == 1 {
      for event in runs[0] { encode(event, ids) }
    } else {
      merge(runs, ids)
    }
  }

  private mutating func merge<IDs: IDPolicy>(_ runs: [[TraceEvent]], _ ids: IDs.Type) {
    var heads = Heap<Head>()
    for (run, events) in runs.enumerated() where !events.isEmpty {
      heads.insert(Head(time: events[0].time, run: run, index: 0))
    }
    while let head = heads.popMin() {
      encode(runs[head.run][head.index], ids)
      let next = head.index + 1
      if next < runs[head.run].count {
        heads.insert(Head(time: runs[head.run][next].time, run: head.run, index: next))
      }
    }
  }

  private mutating func encode<IDs: IDPolicy>(_ recorded: TraceEvent, _ ids: IDs.Type) {
    let event =
      IDs.keepsIDs ? recorded : recorded.mappingActionIDs { actionIDs.fileID(for: $0) }
    let tracksContext = tracksContext(ids)
    lastTime = max(lastTime, event.time)
    defineWhatIsUsed(by: event, tracksContext: tracksContext)
    // Fields are written in key order, and sorting allocates: the crash path, which must not,
    // writes a mark's or a work's name alone.
    if event.kind == .mark {
      if tracksContext { context.note(event) }
      let mark = pendingMarks.removeValue(forKey: event.site) ?? crashMark(event.site)
      encoder.event(event, mark: crashing ? mark.map { MarkRecord(name: $0.name) } : mark)
    } else if event.kind == .work {
      let work = pendingWorks.removeValue(forKey: event.site) ?? crashWork(event.site)
      if tracksContext { context.note(event, work: work) }
      encoder.event(event, work: crashing ? work.map { WorkRecord(name: $0.name) } : work)
    } else if event.kind == .task {
      let name = event.site == 0 ? nil : pendingTaskNames.removeValue(forKey: event.site)
      if tracksContext { context.note(event, taskName: name) }
      encoder.event(event, taskName: name)
    } else {
      if tracksContext { context.note(event) }
      encoder.event(event)
    }
    eventEnds.append(encoder.bytes.count)
    // Write in chunks, so a big flush never builds one huge buffer, and a rotating file ends
    // where its size limit falls, not where the flush does.
    if encoder.bytes.count >= chunkLimit { emitChunk() }
  }

  /// Writes what is encoded, then rotates a rotating file that is full (outside a crash), so a
  /// flush of any size keeps each file to its size limit and the line that crosses it.
  private mutating func emitChunk() {
    emit()
    guard !crashing else { return }
    sink.rotateIfFull(time: lastTime, written: written, dropped: dropped, context: context)
    chunkLimit = sink.chunkLimit
  }

  /// A mark defined since the last flush, on the crash path (a linear search, allocating nothing).
  private func crashMark(_ index: UInt32) -> MarkRecord? {
    crashDefinitions?.marks.first { $0.index == index }?.record
  }

  /// A named work defined since the last flush, on the crash path.
  private func crashWork(_ index: UInt32) -> WorkRecord? {
    crashDefinitions?.works.first { $0.index == index }?.record
  }

  /// Writes the definitions `event` refers to that are not in the file yet, dated with it.
  @inline(__always)
  private mutating func defineWhatIsUsed(by event: TraceEvent, tracksContext: Bool) {
    // A task or work line names no thread, and follows its schedule.
    guard event.kind != .task, event.kind != .work else { return }
    if event.thread != lastThread {
      lastThread = event.thread
      if namedThreads.insert(event.thread).inserted {
        let name = threadNames.removeValue(forKey: event.thread) ?? ""
        encoder.thread(id: event.thread, name: name, time: event.time)
        if tracksContext { context.defineThread(event.thread, name: name) }
      }
    }
    // Most schedules find nothing pending: the emptiness checks spare them two hashings. A wait
    // names a scheduler (the main one) and a site too.
    guard event.kind == .schedule || event.kind == .wait else { return }
    if !pendingSchedulers.isEmpty,
      var scheduler = pendingSchedulers.removeValue(forKey: event.scheduler)
    {
      scheduler.time = event.time
      encoder.scheduler(scheduler)
      if tracksContext { context.defineScheduler(scheduler) }
    }
    if event.site != 0, !pendingSites.isEmpty,
      let site = pendingSites.removeValue(forKey: event.site)
    {
      encoder.callSite(site, time: event.time)
      if tracksContext { context.defineSite(site) }
    }
    if crashing { defineFromCrashDefinitions(event) }
  }

  /// How many schedulers and how many sites defined since the last flush the crash path writes;
  /// past that, a site or scheduler stays undefined (`validate` says so) rather than allocate.
  static let crashDefinitionRoom = 1024

  /// On the crash path: writes the scheduler and call site `event` uses when they were defined
  /// since the last flush (``crashDefinitions``), and not yet written. Plain index loops and
  /// room made up front: nothing allocates (see `CrashFlush`).
  private mutating func defineFromCrashDefinitions(_ event: TraceEvent) {
    guard let definitions = crashDefinitions else { return }
    if !Self.holds(crashWrittenSchedulers, event.scheduler),
      crashWrittenSchedulers.count < crashWrittenSchedulers.capacity
    {
      var index = 0
      while index < definitions.schedulers.count {
        var scheduler = definitions.schedulers[index]
        index += 1
        guard scheduler.id == event.scheduler else { continue }
        guard
          makeCrashRoom(
            for: scheduler.label.utf8.count &+ scheduler.kind.utf8.count
              &+ scheduler.family.utf8.count)
        else { break }
        scheduler.time = event.time
        encoder.scheduler(scheduler)
        crashWrittenSchedulers.append(scheduler.id)
        break
      }
    }
    guard event.site != 0, !Self.holds(crashWrittenSites, event.site),
      crashWrittenSites.count < crashWrittenSites.capacity
    else { return }
    var index = 0
    while index < definitions.sites.count {
      let site = definitions.sites[index]
      index += 1
      guard site.id == event.site else { continue }
      let code = site.code.map { $0.module.utf8.count &+ $0.buildID.utf8.count } ?? 0
      guard makeCrashRoom(for: site.file.utf8.count &+ site.function.utf8.count &+ code) else {
        break
      }
      encoder.callSite(site, time: event.time)
      crashWrittenSites.append(site.id)
      break
    }
  }

  /// Whether `ids` holds `id` (a plain loop: the crash path meets no generic sequence).
  private static func holds(_ ids: [UInt32], _ id: UInt32) -> Bool {
    var index = 0
    while index < ids.count {
      if ids[index] == id { return true }
      index += 1
    }
    return false
  }

  /// Makes sure a definition whose strings take `stringBytes` fits in the room the encoder has,
  /// writing out what is encoded first when it would not; false when it cannot fit at all.
  private mutating func makeCrashRoom(for stringBytes: Int) -> Bool {
    // Escaped, a byte takes at most six (`\u001b`); the rest of the line is under 512.
    let needed = stringBytes &* 6 &+ 512
    if encoder.bytes.capacity &- encoder.bytes.count >= needed { return true }
    emitChunk()
    return encoder.bytes.capacity &- encoder.bytes.count >= needed
  }

  /// The next unwritten event of one run, ordered by time, then by run (earlier runs hold
  /// earlier appends).
  private struct Head: Comparable {
    var time: Int64
    var run: Int
    var index: Int

    static func < (lhs: Head, rhs: Head) -> Bool {
      (lhs.time, lhs.run) < (rhs.time, rhs.run)
    }
  }

  /// Writes the end marker, once, and closes the file; with `keepingFile`, leaves it open (a
  /// trace ended before an `exec`, which closes it if it succeeds: see ``cutBack(to:)``).
  mutating func close(time: Int64, keepingFile: Bool = false) {
    isClosed = true
    guard sink.hasOpenFile else {
      sink = .closed
      return
    }
    let time = max(time, lastTime)
    if spooling {
      TraceSpool.appendClose(time: time, to: &encoder.bytes)
      emit()
      guard !keepingFile else { return }
      sink.close()
      sink = .closed
      return
    }
    Self.encodeUnusedDefinitions(pendingSchedulers, pendingSites, time: time, into: &encoder)
    pendingSchedulers.removeAll()
    pendingSites.removeAll()
    // The end marker counts the events of this last write too: it is in the same write.
    let start = sink.fileStart
    encoder.closing(
      time: time,
      Trace.Closing(
        written: written + Int64(eventEnds.count) - start.written + start.contextEvents,
        dropped: dropped - start.dropped))
    emit()
    guard !keepingFile else { return }
    sink.close()
    sink = .closed
  }

  /// Where the file open now ends, when it is a regular file, which ``cutBack(to:)`` can cut
  /// back to; nil for a device, FIFO or socket, a flight recorder's memory, or no file.
  var regularFileEnd: Int64? {
    let descriptor = sink.currentDescriptor
    var status = stat()
    guard descriptor >= 0, fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG
    else { return nil }
    let end = lseek(descriptor, 0, SEEK_CUR)
    return end >= 0 ? Int64(end) : nil
  }

  /// Cuts the file open now back to `end` bytes and writes on from there; false if it cannot.
  func cutBack(to end: Int64) -> Bool {
    let descriptor = sink.currentDescriptor
    return descriptor >= 0 && ftruncate(descriptor, off_t(end)) == 0
      && lseek(descriptor, off_t(end), SEEK_SET) == off_t(end)
  }

  /// How many of the lines ending (after their newline) at `ends` a reader finds in a file that
  /// `reached` bytes of them made it to: a line cut short is not there, but one that lost only
  /// its newline is (a trace's last line needs none), so the writer's count of events written
  /// is what the file holds.
  package static func linesRead(ending ends: [Int], reached: Int) -> Int {
    ends.prefix { $0 - 1 <= reached }.count
  }

  /// Hands the encoded lines to the sink; on its first failure, the sink reports it (unless
  /// `reporting` is false) and stops writing for good. Returns whether all of it was written.
  @discardableResult
  private mutating func emit(reporting: Bool = true) -> Bool {
    defer {
      encoder.bytes.removeAll(keepingCapacity: true)
      eventEnds.removeAll(keepingCapacity: true)
    }
    let result = sink.write(
      encoder.bytes, ends: eventEnds, time: lastTime, crashing: crashing, reporting: reporting)
    written += Int64(result.kept)
    dropped += Int64(eventEnds.count - result.kept)
    return result.succeeded
  }

  /// The longest a write waits for a FIFO's reader to take something before the writer gives
  /// up: the app's exit, which flushes, never waits longer.
  static let stallLimitMilliseconds: Int32 = 2_000
}

/// The recorder's action ids mapped to the file's: 1, 2, 3… in order of first appearance.
///
/// The recorder hands ids out in blocks from one counter, so its ids are nearly dense too and a
/// table indexed by them costs 4 bytes per action recorded.
private struct DenseActionIDs {
  /// File id by recorder id; 0 for ids not seen yet.
  private var table: [UInt32] = []
  /// File ids of recorder ids far past the table's end: ids that jumped (a counter moved on
  /// near its wrap, or a spool made by hand), which a table would need gigabytes to hold.
  private var sparse: [UInt32: UInt32] = [:]
  private var last: UInt32 = 0

  /// The file's id for the recorder's `id`, handing out the next one on first sight.
  ///
  /// - Complexity: Amortized O(1).
  mutating func fileID(for id: UInt32) -> UInt32 {
    let index = Int(id)
    if index >= table.count {
      // The table at most doubles, and only while ids stay near it.
      guard index < max(2 * table.count, 1 << 20) else {
        if let known = sparse[id] { return known }
        last &+= 1
        sparse[id] = last
        return last
      }
      table.append(contentsOf: repeatElement(0, count: max(index + 1 - table.count, table.count)))
    }
    if table[index] == 0 {
      if !sparse.isEmpty, let known = sparse[id] {
        table[index] = known
        return known
      }
      last &+= 1
      table[index] = last
    }
    return table[index]
  }

  /// Grows the table to hold ids up to `id` now, so that a later lookup need not allocate.
  mutating func reserve(upTo id: UInt32) {
    let count = Int(id) + 1
    // As far as ``fileID(for:)`` would grow it; ids past that go to `sparse`.
    if count > table.count, count <= max(2 * table.count, 1 << 20) {
      table.append(contentsOf: repeatElement(0, count: count - table.count))
    }
  }
}

/// Whether a batch keeps the recorder's action ids (a sink that starts traces part way through,
/// which follows the live work too) or numbers them densely: a type, so that the batch's loop is
/// specialised for it (a flag tested per event measurably cost more: see `Benchmarks/README.md`).
private protocol IDPolicy {
  static var keepsIDs: Bool { get }
}

private enum KeepingRecorderIDs: IDPolicy {
  static var keepsIDs: Bool { true }
}

private enum NumberingIDsDensely: IDPolicy {
  static var keepsIDs: Bool { false }
}
