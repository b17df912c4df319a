import TraceFormat

// Target `reader`: any bytes through the strict reader. Nothing may trap, and what it accepts must
// honour the documented ranges.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  let reading = TraceReader.parse(bytes, file: "fuzz.trace")
  precondition(reading.errorCount >= reading.diagnostics.count { $0.severity == .error })
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
