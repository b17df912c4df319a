import Foundation
import HeapModule
import Scheduling
import TraceFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns batches of events into trace lines and writes them to the file descriptor.
///
/// What it guarantees about the file, beyond each thread's own order:
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
/// A flight recorder's writer keeps the lines in memory instead (``FlightMemory``) and writes
/// them out on a dump or a crash; there, action ids are the recorder's own, since a table mapping
/// them would grow with every action ever recorded.
///
/// Only ever used under the recorder's writer lock.
package struct TraceWriter {
  private var descriptor: Int32
  /// Whether ``close(time:)`` has run: the end marker is written once.
  private(set) var isClosed = false
  private let path: String
  private let onError: @Sendable (String) -> Void
  private var failed = false
  /// Whether a failure was reported: once, however often the writer starts again.
  private var reported = false
  /// Set on the crash path: failures are not reported (that would call the app's code).
  private var crashing = false
  /// On the crash path, the definitions recorded since the last flush, if their lock was free:
  /// read in place for the names of marks and works that have no pending entry yet.
  private var crashDefinitions: RecorderCore.Definitions?
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
  /// Events whose lines reached the file.
  private(set) var written: Int64 = 0
  /// Where each event line encoded since the last write ends in `encoder.bytes`: when a write
  /// fails part way, the lines that made it count as written and the rest as dropped.
  private var eventEnds: [Int] = []
  private(set) var dropped: Int64 = 0

  // A flight recorder's state: the window, the live work and every definition written, for the
  // contexts; the header, and the crash dump's path and header, made ready outside any crash.
  private var memory: FlightMemory?
  private var live = LiveActions()
  private var definedThreads: [(id: UInt32, name: String)] = []
  private var definedSchedulers: [SchedulerRecord] = []
  private var definedSites: [CallSiteRecord] = []
  private var header: TraceHeader?
  private var crashPath: [CChar]?
  private var crashHeader: [UInt8] = []

  /// Reserves room up front, so the crash path can encode a full chunk without allocating.
  init(descriptor: Int32, path: String, onError: @escaping @Sendable (String) -> Void) {
    self.descriptor = descriptor
    self.path = path
    self.onError = onError
    encoder.bytes.reserveCapacity((1 << 20) + (1 << 16))
    eventEnds.reserveCapacity(1 << 16)
  }

  /// A rotating file's writer: when the file at `path` passes `rotation.maxBytes`, it is closed
  /// and renamed, and a new file opens with the context it needs.
  init(
    descriptor: Int32, path: String, rotation: TraceRotation,
    onError: @escaping @Sendable (String) -> Void
  ) {
    self.init(descriptor: descriptor, path: path, onError: onError)
    self.rotation = (rotation, TraceHeader(clock: .host, start: "", process: "", pid: 0))
  }

  /// A flight recorder's writer: lines go to memory; `crashDumpPath`, if any, receives the
  /// window when the process crashes.
  init(
    window: FlightRecorderWindow, header: TraceHeader, crashDumpPath: String?,
    onError: @escaping @Sendable (String) -> Void
  ) {
    self.init(descriptor: -1, path: "memory", onError: onError)
    memory = FlightMemory(window: window)
    self.header = header
    crashPath = crashDumpPath.map { Array($0.utf8CString) }
    prepareCrashHeader()
  }

  var isOpen: Bool { descriptor >= 0 || memory != nil }
  /// Whether the writer follows what a context needs: a flight recorder does, and so does a
  /// rotating file. Both keep the recorder's ids (see the type's comment), since their files do
  /// not start from the recording's start anyway.
  private var tracksContext: Bool { (memory != nil || rotation != nil) && !crashing }
  private var keepsIDs: Bool { memory != nil || rotation != nil }

  // A rotating file's state: the limits and the header; where this file began (the counts and
  // the context's events at its start); its size; where its header's `slice_to_ns` placeholder
  // is, to be filled in when the file is rotated out.
  private var rotation: (limits: TraceRotation, header: TraceHeader)?
  private var fileBytes = 0
  private var fileStart: (written: Int64, dropped: Int64, contextEvents: Int64) = (0, 0, 0)
  private var placeholderOffset: Int?

  /// Writes the header; false, with the reason in `errno`, if the file takes nothing.
  mutating func writeHeader(_ header: TraceHeader) -> Bool {
    if let limits = rotation?.limits {
      rotation = (limits, header)
      return writeRotatingHeader(from: 0)
    }
    encoder.header(header)
    return emit(reporting: false)
  }

  // MARK: - Rotation

  /// The header of a rotating file: the recorder's, marked as a window from `from` to a
  /// placeholder end (the largest time, as long as any end) that ``rotate()`` fills in.
  private mutating func writeRotatingHeader(from: Int64) -> Bool {
    guard var header = rotation?.header else { return false }
    header.metadata[TraceHeader.sliceSourceKey] = (path as NSString).lastPathComponent
    header.metadata[TraceHeader.sliceFromKey] = String(from)
    header.metadata[TraceHeader.sliceToKey] = String(TraceLimits.maximumTime)
    encoder.header(header)
    let value = String(TraceLimits.maximumTime)
    let placeholder = Array("\"\(TraceHeader.sliceToKey)\":\"\(value)\"".utf8)
    placeholderOffset = encoder.bytes.firstRange(of: placeholder).map {
      $0.upperBound - 1 - value.utf8.count
    }
    return emit(reporting: false)
  }

  /// The file name of the `generation`th older file: `app.2.trace` for `app.trace`.
  private func rotatedPath(_ generation: Int) -> String {
    let url = URL(fileURLWithPath: path)
    let ext = url.pathExtension
    let name = (ext.isEmpty ? url : url.deletingPathExtension()).path + ".\(generation)"
    return ext.isEmpty ? name : name + "." + ext
  }

  /// Ends the file (its end marker, its header's window end), shifts the older files along,
  /// and starts a new file with the context of the work live now.
  private mutating func rotate() {
    guard rotation != nil, descriptor >= 0, !failed else { return }
    encoder.closing(
      time: lastTime,
      Trace.Closing(
        written: written - fileStart.written + fileStart.contextEvents,
        dropped: dropped - fileStart.dropped))
    emit()
    retire()
    startFile()
  }

  /// A rotating file whose write failed starts over at the next flush, as a rotation would: the
  /// failed file (its last line says why) is rotated out, and when there is room again, the
  /// recording goes on in a new one. While there is none, no file is left half made.
  private mutating func restartAfterFailure() {
    guard rotation != nil, !crashing else { return }
    if descriptor >= 0 { retire() }
    failed = false
    startFile()
    guard failed else { return }
    if descriptor >= 0 { _ = systemClose(descriptor) }
    descriptor = -1
    unlink(path)
  }

  /// Fills in the current file's window end, closes it and shifts the older files along.
  private mutating func retire() {
    guard let limits = rotation?.limits else { return }
    if let placeholderOffset {
      // Zero-padded to the placeholder's width: readers take "0000000001234" as 1234.
      let width = String(TraceLimits.maximumTime).utf8.count
      let text = String(lastTime)
      let padded = Array(
        (String(repeating: "0", count: max(width - text.utf8.count, 0)) + text).utf8)
      _ = padded.withUnsafeBytes {
        pwrite(descriptor, $0.baseAddress, $0.count, off_t(placeholderOffset))
      }
    }
    _ = systemClose(descriptor)
    descriptor = -1
    if limits.keep > 0 {
      for generation in stride(from: limits.keep - 1, through: 1, by: -1) {
        rename(rotatedPath(generation), rotatedPath(generation + 1))
      }
      rename(path, rotatedPath(1))
    } else {
      unlink(path)
    }
  }

  /// Opens a new file at the recorder's path, with a header and the context of the work live
  /// now; on a failure, `failed` is set.
  private mutating func startFile() {
    descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    fileBytes = 0
    guard descriptor >= 0, writeRotatingHeader(from: lastTime) else {
      failed = true
      if !reported {
        reported = true
        onError(
          "chronoscope: starting a new \(path) failed: \(String(cString: strerror(errno))); recording stopped"
        )
      }
      return
    }
    let context = contextLines(at: lastTime)
    encoder.bytes.append(contentsOf: context.bytes)
    fileStart = (written, dropped, context.events)
    emit()
  }

  /// The ids of the actions live now, for a writer that keeps the recorder's ids (a flight
  /// recorder, a rotating file): new ids must not repeat them (see `ActionIDCounter`). Nil for a
  /// file that numbers actions itself.
  var liveActionIDs: [UInt32]? { keepsIDs ? live.ids : nil }

  /// Takes scheduler and call-site definitions and mark texts; each is written with the first
  /// event that needs it.
  mutating func define(_ definitions: RecorderCore.Definitions) {
    for scheduler in definitions.schedulers { pendingSchedulers[scheduler.id] = scheduler }
    for site in definitions.sites { pendingSites[site.id] = site }
    for mark in definitions.marks { pendingMarks[mark.index] = mark.record }
    for work in definitions.works { pendingWorks[work.index] = work.record }
    for task in definitions.taskNames { pendingTaskNames[task.index] = task.name }
  }

  /// Makes room, outside any crash, for what the crash path may need: ids up to `maxActionID`
  /// and `threads` thread names.
  mutating func reserveForCrash(maxActionID: UInt32, threads: Int) {
    if !keepsIDs { actionIDs.reserve(upTo: maxActionID) }
    namedThreads.reserveCapacity(threads + 16)
  }

  /// Learns a thread's name; it is written before the thread's first event.
  mutating func nameThread(_ id: UInt32, _ name: String) {
    if !namedThreads.contains(id) { threadNames[id] = name }
  }

  /// Writes the events stamped up to `cutoff` in time order, merging the threads' runs (each
  /// already in order) so that each thread's own order is kept. Later events wait for the next
  /// call.
  mutating func write(runs newRuns: [[TraceEvent]], upTo cutoff: Int64, dropped: Int64) {
    self.dropped += dropped
    var runs = carried
    carried.removeAll()
    for run in newRuns where !run.isEmpty {
      // A thread's run is in time order and usually all before the cut: search from the end.
      let split = run.lastIndex { $0.time <= cutoff }.map { $0 + 1 } ?? 0
      if split < run.endIndex { carried.append(Array(run[split...])) }
      if split > 0 { runs.append(split == run.endIndex ? run : Array(run[..<split])) }
    }
    if failed { restartAfterFailure() }
    if failed {
      // The file is gone; what would have been written is lost, and counted as such.
      self.dropped += Int64(runs.reduce(0) { $0 + $1.count })
      encoder.bytes.removeAll(keepingCapacity: true)
      return
    }
    if dropped > 0 {
      encoder.dropped(time: lastTime, count: dropped)
      memory?.noteDropped(dropped)
    }
    encoder.bytes.reserveCapacity((1 << 20) + (1 << 12))
    if runs.count == 1 {
      for event in runs[0] { encode(event) }
    } else {
      merge(runs)
    }
    emit()
    if let memory, memory.newestIsFull(at: lastTime) { startSegment() }
    if let limits = rotation?.limits, fileBytes >= limits.maxBytes { rotate() }
  }

  // MARK: - Flight recorder

  /// Closes the newest segment and opens one whose context describes the work live now.
  private mutating func startSegment() {
    let context = contextLines(at: lastTime)
    memory?.startSegment(at: lastTime, context: context.bytes, contextEvents: context.events)
    prepareCrashHeader()
  }

  /// The lines that make what follows `start` a trace of its own: every definition written so
  /// far, then the lines of the work live at `start` (see ``FlightMemory``), in time order.
  private func contextLines(at start: Int64) -> (bytes: [UInt8], events: Int64) {
    let (events, works, taskNames) = live.events
    let time = events.first?.time ?? start
    var context = TraceEncoder()
    for thread in definedThreads { context.thread(id: thread.id, name: thread.name, time: time) }
    for var scheduler in definedSchedulers {
      scheduler.time = time
      context.scheduler(scheduler)
    }
    for site in definedSites { context.callSite(site, time: time) }
    for event in events {
      context.event(
        event, work: works[event.action],
        taskName: event.kind == .task ? taskNames[event.action] : nil)
    }
    return (context.bytes, Int64(events.count))
  }

  /// The header of a dump whose window starts at the oldest segment and ends at `end`.
  private func dumpHeader(end: Int64) -> TraceHeader? {
    guard var header, let memory else { return nil }
    let process = header.process.isEmpty ? "process" : header.process
    header.metadata[TraceHeader.sliceSourceKey] =
      "flight recorder of \(process) (pid \(header.pid))"
    header.metadata[TraceHeader.sliceFromKey] = String(memory.segments[0].start)
    header.metadata[TraceHeader.sliceToKey] = String(max(end, memory.segments[0].start))
    return header
  }

  /// The crash dump's header, made whenever the oldest segment changes: a crash must not
  /// allocate. Its window runs to the end of time: the dump ends where the process did.
  private mutating func prepareCrashHeader() {
    guard crashPath != nil, let header = dumpHeader(end: TraceLimits.maximumTime) else { return }
    var encoder = TraceEncoder()
    encoder.header(header)
    crashHeader = encoder.bytes
  }

  /// Writes the window to `path` as a trace of its own, closed at `time`: a header saying which
  /// window it holds, the oldest segment's context, every segment's lines, the definitions
  /// nothing used yet, and an end marker. Written as `OutputFile` writes (a temporary file renamed
  /// into place, so a reader never sees half a dump; a device or FIFO in place).
  func dump(to path: String, time: Int64) throws(TraceRecorderError) {
    let end = max(time, lastTime)
    guard let memory, let header = dumpHeader(end: end) else {
      throw .cannotWrite(path: path, reason: "the recorder is closed")
    }
    var head = TraceEncoder()
    head.header(header)
    var tail = TraceEncoder()
    for var scheduler in pendingSchedulers.values.sorted(by: { $0.id < $1.id }) {
      scheduler.time = end
      tail.scheduler(scheduler)
    }
    for site in pendingSites.values.sorted(by: { $0.id < $1.id }) { tail.callSite(site, time: end) }
    let counts = memory.counts
    tail.closing(time: end, Trace.Closing(written: counts.events, dropped: counts.dropped))
    FileSizeLimit.survive
    let file: OutputFile
    do throws(OutputFile.Failure) {
      file = try OutputFile(path: path)
    } catch {
      throw .cannotOpen(path: path, reason: error.reason)
    }
    guard
      writeWindow(memory, after: head.bytes, to: file.descriptor)
        && writeAll(file.descriptor, tail.bytes)
    else {
      let reason = String(cString: strerror(errno))
      file.abandon()
      throw .cannotWrite(path: path, reason: reason)
    }
    do throws(OutputFile.Failure) {
      try file.commit()
    } catch {
      throw .cannotWrite(path: path, reason: error.reason)
    }
  }

  /// Writes `header`, the oldest segment's context and every segment's lines to `file`; false
  /// when a write fails. Allocates nothing: the crash path uses it.
  private func writeWindow(_ memory: FlightMemory, after header: [UInt8], to file: Int32) -> Bool {
    guard writeAll(file, header), writeAll(file, memory.segments[0].context) else { return false }
    return memory.segments.allSatisfy { writeAll(file, $0.lines) }
  }

  /// Writes what the threads have buffered and what the last flush held back, merged by time,
  /// then a `crash` line: the crash path, run from a signal handler. It allocates nothing while
  /// the reserved capacities hold (see ``init(descriptor:path:onError:)``).
  mutating func writeAfterCrash(
    buffers: [ThreadBuffer], definitions: RecorderCore.Definitions?, signal: StaticString,
    thread: UInt32, time: Int64
  ) {
    crashing = true
    crashDefinitions = definitions
    if let memory, let crashPath {
      // A flight recorder writes its window to the crash dump, then carries on as a file would.
      let file = crashPath.withUnsafeBufferPointer { name in
        name.baseAddress.map { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) } ?? -1
      }
      guard file >= 0 else { return }
      _ = writeWindow(memory, after: crashHeader, to: file)
      descriptor = file
    }
    guard descriptor >= 0, !failed else { return }
    let held = carried.count
    let sources = held + buffers.count
    // Two numbers per source: the next position and the end.
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * max(sources, 1)) { cursors in
      for index in 0..<held {
        cursors[2 * index] = 0
        cursors[2 * index + 1] = carried[index].count
      }
      for (offset, buffer) in buffers.enumerated() {
        let range = buffer.publishedPositions()
        cursors[2 * (held + offset)] = range.lowerBound
        cursors[2 * (held + offset) + 1] = range.upperBound
      }
      while true {
        var best = -1
        var bestTime = Int64.max
        for source in 0..<sources where cursors[2 * source] < cursors[2 * source + 1] {
          let position = cursors[2 * source]
          let time =
            source < held
            ? carried[source][position].time : buffers[source - held].event(at: position).time
          if best < 0 || time < bestTime {
            best = source
            bestTime = time
          }
        }
        guard best >= 0 else { break }
        let position = cursors[2 * best]
        encode(best < held ? carried[best][position] : buffers[best - held].event(at: position))
        cursors[2 * best] = position + 1
      }
    }
    encoder.crash(time: max(time, lastTime), signal: signal, thread: thread)
    emit(reporting: false)
    descriptor = -1  // nothing more: the process is going down
  }

  private mutating func merge(_ runs: [[TraceEvent]]) {
    var heads = Heap<Head>()
    for (run, events) in runs.enumerated() where !events.isEmpty {
      heads.insert(Head(time: events[0].time, run: run, index: 0))
    }
    while let head = heads.popMin() {
      encode(runs[head.run][head.index])
      let next = head.index + 1
      if next < runs[head.run].count {
        heads.insert(Head(time: runs[head.run][next].time, run: head.run, index: next))
      }
    }
  }

  private mutating func encode(_ recorded: TraceEvent) {
    let event = keepsIDs ? recorded : recorded.mappingActionIDs { actionIDs.fileID(for: $0) }
    lastTime = max(lastTime, event.time)
    defineWhatIsUsed(by: event)
    // Fields are written in key order, and sorting allocates: the crash path, which must not,
    // writes a mark's or a work's name alone.
    if event.kind == .mark {
      if tracksContext { live.note(event) }
      let mark = pendingMarks.removeValue(forKey: event.site) ?? crashMark(event.site)
      encoder.event(event, mark: crashing ? mark.map { MarkRecord(name: $0.name) } : mark)
    } else if event.kind == .work {
      let work = pendingWorks.removeValue(forKey: event.site) ?? crashWork(event.site)
      if tracksContext { live.note(event, work: work) }
      encoder.event(event, work: crashing ? work.map { WorkRecord(name: $0.name) } : work)
    } else if event.kind == .task {
      let name = event.site == 0 ? nil : pendingTaskNames.removeValue(forKey: event.site)
      if tracksContext { live.note(event, taskName: name) }
      encoder.event(event, taskName: name)
    } else {
      if tracksContext { live.note(event) }
      encoder.event(event)
    }
    eventEnds.append(encoder.bytes.count)
    // Write in chunks, so a big flush never builds one huge buffer.
    if encoder.bytes.count >= 1 << 20 { emit() }
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
  private mutating func defineWhatIsUsed(by event: TraceEvent) {
    // A task or work line names no thread, and follows its schedule.
    guard event.kind != .task, event.kind != .work else { return }
    if event.thread != lastThread {
      lastThread = event.thread
      if namedThreads.insert(event.thread).inserted {
        let name = threadNames.removeValue(forKey: event.thread) ?? ""
        encoder.thread(id: event.thread, name: name, time: event.time)
        if tracksContext { definedThreads.append((event.thread, name)) }
      }
    }
    // Most schedules find nothing pending: the emptiness checks spare them two hashings.
    guard event.kind == .schedule else { return }
    if !pendingSchedulers.isEmpty,
      var scheduler = pendingSchedulers.removeValue(forKey: event.scheduler)
    {
      scheduler.time = event.time
      encoder.scheduler(scheduler)
      if tracksContext { definedSchedulers.append(scheduler) }
    }
    if event.site != 0, !pendingSites.isEmpty,
      let site = pendingSites.removeValue(forKey: event.site)
    {
      encoder.callSite(site, time: event.time)
      if tracksContext { definedSites.append(site) }
    }
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

  mutating func close(time: Int64) {
    isClosed = true
    memory = nil
    guard descriptor >= 0 else { return }
    let time = max(time, lastTime)
    // Definitions nothing used, so that every scheduler made still shows as a lane.
    for var scheduler in pendingSchedulers.values.sorted(by: { $0.id < $1.id }) {
      scheduler.time = time
      encoder.scheduler(scheduler)
    }
    for site in pendingSites.values.sorted(by: { $0.id < $1.id }) {
      encoder.callSite(site, time: time)
    }
    pendingSchedulers.removeAll()
    pendingSites.removeAll()
    // The end marker counts the events of this last write too: it is in the same write.
    encoder.closing(
      time: time,
      Trace.Closing(
        written: written + Int64(eventEnds.count) - fileStart.written + fileStart.contextEvents,
        dropped: dropped - fileStart.dropped))
    emit()
    _ = systemClose(descriptor)
    descriptor = -1
  }

  /// How many of the lines ending (after their newline) at `ends` a reader finds in a file that
  /// `reached` bytes of them made it to: a line cut short is not there, but one that lost only
  /// its newline is (a trace's last line needs none), so the writer's count of events written
  /// is what the file holds.
  package static func linesRead(ending ends: [Int], reached: Int) -> Int {
    ends.prefix { $0 - 1 <= reached }.count
  }

  /// Writes the encoded lines with `write(2)`, retrying short writes; on the first failure,
  /// reports it (unless `reporting` is false) and stops writing for good. Returns whether all
  /// of it was written.
  @discardableResult
  private mutating func emit(reporting: Bool = true) -> Bool {
    defer {
      encoder.bytes.removeAll(keepingCapacity: true)
      eventEnds.removeAll(keepingCapacity: true)
    }
    if memory != nil, !crashing {
      memory?.append(encoder.bytes, events: eventEnds.count)
      written += Int64(eventEnds.count)
      return true
    }
    guard descriptor >= 0, !failed, !encoder.bytes.isEmpty else {
      dropped += Int64(eventEnds.count)
      return !failed
    }
    let reached = writeReached(descriptor, encoder.bytes)
    let error = errno
    fileBytes += reached
    guard reached < encoder.bytes.count else {
      written += Int64(eventEnds.count)
      return true
    }
    failed = true
    let reason =
      error == EAGAIN
      ? "the reader took nothing for \(Self.stallLimitMilliseconds / 1000) s"
      : String(cString: strerror(error))
    // Outside the crash path, the file is cut back to its last whole line and ends with one
    // saying why (when the room freed holds it), so a reader reports a failed write, not a crash.
    let complete =
      (crashing ? nil : endAfterFailure(reached: reached, reason: reason))
      ?? Self.linesRead(ending: eventEnds, reached: reached)
    written += Int64(complete)
    dropped += Int64(eventEnds.count - complete)
    if reporting, !crashing, !reported {
      reported = true
      onError("chronoscope: writing \(path) failed: \(reason); recording stopped")
    }
    return false
  }

  /// The longest a write waits for a FIFO's reader to take something before the writer gives
  /// up: the app's exit, which flushes, never waits longer.
  static let stallLimitMilliseconds: Int32 = 2_000

  /// Ends a file whose write stopped `reached` bytes into the encoded lines: cuts it back to the
  /// last whole line and writes a line saying the write failed and why, dropping more of this
  /// write's lines while that line does not fit. Returns how many of this write's event lines the
  /// file keeps, or nil when the file cannot be cut (a FIFO, a device).
  private mutating func endAfterFailure(reached: Int, reason: String) -> Int? {
    let end = lseek(descriptor, 0, SEEK_CUR)
    guard end >= 0 else { return nil }
    let start = end - off_t(reached)
    var kept = eventEnds.prefix { $0 <= reached }.count
    var line = TraceEncoder()
    while true {
      let cut = start + off_t(kept == 0 ? 0 : eventEnds[kept - 1])
      guard ftruncate(descriptor, cut) == 0, lseek(descriptor, cut, SEEK_SET) == cut else {
        return nil
      }
      line.bytes.removeAll(keepingCapacity: true)
      // Readers add up the `dropped` lines: this one counts this write's lines that are lost.
      line.writeFailed(time: lastTime, dropped: Int64(eventEnds.count - kept), reason: reason)
      if writeAll(descriptor, line.bytes) { return kept }
      _ = ftruncate(descriptor, cut)
      guard kept > 0 else { return kept }
      kept -= 1
    }
  }
}

// `TraceWriter` has a `close(time:)` of its own; these name the system calls unambiguously.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
  close(descriptor)
}

