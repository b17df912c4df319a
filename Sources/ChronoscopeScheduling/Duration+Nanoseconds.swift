extension Duration {
  /// The duration in whole nanoseconds (rounded toward zero), clamped to `Int64`'s range;
  /// negative durations give negative values.
  package var clampedNanoseconds: Int64 {
    if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
      // Durations under about 9.2 s, most delays, fit 64 bits as attoseconds: a 64-bit
      // division by a constant is a multiplication, where the 128-bit one is a call to
      // `__divti3`, itself far cheaper than going through `components` (Benchmarks/README.md,
      // "Figures behind the code"). Both truncate toward zero.
      if let small = Int64(exactly: attoseconds) { return small / 1_000_000_000 }
      return Int64(clamping: attoseconds / 1_000_000_000)
    }
    let (seconds, attoseconds) = components
    let (fromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (total, overflow2) = fromSeconds.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflow2 { return seconds < 0 ? .min : .max }
    return total
  }
}
