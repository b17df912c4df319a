import ChronoscopeCore
import XCTest

final class ChronoscopeCoreTests: XCTestCase {
  func testSaturatingArithmeticStopsAtTheEndsOfTheRange() {
    XCTAssertEqual(Int64.max.adding(saturating: 1), .max)
    XCTAssertEqual(Int64.min.adding(saturating: -1), .min)
    XCTAssertEqual(Int64(5).adding(saturating: -7), -2)
    XCTAssertEqual(Int64.min.subtracting(saturating: 1), .min)
    XCTAssertEqual(Int64.max.subtracting(saturating: -1), .max)
    XCTAssertEqual(Int64(0).subtracting(saturating: .min), .max)
    XCTAssertEqual(Int64.max.multiplied(saturating: 2), .max)
    XCTAssertEqual(Int64.max.multiplied(saturating: -2), .min)
    XCTAssertEqual(Int64.min.multiplied(saturating: -1), .max)
    XCTAssertEqual(UInt64.max.adding(saturating: 1), .max)
    XCTAssertEqual(UInt64(0).subtracting(saturating: 1), 0)
    XCTAssertEqual(UInt32(3).multiplied(saturating: 4), 12)
  }

  func testPartitioningIndexAgreesWithALinearScan() {
    var generator = SystemRandomNumberGenerator()
    for size in 0..<40 {
      let values = (0..<size).map { _ in Int.random(in: 0..<10, using: &generator) }.sorted()
      for pivot in -1...11 {
        let expected = values.firstIndex { $0 >= pivot } ?? values.endIndex
        XCTAssertEqual(values.partitioningIndex { $0 >= pivot }, expected, "\(values) \(pivot)")
        let slice = values.dropFirst(size / 3)
        let inSlice = slice.firstIndex { $0 > pivot } ?? slice.endIndex
        XCTAssertEqual(slice.partitioningIndex { $0 > pivot }, inSlice, "\(slice) \(pivot)")
      }
    }
  }
}