/// Writes `bytes`, retrying short and interrupted writes, and returns how many reached the file:
/// fewer than `bytes.count` on a failure, with the reason in `errno`. Allocates nothing: the
/// crash path uses it.
private func writeReached(_ descriptor: Int32, _ bytes: [UInt8]) -> Int {
  // A FIFO whose reader went away raises SIGPIPE at the writing thread, which would end the
  // app: it is held back around the write and taken, so the write fails with EPIPE instead.
  var pipe = sigset_t()
  sigemptyset(&pipe)
  sigaddset(&pipe, SIGPIPE)
  var previous = sigset_t()
  pthread_sigmask(SIG_BLOCK, &pipe, &previous)
  let reached = writeReachedBlockingNothing(descriptor, bytes)
  let error = errno
  if error == EPIPE, sigismember(&previous, SIGPIPE) == 0 {
    var none = timespec()
    _ = sigtimedwait(&pipe, nil, &none)
  }
  pthread_sigmask(SIG_SETMASK, &previous, nil)
  errno = error
  return reached
}

/// ``writeReached(_:_:)``'s loop.
private func writeReachedBlockingNothing(_ descriptor: Int32, _ bytes: [UInt8]) -> Int {
  bytes.withUnsafeBytes { raw in
    guard let base = raw.baseAddress else { return 0 }
    var offset = 0
    while offset < raw.count {
      let count = systemWrite(descriptor, base + offset, raw.count - offset)
      if count < 0 {
        if errno == EINTR { continue }
        // A non-blocking FIFO that is full: wait a bounded time for its reader, then give up.
        if errno == EAGAIN {
          var wait = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
          if poll(&wait, 1, TraceWriter.stallLimitMilliseconds) > 0 { continue }
          errno = EAGAIN
        }
        break
      }
      offset += count
    }
    return offset
  }
}

