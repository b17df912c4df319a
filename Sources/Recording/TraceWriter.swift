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
/// Only ever used under the recorder's writer lock.
struct TraceWriter {
  private var descriptor: Int32
  private let path: String
  private let onError: @Sendable (String) -> Void
  private var failed = false
  /// Set on the crash path: failures are not reported (that would call the app's code).
  private var crashing = false
  private var encoder = TraceEncoder()
  /// Events stamped after the last cut, written next time.
  private var carried: [[TraceEvent]] = []
  /// Mark texts whose events have not been written yet.
  private var pendingMarks: [UInt32: MarkRecord] = [:]
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

  /// Reserves room up front, so the crash path can encode a full chunk without allocating.
  init(descriptor: Int32, path: String, onError: @escaping @Sendable (String) -> Void) {
    self.descriptor = descriptor
    self.path = path
    self.onError = onError
    encoder.bytes.reserveCapacity((1 << 20) + (1 << 16))
    eventEnds.reserveCapacity(1 << 16)
  }

  var isOpen: Bool { descriptor >= 0 }

  /// Writes the header; false, with the reason in `errno`, if the file takes nothing.
  mutating func writeHeader(_ header: TraceHeader) -> Bool {
    encoder.header(header)
    return emit(reporting: false)
  }

  /// Takes scheduler and call-site definitions and mark texts; each is written with the first
  /// event that needs it.
  mutating func define(_ definitions: RecorderCore.Definitions) {
    for scheduler in definitions.schedulers { pendingSchedulers[scheduler.id] = scheduler }
    for site in definitions.sites { pendingSites[site.id] = site }
    for mark in definitions.marks { pendingMarks[mark.index] = mark.record }
  }

  /// Makes room, outside any crash, for what the crash path may need: ids up to `maxActionID`
  /// and `threads` thread names.
  mutating func reserveForCrash(maxActionID: UInt32, threads: Int) {
    actionIDs.reserve(upTo: maxActionID)
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
    if failed {
      // The file is gone; what would have been written is lost, and counted as such.
      self.dropped += Int64(runs.reduce(0) { $0 + $1.count })
      encoder.bytes.removeAll(keepingCapacity: true)
      return
    }
    if dropped > 0 { encoder.dropped(time: lastTime, count: dropped) }
    encoder.bytes.reserveCapacity((1 << 20) + (1 << 12))
    if runs.count == 1 {
      for event in runs[0] { encode(event) }
    } else {
      merge(runs)
    }
    emit()
  }

  /// Writes what the threads have buffered and what the last flush held back, merged by time,
  /// then a `crash` line: the crash path, run from a signal handler. It allocates nothing while
  /// the reserved capacities hold (see ``init(descriptor:path:onError:)``).
  mutating func writeAfterCrash(
    buffers: [ThreadBuffer], signal: StaticString, thread: UInt32, time: Int64
  ) {
    guard descriptor >= 0, !failed else { return }
    crashing = true
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
    let event = recorded.mappingActionIDs { actionIDs.fileID(for: $0) }
    lastTime = max(lastTime, event.time)
    defineWhatIsUsed(by: event)
    if event.kind == .mark {
      encoder.event(event, mark: pendingMarks.removeValue(forKey: event.site))
    } else {
      encoder.event(event)
    }
    eventEnds.append(encoder.bytes.count)
    // Write in chunks, so a big flush never builds one huge buffer.
    if encoder.bytes.count >= 1 << 20 { emit() }
  }

  /// Writes the definitions `event` refers to that are not in the file yet, dated with it.
  @inline(__always)
  private mutating func defineWhatIsUsed(by event: TraceEvent) {
    if event.thread != lastThread {
      lastThread = event.thread
      if namedThreads.insert(event.thread).inserted {
        encoder.thread(
          id: event.thread, name: threadNames.removeValue(forKey: event.thread) ?? "",
          time: event.time)
      }
    }
    guard event.kind == .schedule else { return }
    if var scheduler = pendingSchedulers.removeValue(forKey: event.scheduler) {
      scheduler.time = event.time
      encoder.scheduler(scheduler)
    }
    if event.site != 0, let site = pendingSites.removeValue(forKey: event.site) {
      encoder.callSite(site, time: event.time)
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
      time: time, Trace.Closing(written: written + Int64(eventEnds.count), dropped: dropped))
    emit()
    _ = systemClose(descriptor)
    descriptor = -1
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
    guard descriptor >= 0, !failed, !encoder.bytes.isEmpty else {
      dropped += Int64(eventEnds.count)
      return !failed
    }
    let reached = encoder.bytes.withUnsafeBytes { raw -> Int in
      guard let base = raw.baseAddress else { return 0 }
      var offset = 0
      while offset < raw.count {
        let count = systemWrite(descriptor, base + offset, raw.count - offset)
        if count < 0 {
          if errno == EINTR { continue }
          break
        }
        offset += count
      }
      return offset
    }
    // Count by what is in the file: a line cut short by the failure is not written.
    let complete = eventEnds.prefix { $0 <= reached }.count
    written += Int64(complete)
    dropped += Int64(eventEnds.count - complete)
    guard reached < encoder.bytes.count else { return true }
    failed = true
    if reporting, !crashing {
      onError(
        "chronoscope: writing \(path) failed: \(String(cString: strerror(errno))); recording stopped"
      )
    }
    return false
  }
}

// `TraceWriter` has a `close(time:)` of its own; these name the system calls unambiguously.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
  close(descriptor)
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
