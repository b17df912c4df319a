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
/// Only ever used under the recorder's writer lock.
struct TraceWriter {
  private var descriptor: Int32
  private let path: String
  private let onError: @Sendable (String) -> Void
  private var failed = false
  private var namedThreads: Set<UInt32> = []
  private var encoder = TraceEncoder()
  /// Events stamped after the last cut, written next time.
  private var carried: [[TraceEvent]] = []
  /// Mark texts whose events have not been written yet.
  private var pendingMarks: [UInt32: MarkRecord] = [:]
  private var lastTime: Int64 = 0
  private(set) var written: Int64 = 0
  private(set) var dropped: Int64 = 0

  init(descriptor: Int32, path: String, onError: @escaping @Sendable (String) -> Void) {
    self.descriptor = descriptor
    self.path = path
    self.onError = onError
  }

  var isOpen: Bool { descriptor >= 0 }

  mutating func writeHeader(_ header: TraceHeader) {
    encoder.header(header)
    emit()
  }

  /// Writes scheduler and call-site definitions and keeps mark texts until their events are
  /// written.
  mutating func define(_ definitions: RecorderCore.Definitions) {
    for scheduler in definitions.schedulers { encoder.scheduler(scheduler) }
    for site in definitions.sites { encoder.callSite(site, time: max(lastTime, 0)) }
    for mark in definitions.marks { pendingMarks[mark.index] = mark.record }
  }

  /// Names a thread the first time it has events, dated with its first event.
  mutating func nameThread(_ id: UInt32, _ name: String, time: Int64) {
    if namedThreads.insert(id).inserted { encoder.thread(id: id, name: name, time: time) }
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

  @inline(__always)
  private mutating func encode(_ event: TraceEvent) {
    if event.kind == .mark {
      encoder.event(event, mark: pendingMarks.removeValue(forKey: event.site))
    } else {
      encoder.event(event)
    }
    lastTime = max(lastTime, event.time)
    written += 1
    // Write in chunks, so a big flush never builds one huge buffer.
    if encoder.bytes.count >= 1 << 20 { emit() }
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
    encoder.closing(time: max(time, lastTime), Trace.Closing(written: written, dropped: dropped))
    emit()
    _ = systemClose(descriptor)
    descriptor = -1
  }

  /// Writes the encoded lines with `write(2)`, retrying short writes.
  private mutating func emit() {
    defer { encoder.bytes.removeAll(keepingCapacity: true) }
    guard descriptor >= 0, !failed, !encoder.bytes.isEmpty else { return }
    let ok = encoder.bytes.withUnsafeBytes { raw -> Bool in
      guard let base = raw.baseAddress else { return true }
      var offset = 0
      while offset < raw.count {
        let count = systemWrite(descriptor, base + offset, raw.count - offset)
        if count < 0 {
          if errno == EINTR { continue }
          return false
        }
        offset += count
      }
      return true
    }
    if !ok {
      failed = true
      onError(
        "chronoscope: writing \(path) failed: \(String(cString: strerror(errno))); recording stopped"
      )
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
