extension RandomAccessCollection {
  /// The first index whose element is in the second part of a collection split in two — every
  /// element for which `isInSecondPart` is false comes before every element for which it is
  /// true — or `endIndex` when none is. A binary search: O(log n) calls of `isInSecondPart`.
  ///
  /// ```swift
  /// let times = [10, 20, 20, 30]
  /// times.partitioningIndex { $0 >= 20 }  // 1: the first time at or after 20
  /// times.partitioningIndex { $0 > 20 }   // 3: the first time after 20
  /// ```
  ///
  /// The one binary search of the package: each "first event at or after", "last run before" or
  /// "row under the mouse" is this with its own predicate.
  @inlinable
  package func partitioningIndex(
    where isInSecondPart: (Element) throws -> Bool
  ) rethrows -> Index {
    var low = startIndex
    var count = self.count
    while count > 0 {
      let half = count / 2
      let middle = index(low, offsetBy: half)
      if try isInSecondPart(self[middle]) {
        count = half
      } else {
        low = index(after: middle)
        count -= half + 1
      }
    }
    return low
  }
}
