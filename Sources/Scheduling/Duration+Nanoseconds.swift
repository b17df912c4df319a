extension Duration {
  /// The duration in whole nanoseconds, clamped to `Int64`'s range; negative durations give
  /// negative values.
  package var clampedNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    let (fromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (total, overflow2) = fromSeconds.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflow2 { return seconds < 0 ? .min : .max }
    return total
  }
}
