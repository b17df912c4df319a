// Times and counts come from untrusted files and from callers' durations: arithmetic on them
// saturates at the ends of the type's range instead of trapping or wrapping. The one home of that
// rule: every module that needs it imports this one.

extension FixedWidthInteger {
  /// `self + other`, clamped to the representable range.
  @inlinable
  package func adding(saturating other: Self) -> Self {
    let (sum, overflow) = addingReportingOverflow(other)
    guard overflow else { return sum }
    return other > .zero ? .max : .min
  }

  /// `self - other`, clamped to the representable range.
  @inlinable
  package func subtracting(saturating other: Self) -> Self {
    let (difference, overflow) = subtractingReportingOverflow(other)
    guard overflow else { return difference }
    return other < .zero ? .max : .min
  }

  /// `self * other`, clamped to the representable range.
  @inlinable
  package func multiplied(saturating other: Self) -> Self {
    let (product, overflow) = multipliedReportingOverflow(by: other)
    guard overflow else { return product }
    return (self < .zero) != (other < .zero) ? .min : .max
  }
}
