/// A `dropped` line that counted events: the recorder turned `count` events away since its
/// previous write, which ended at `time` (the line carries the `t` of the line before it). What
/// was stamped after `time`, up to the recorder's next write, may be missing.
package struct TraceDrop: Sendable, Equatable {
  /// The `t` of the `dropped` line.
  package var time: Int64
  /// How many events it says were dropped (0 … 2⁶² − 1).
  package var count: Int64

  package init(time: Int64, count: Int64) {
    self.time = time
    self.count = count
  }
}
