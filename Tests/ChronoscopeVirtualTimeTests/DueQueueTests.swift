import ChronoscopeCore
import XCTest

@testable import ChronoscopeVirtualTime

/// The clock's queue against the plainest model of it: everything queued, sorted by due time and
/// then by the order of insertion.
final class DueQueueTests: XCTestCase {
  /// Inserts and removals in random runs, with few distinct due times (so that ties are the
  /// rule) and with the whole range of `Int64`; every removal must be the model's first.
  private func checkAgainstTheModel(sequenceLimit: UInt32, seed: UInt64, operations: Int) {
    var random = SplitMix64(seed: seed)
    var queue = DueQueue(sequenceLimit: sequenceLimit)
    var model: [(due: Int64, slot: UInt32)] = []  // sorted: due, then insertion
    var nextSlot: UInt32 = 0
    for step in 0..<operations {
      if model.isEmpty || random.next() % 5 < 3 {
        let due: Int64 =
          random.next() % 4 == 0
          ? Int64(bitPattern: random.next()) : Int64(random.next() % 8)
        queue.insert(due: due, slot: nextSlot)
        let place = model.firstIndex { $0.due > due } ?? model.count
        model.insert((due, nextSlot), at: place)
        nextSlot &+= 1
      } else {
        let removed = queue.removeMin()
        let expected = model.removeFirst()
        XCTAssertEqual(removed.due, expected.due, "step \(step)")
        XCTAssertEqual(removed.slot, expected.slot, "step \(step)")
      }
      XCTAssertEqual(queue.count, model.count)
      XCTAssertEqual(queue.min?.slot, model.first?.slot)
      if step % 64 == 0 { queue._checkInvariants() }
    }
    while let expected = model.first {
      model.removeFirst()
      XCTAssertEqual(queue.removeMin().slot, expected.slot)
    }
    XCTAssertNil(queue.min)
    queue._checkInvariants()
  }

  func testEntriesLeaveByDueTimeThenInTheOrderTheyWereInserted() {
    for seed in 1...20 as ClosedRange<UInt64> {
      checkAgainstTheModel(sequenceLimit: .max, seed: seed, operations: 3_000)
    }
  }

  /// Sequence numbers run out after 2³² − 1 insertions; a small limit makes them run out every
  /// few insertions, with up to hundreds of entries queued, so that the queue is numbered
  /// again over and over. The order must not change.
  func testNumberingTheEntriesAgainChangesNoOrder() {
    for (seed, limit) in [(1, 1), (2, 2), (3, 7), (4, 64), (5, 500)] as [(UInt64, UInt32)] {
      checkAgainstTheModel(sequenceLimit: limit, seed: seed, operations: 2_000)
    }
  }

  func testTheQueueGrowsPastItsFirstStorageAndEmptiesAgain() {
    var queue = DueQueue()
    for slot in 0..<10_000 as Range<UInt32> {
      queue.insert(due: Int64(9_999 - slot) / 3, slot: slot)
    }
    queue._checkInvariants()
    var last = DueQueue.Entry?.none
    for _ in 0..<10_000 {
      let entry = queue.removeMin()
      if let last { XCTAssertTrue(last.precedes(entry)) }
      last = entry
    }
    XCTAssertEqual(queue.count, 0)
  }
}
