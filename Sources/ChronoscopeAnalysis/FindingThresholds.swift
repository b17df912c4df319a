/// The limits past which something is a finding; `chronoscope check` sets them with flags.
///
/// The defaults: work that begins 10 ms after it was due is late; a run of 50 ms on a serial or
/// main scheduler with others waiting blocks them; a main-scheduler run of 250 ms is a hang (the
/// threshold Apple's hang detection uses). A virtual-clock trace uses the same rules.
@_spi(Benchmarks) public struct FindingThresholds: Sendable, Equatable {
  /// Lateness past which a begin is late, in ns.
  package var late: Int64
  /// Run length past which a run on a serial or main scheduler blocks the work waiting behind it.
  package var block: Int64
  /// Run length past which a run on the main scheduler is a hang.
  package var hang: Int64
  /// Threads running the trace's work at once past which there are too many; nil for four times
  /// the cores in the trace's header (and no check when the header has none).
  package var threads: Int?

  /// Thresholds in nanoseconds, and a thread count.
  @_spi(Benchmarks) public init(
    late: Int64 = 10_000_000, block: Int64 = 50_000_000, hang: Int64 = 250_000_000,
    threads: Int? = nil
  ) {
    self.late = late
    self.block = block
    self.hang = hang
    self.threads = threads
  }
}
