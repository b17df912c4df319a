/// The k-th smallest values of an array without sorting it: introselect, O(n) on average and
/// O(n log n) at worst.
///
/// Values come from trace files, so from strangers: a quickselect alone can be led into O(n²)
/// by values arranged against its pivots. After 2 log₂ n partitions without reaching the rank,
/// the rest of the range is sorted instead.
enum OrderStatistics {
  /// Rearranges `values` so that `values[rank]` is the value a sort would put there, every value
  /// before it is no greater and every value after it no smaller.
  ///
  /// - Parameter partitions: How many partitions before sorting the rest; by default
  ///   2 log₂ n (tests pass fewer, to reach the sort).
  /// - Precondition: `range` contains `rank`, within `values`.
  static func select(
    _ rank: Int, in values: inout [Int64], within range: Range<Int>, partitions: Int? = nil
  ) {
    precondition(range.contains(rank) && range.upperBound <= values.count)
    values.withUnsafeMutableBufferPointer { buffer in
      var low = range.lowerBound
      var high = range.upperBound - 1
      var budget = partitions ?? 2 * (Int.bitWidth - range.count.leadingZeroBitCount)
      while low < high {
        if budget == 0 {
          buffer[low...high].sort()
          return
        }
        budget -= 1
        // The median of the first, middle and last values as the pivot, moved to `high`.
        let middle = low + (high - low) / 2
        if buffer[middle] < buffer[low] { buffer.swapAt(middle, low) }
        if buffer[high] < buffer[low] { buffer.swapAt(high, low) }
        if buffer[middle] < buffer[high] { buffer.swapAt(middle, high) }
        let pivot = buffer[high]
        // Three-way partition: [low, less) < pivot, [less, greater] == pivot, (greater, high] >.
        var less = low
        var greater = high
        var index = low
        while index <= greater {
          if buffer[index] < pivot {
            buffer.swapAt(index, less)
            less += 1
            index += 1
          } else if buffer[index] > pivot {
            buffer.swapAt(index, greater)
            greater -= 1
          } else {
            index += 1
          }
        }
        if rank < less {
          high = less - 1
        } else if rank > greater {
          low = greater + 1
        } else {
          return
        }
      }
    }
  }
}
