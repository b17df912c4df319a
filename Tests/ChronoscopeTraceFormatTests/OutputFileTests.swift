import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The tools' one output writer: regular files atomically, devices and FIFOs in place, symbolic
/// links followed — nothing but the output ever changes.
final class OutputFileTests: XCTestCase {
  private var folder = ""

  override func setUpWithError() throws {
    folder = try temporaryFolder("output").path
  }

  private func kind(_ path: String) -> mode_t {
    var status = stat()
    guard lstat(path, &status) == 0 else { return 0 }
    return status.st_mode & S_IFMT
  }

  private func contents(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
  }

  private func save(_ text: String, to path: String) throws {
    let file = try OutputFile(path: path)
    try file.write(Array(text.utf8))
    try file.commit()
  }

  func testADeviceIsWrittenInPlaceNeverReplaced() throws {
    // Only planned here: a wrong plan must not get the chance to replace the machine's /dev/null.
    XCTAssertEqual(try OutputFile.plan(for: "/dev/null"), .inPlace(target: "/dev/null"))
    XCTAssertEqual(try OutputFile.plan(for: "-"), .standardOutput)
    XCTAssertThrowsError(try OutputFile.plan(for: folder)) { error in
      XCTAssertTrue("\(error)".contains("Is a directory"), "\(error)")
    }
  }

  func testARegularFileIsReplacedWholeAndNothingIsLeftBeside() throws {
    let path = folder + "/out.json"
    try save("old", to: path)
    try save("new", to: path)
    XCTAssertEqual(contents(path), "new")
    let abandoned = try OutputFile(path: path)
    try abandoned.write(Array("half".utf8))
    abandoned.abandon()
    XCTAssertEqual(contents(path), "new", "a failed write leaves the file as it was")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["out.json"])
  }

  private func status(_ path: String) -> stat {
    var status = stat()
    XCTAssertEqual(stat(path, &status), 0, path)
    return status
  }

  func testAReplacedFileKeepsItsModeAndOwner() throws {
    // A trace kept private (0600) stays private once redacted or exported over.
    let path = folder + "/private.trace"
    try save("old", to: path)
    XCTAssertEqual(chmod(path, 0o600), 0)
    // Only root can give a file away: the owner is checked where the test can set it.
    let owner: (uid_t, gid_t) = getuid() == 0 ? (4321, 8765) : (getuid(), getgid())
    XCTAssertEqual(chown(path, owner.0, owner.1), 0)

    try save("new", to: path)

    XCTAssertEqual(contents(path), "new")
    XCTAssertEqual(status(path).st_mode & 0o7777, 0o600)
    XCTAssertEqual(status(path).st_uid, owner.0)
    XCTAssertEqual(status(path).st_gid, owner.1)
  }

  func testANewFileIsReadableByAllAsTheUmaskAllows() throws {
    let path = folder + "/new.trace"
    let mask = umask(0o027)
    defer { umask(mask) }

    try save("new", to: path)

    XCTAssertEqual(status(path).st_mode & 0o7777, 0o640)
  }

  func testASymbolicLinkStaysAndItsTargetIsWritten() throws {
    let target = folder + "/target.trace"
    let link = folder + "/link.trace"
    try save("old", to: target)
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.trace")
    try save("new", to: link)
    XCTAssertEqual(kind(link), S_IFLNK, "the link is still a link")
    XCTAssertEqual(contents(target), "new")

    let dangling = folder + "/dangling.trace"
    try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "made.trace")
    try save("made", to: dangling)
    XCTAssertEqual(kind(dangling), S_IFLNK)
    XCTAssertEqual(contents(folder + "/made.trace"), "made", "made where the link points")
  }

  func testAFIFOIsWrittenInPlaceAndStaysAFIFO() throws {
    let fifo = folder + "/pipe"
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let received = DispatchSemaphore(value: 0)
    let text = SharedValue("")
    Thread {
      let data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data()
      text.set(String(decoding: data, as: UTF8.self))
      received.signal()
    }.start()
    try save("through the pipe", to: fifo)
    XCTAssertEqual(received.wait(timeout: .now() + 10), .success)
    XCTAssertEqual(text.get(), "through the pipe")
    XCTAssertEqual(kind(fifo), S_IFIFO, "still a FIFO")
  }
}
