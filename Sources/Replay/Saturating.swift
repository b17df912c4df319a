// Times and counts in a replay come from untrusted files: arithmetic on them saturates instead of
// trapping.

extension Int64 {
  /// `self + other`, clamped to the representable range.
  package func adding(saturating other: Int64) -> Int64 {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? (other > 0 ? .max : .min) : sum
  }

  /// `self - other`, clamped to the representable range.
  package func subtracting(saturating other: Int64) -> Int64 {
    let (difference, overflow) = subtractingReportingOverflow(other)
    return overflow ? (other < 0 ? .max : .min) : difference
  }

  /// `self * other`, clamped to the representable range.
  package func multiplied(saturating other: Int64) -> Int64 {
    let (product, overflow) = multipliedReportingOverflow(by: other)
    return overflow ? ((self < 0) != (other < 0) ? .min : .max) : product
  }
}
