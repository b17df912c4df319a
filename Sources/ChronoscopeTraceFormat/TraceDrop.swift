/// A `dropped` line that counted events: the recorder turned `count` events away since its
/// previous write. The line carries the `t` of the line before it, the last event the recorder
/// wrote before it noticed: the events were stamped before `time`, in the
/// ``writeInterval`` or so before it when the writer keeps up (a thread's buffer filled between
/// two writes), longer when it falls behind.
package struct TraceDrop: Sendable, Equatable {
  /// How often the recorder writes, in nanoseconds (`TraceRecorder.flushInterval`).
  package static let writeInterval: Int64 = 100_000_000

  /// The `t` of the `dropped` line.
  package var time: Int64
  /// How many events it says were dropped (0 … 2⁶² − 1).
  package var count: Int64

  package init(time: Int64, count: Int64) {
    self.time = time
    self.count = count
  }
}
