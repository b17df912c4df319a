/// Takes a trace's events while the file is read, so that a large trace never exists whole as
/// an array of ``TraceEvent`` (48 bytes each): the replay builds its tables from them as the
/// reader goes (`ReplayEngine.read(path:…)`).
///
/// The reader streams only where it pays, a file read on several cores; otherwise every event
/// stays in the trace it returns. Events it hands over are not in that trace.
package protocol TraceEventStream: AnyObject {
  /// Called once, before any event, with an upper bound on the number of events to come.
  func reserve(events: Int)

  /// The next events, in file order, valid only during the call. Returns false to refuse them
  /// and every later one: the reader then stops at once, and its trace and diagnostics are
  /// incomplete, so the file must be read again without a stream.
  func take(_ events: UnsafeBufferPointer<TraceEvent>) -> Bool
}
