import XCTest

@testable import ChronoscopeSharing

final class SipHashTests: XCTestCase {
  /// The key of the paper's test vectors: bytes 00 01 … 0f.
  private let key = SipHash.Key(k0: 0x0706_0504_0302_0100, k1: 0x0F0E_0D0C_0B0A_0908)

  func testThePapersWorkedExampleHashesAsPublished() {
    // SipHash paper, appendix A: the 15-byte message 00 01 … 0e.
    XCTAssertEqual(SipHash.hash((0..<15).map { UInt8($0) }, key: key), 0xa129_ca61_49be_45e5)
  }

  func testTheReferenceVectorsOfEveryBlockShapeHashAsPublished() {
    // The reference implementation's vectors_sip64: message 00 01 … n-1, for n = 0, 1, 2, 7, 8,
    // 16 (empty, partial blocks, one whole block, two whole blocks).
    let expected: [Int: UInt64] = [
      0: 0x726f_db47_dd0e_0e31, 1: 0x74f8_39c5_93dc_67fd, 2: 0x0d6c_8009_d9a9_4f5a,
      7: 0xab02_00f5_8b01_d137, 8: 0x93f5_f579_9a93_2462, 16: 0x3f2a_cc7f_57c2_9bdb,
    ]
    for (length, hash) in expected {
      XCTAssertEqual(
        SipHash.hash((0..<length).map { UInt8($0) }, key: key), hash, "length \(length)")
    }
  }

  func testAnotherKeyGivesAnotherHash() {
    let other = SipHash.Key(k0: 0, k1: 0)
    XCTAssertEqual(SipHash.hash([], key: other), 0x1e92_4b9d_7377_00d7)
    XCTAssertNotEqual(SipHash.hash([1, 2, 3], key: other), SipHash.hash([1, 2, 3], key: key))
  }
}
