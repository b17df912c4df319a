import ChronoscopeCore
import ChronoscopeTestSupport
import XCTest

@_spi(Benchmarks) @testable import ChronoscopeAnalysis

/// Percentiles are what sorting would give, whatever the values and however they are arranged,
/// including arrangements made to defeat a quickselect's pivots.
final class OrderStatisticsTests: XCTestCase {
  private func sortedReference(_ values: [Int64]) -> TraceStatistics.Distribution {
    let sorted = values.sorted()
    var reference = TraceStatistics.Distribution([])
    reference.count = sorted.count
    func percentile(_ fraction: Double) -> Int64? {
      guard !sorted.isEmpty else { return nil }
      let rank = Int((fraction * Double(sorted.count)).rounded(.up))
      return sorted[min(max(rank, 1), sorted.count) - 1]
    }
    reference.p50 = percentile(0.5)
    reference.p90 = percentile(0.9)
    reference.p99 = percentile(0.99)
    reference.max = sorted.last
    return reference
  }

  func testEveryRankOfSmallArraysIsTheSortedOne() {
    var random = SplitMix64(seed: 7)
    for count in 1...32 {
      for _ in 0..<8 {
        let values = (0..<count).map { _ in Int64(random.next() % 6) - 2 }
        // Partitions all the way, and after none or one (the sort that bounds the worst case).
        for partitions in [nil, 0, 1] as [Int?] {
          for rank in 0..<count {
            var selected = values
            OrderStatistics.select(rank, in: &selected, within: 0..<count, partitions: partitions)
            let what = "\(values) rank \(rank) after \(partitions.map(String.init) ?? "all")"
            XCTAssertEqual(selected[rank], values.sorted()[rank], what)
            XCTAssertTrue(selected[..<rank].allSatisfy { $0 <= selected[rank] }, what)
            XCTAssertTrue(selected[(rank + 1)...].allSatisfy { $0 >= selected[rank] }, what)
            XCTAssertEqual(selected.sorted(), values.sorted(), "the same values: \(what)")
          }
        }
      }
    }
  }

  func testPercentilesEqualSortingForManyShapes() {
    var random = SplitMix64(seed: 11)
    let n = 5_000
    let shapes: [(String, [Int64])] = [
      ("empty", []),
      ("one", [42]),
      ("random", (0..<n).map { _ in Int64(bitPattern: random.next()) }),
      ("few distinct", (0..<n).map { _ in Int64(random.next() % 3) }),
      ("all equal", Array(repeating: 7, count: n)),
      ("ascending", (0..<Int64(n)).map { $0 }),
      ("descending", (0..<Int64(n)).reversed().map { $0 }),
      ("organ pipe", (0..<Int64(n / 2)).map { $0 } + (0..<Int64(n / 2)).reversed().map { $0 }),
      ("extremes", (0..<n).map { $0 % 2 == 0 ? Int64.min : Int64.max }),
      ("two interleaved runs", Self.interleavedRuns(n)),
    ]
    for (name, values) in shapes {
      XCTAssertEqual(TraceStatistics.Distribution(values), sortedReference(values), name)
    }
  }

  /// Odd positions rising from the bottom, even ones from the middle: pivots from the ends
  /// and the middle land on lopsided splits.
  private static func interleavedRuns(_ count: Int) -> [Int64] {
    (0..<count).map { $0 % 2 == 0 ? Int64(count + $0) : Int64($0) }
  }
}
