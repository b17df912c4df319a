import XCTest

@_spi(Benchmarks) @testable import ChronoscopeReplay

/// Populating pages on another thread must never change what a pass on this thread writes into
/// them, whether the pass is ahead of it, behind it or done, and freeing the memory while it
/// runs must be harmless.
final class PagePopulatorTests: XCTestCase {
  func testWhatThePassWritesIsWhatItReadsBackWhateverThePopulatorDoes() {
    let count = 8 << 20  // 64 MiB of UInt64: hundreds of the populator's chunks
    for round in 0..<3 {
      let memory = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: count)
      defer { memory.deallocate() }
      // The second round writes everything before the populator starts; the third stops it
      // at once and frees the memory under it.
      if round == 1 { for index in 0..<count { memory[index] = UInt64(index) &* 31 } }
      let populator = PagePopulator([UnsafeMutableRawBufferPointer(memory)])
      if round == 2 {
        populator.stop()
        continue
      }
      for index in stride(from: count - 1, through: 0, by: -1) {
        memory[index] = UInt64(index) &* 31 &+ UInt64(round)
      }
      populator.stop()
      var mismatches = 0
      for index in 0..<count where memory[index] != UInt64(index) &* 31 &+ UInt64(round) {
        mismatches += 1
      }
      XCTAssertEqual(mismatches, 0, "round \(round)")
    }
  }
}
