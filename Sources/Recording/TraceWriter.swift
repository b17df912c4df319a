import Scheduling
import TraceFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns batches of raw events into trace lines and writes them to the file descriptor.
///
/// Only ever used under the recorder's writer lock.
struct TraceWriter {
  private struct SiteKey: Hashable {
    var file: UnsafeRawPointer
    var function: UnsafeRawPointer
    var line: UInt
  }

  private var descriptor: Int32
  private let path: String
  private let onError: @Sendable (String) -> Void
  private var failed = false
  private var sites: [SiteKey: UInt32] = [:]
  private var namedThreads: Set<UInt32> = []
  private var pendingThreadNames: [(UInt32, String)] = []
  private var encoder = TraceEncoder()
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

  mutating func nameThread(_ id: UInt32, _ name: String) {
    if namedThreads.insert(id).inserted { pendingThreadNames.append((id, name)) }
  }

  /// Writes the definitions, then the batch in time order (stable, so each thread's own order
  /// is kept).
  mutating func write(
    batch: inout [RawEvent], definitions: TraceRecorder.Definitions, dropped: Int64
  ) {
    self.dropped += dropped
    if failed {
      // The file is gone; what would have been written is lost, and counted as such.
      self.dropped += Int64(batch.count)
      batch.removeAll()
      return
    }
    for scheduler in definitions.schedulers { encoder.scheduler(scheduler) }
    for (id, name) in pendingThreadNames {
      encoder.thread(id: id, name: name, time: definitions.schedulers.last?.time ?? lastTime)
    }
    pendingThreadNames.removeAll()
    let marks = Dictionary(uniqueKeysWithValues: definitions.marks.map { ($0.index, $0.record) })
    if !batch.isEmpty {
      let sorted = batch.enumerated().sorted { lhs, rhs in
        lhs.element.event.time != rhs.element.event.time
          ? lhs.element.event.time < rhs.element.event.time : lhs.offset < rhs.offset
      }
      for (_, raw) in sorted {
        var event = raw.event
        if let site = raw.callSite { event.site = intern(site, time: event.time) }
        encoder.event(event, mark: event.kind == .mark ? marks[event.site] : nil)
        lastTime = max(lastTime, event.time)
      }
      written += Int64(batch.count)
    }
    emit()
  }

  mutating func close(time: Int64) {
    guard descriptor >= 0 else { return }
    encoder.closing(time: max(time, lastTime), Trace.Closing(written: written, dropped: dropped))
    emit()
    _ = systemClose(descriptor)
    descriptor = -1
  }

  private mutating func intern(_ site: CallSite, time: Int64) -> UInt32 {
    let key = SiteKey(
      file: UnsafeRawPointer(site.fileID.utf8Start),
      function: UnsafeRawPointer(site.function.utf8Start),
      line: site.line)
    if let id = sites[key] { return id }
    let id = UInt32(sites.count + 1)
    sites[key] = id
    encoder.callSite(
      CallSiteRecord(
        id: id, file: "\(site.fileID)", line: Int(site.line), function: "\(site.function)"),
      time: time)
    return id
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
