import ChronoscopeTraceFormat

// Target `reader`: any bytes through the strict reader. Nothing may trap, what it accepts must
// honour the documented ranges, and reading on several threads must give the same result.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let reading = TraceReader.parse(bytes, file: "fuzz.trace", workers: 1)
  // Read on several threads (what large files get), the result is the same.
  let spread = TraceReader.parse(bytes, file: "fuzz.trace", workers: 3)
  precondition(spread.diagnostics == reading.diagnostics, "diagnostics differ on 3 threads")
  precondition(spread.trace?.events == reading.trace?.events, "events differ on 3 threads")
  precondition(spread.trace?.marks == reading.trace?.marks, "marks differ on 3 threads")
  precondition(
    spread.errorCount == reading.errorCount && spread.warningCount == reading.warningCount,
    "counts differ on 3 threads")
  // Streamed (as the replay is prepared while reading), the same events, handed over in order.
  let stream = CollectingStream()
  let streamed = TraceReader.parse(bytes, file: "fuzz.trace", workers: 2, streamingTo: stream)
  precondition(streamed.diagnostics == reading.diagnostics, "diagnostics differ streamed")
  precondition(
    stream.events + (streamed.trace?.events ?? []) == reading.trace?.events ?? [],
    "events differ streamed")
  precondition(reading.errorCount >= reading.diagnostics.count { $0.severity == .error })
  // The same bytes as a recorder's spool records (`TraceSpool`), after a spool's first line and a
  // header: read to the end or to the first record refused, never past the bytes.
  var spool = TraceSpool.magic + Array(spoolHeader.utf8)
  spool.append(contentsOf: bytes)
  spool.withUnsafeBytes { raw in
    guard var records = try? TraceSpool.Reader(raw) else { preconditionFailure("a spool's start") }
    var previous = records.offset
    while let record = try? records.next() {
      precondition(records.offset > previous && records.offset <= raw.count, "a record's end")
      previous = records.offset
      _ = record
    }
  }
  for diagnostic in reading.diagnostics { _ = diagnostic.description }
  if let trace = reading.trace {
    // What the reader accepts stays inside the documented ranges (docs/TraceFormat.md).
    let times = 0...TraceLimits.maximumTime
    for event in trace.events {
      precondition(times.contains(event.time), "time out of range")
      precondition(
        times.contains(event.delay) && times.contains(event.due), "schedule out of range")
      precondition(times.contains(event.duration), "duration out of range")
      precondition((event.kind != .begin && event.kind != .end) || event.run >= 1, "run 0")
    }
    precondition((0...TraceLimits.maximumCount).contains(trace.droppedEvents), "dropped sum")
    if let closing = trace.closing {
      precondition((0...TraceLimits.maximumCount).contains(closing.written), "written")
    }
    _ = trace.span
  }
  return 0
}

private let spoolHeader =
  #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"f","pid":1,"metadata":{}}"#
  + "\n"

/// Keeps the events a reader streams.
private final class CollectingStream: TraceEventStream {
  var events: [TraceEvent] = []
  func reserve(events count: Int) { precondition(events.isEmpty, "reserved after events") }
  func take(_ events: UnsafeBufferPointer<TraceEvent>) -> Bool {
    precondition(!events.isEmpty, "an empty batch")
    self.events.append(contentsOf: events)
    return true
  }
}
