import ChronoscopeCore
import ChronoscopeTestSupport
import XCTest

@testable import ChronoscopeVirtualTime

/// The package's one seeded generator, pinned: a seed printed in a failure message (exploration,
/// jitter) must rerun the same schedule in every later release, so the numbers it gives a seed
/// never change.
final class SplitMix64Tests: XCTestCase {
  func testASeedGivesTheReferenceSequence() {
    // The first outputs of the reference implementation (Vigna's splitmix64.c).
    var zero = SplitMix64(seed: 0)
    XCTAssertEqual(
      (0..<4).map { _ in zero.next() },
      [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F, 0xF88B_B8A8_724C_81EC])
    var fortyTwo = SplitMix64(seed: 42)
    XCTAssertEqual(
      (0..<4).map { _ in fortyTwo.next() },
      [0xBDD7_3226_2FEB_6E95, 0x28EF_E333_B266_F103, 0x4752_6757_130F_9F52, 0x581C_E1FF_0E4A_E394])
  }

  func testAnExplorationSeedMakesTheSameChoicesAsEver() {
    var exploration = Exploration(seed: 1000)
    for _ in 0..<8 { _ = exploration.choose(among: [10, 20, 30, 40]) }
    XCTAssertEqual(
      Exploration.schedule(of: exploration.choices), "1/4 4/4 2/4 4/4 4/4 3/4 1/4 4/4")
  }

  func testAJitterSeedDelaysTimersAsEver() {
    var jitter = Jitter(seed: 42, maximum: .milliseconds(50))
    XCTAssertEqual(
      (0..<5).map { _ in jitter.next() },
      [16_130_230, 30_371_629, 27_090_945, 24_297_099, 11_307_808])
  }
}