/// Writes all of `bytes` (see ``writeReached(_:_:)``); false on a failure.
private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
  writeReached(descriptor, bytes) == bytes.count
}

/// The recorder's action ids mapped to the file's: 1, 2, 3… in order of first appearance.
///
/// The recorder hands ids out in blocks from one counter, so its ids are nearly dense too and a
/// table indexed by them costs 4 bytes per action recorded.
private struct DenseActionIDs {
  /// File id by recorder id; 0 for ids not seen yet.
  private var table: [UInt32] = []
  private var last: UInt32 = 0

  /// The file's id for the recorder's `id`, handing out the next one on first sight.
  ///
  /// - Complexity: Amortized O(1).
  mutating func fileID(for id: UInt32) -> UInt32 {
    let index = Int(id)
    if index >= table.count {
      table.append(contentsOf: repeatElement(0, count: max(index + 1 - table.count, table.count)))
    }
    if table[index] == 0 {
      last &+= 1
      table[index] = last
    }
    return table[index]
  }

  /// Grows the table to hold ids up to `id` now, so that a later lookup need not allocate.
  mutating func reserve(upTo id: UInt32) {
    let count = Int(id) + 1
    if count > table.count {
      table.append(contentsOf: repeatElement(0, count: count - table.count))
    }
  }
}
