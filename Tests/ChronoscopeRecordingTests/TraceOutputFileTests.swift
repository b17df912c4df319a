import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The files a recorder writes are the one it was given, and only as its rules allow (see
/// `TraceOutputFile`): nothing it was not asked to write is moved, deleted, truncated or written
/// through a link; two recorders never share a file; a file of its rotation never grows past its
/// cap by more than a line. Nodes, FIFOs and links are made inside a temporary folder.
final class TraceOutputFileTests: XCTestCase {
  private func folder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("output-rules-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    return folder
  }

  /// A FIFO made in `folder`, with a reader holding it open (non-blocking) until the test ends,
  /// so that it opens for writing; returns its path and the reader's descriptor.
  private func fifoWithReader(_ name: String, in folder: URL) throws -> (
    path: String, reader: Int32
  ) {
    let fifo = folder.appendingPathComponent(name).path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let reader = open(fifo, O_RDONLY | O_NONBLOCK)
    XCTAssertGreaterThanOrEqual(reader, 0)
    addTeardownBlock { close(reader) }
    return (fifo, reader)
  }

  private func fileType(_ path: String) -> mode_t? {
    var status = stat()
    return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
  }

  /// Records enough through `recorder` to pass a 4 KiB cap many times over, then closes it.
  private func recordPlenty(_ recorder: TraceRecorder) {
    let factory = RecordingSchedulerFactory(wrapping: .immediate, recorder: recorder)
    let queue = factory.makeSerial(label: "plenty")
    for _ in 0..<10 {
      for _ in 0..<200 { queue.async {} }
      recorder.flush()
    }
    recorder.close()
  }

  // MARK: - Rotation never replaces what the path names

  func testRotationOntoAFIFOOrADeviceIsRefusedAndTheNodeStays() throws {
    let folder = try folder()
    // With a reader, so that the FIFO itself would open.
    let fifo = try fifoWithReader("pipe.trace", in: folder).path
    var nodes = [fifo]
    // A character device like /dev/null (1, 3), made here: only as root.
    let device = folder.appendingPathComponent("null.trace").path
    // glibc's makedev(1, 3), a macro Swift does not import.
    if mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 { nodes.append(device) }
    let link = folder.appendingPathComponent("link.trace").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
    for path in nodes + [link] {
      for keep in [0, 1] {
        XCTAssertThrowsError(
          try TraceRecorder(path: path, rotation: TraceRotation(maxBytes: 4_096, keep: keep))
        ) { error in
          XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
        }
        // Through the environment too (`chronoscope record --max-bytes … -o …`): not recorded.
        let factory = RecordingSchedulerFactory.recordingIfRequested(
          wrapping: .immediate,
          environment: [
            "CHRONOSCOPE_TRACE": path, "CHRONOSCOPE_TRACE_MAX_BYTES": "4K",
            "CHRONOSCOPE_TRACE_KEEP": String(keep),
          ])
        XCTAssertFalse(factory is RecordingSchedulerFactory, path)
      }
    }
    XCTAssertEqual(fileType(fifo), S_IFIFO)
    XCTAssertEqual(fileType(link), S_IFLNK)
    if nodes.contains(device) { XCTAssertEqual(fileType(device), S_IFCHR) }
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
      (nodes.map { ($0 as NSString).lastPathComponent } + ["link.trace"]).sorted())
  }

  func testARotationLeavesAFileSomeoneElsePutAtThePathAlone() throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("app.trace").path
    let recorder = try TraceRecorder(path: path, rotation: TraceRotation(maxBytes: 4_096, keep: 1))
    // The recorder's file is replaced by another's (a link to a file of theirs) while it records.
    let theirs = folder.appendingPathComponent("theirs").path
    try Data("theirs".utf8).write(to: URL(fileURLWithPath: theirs))
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: theirs)
    recordPlenty(recorder)
    XCTAssertEqual(fileType(path), S_IFLNK, "the link stays where it is")
    XCTAssertEqual(try String(contentsOfFile: theirs, encoding: .utf8), "theirs")
  }

  // MARK: - A cap holds under load

  func testAFlushFarLargerThanTheCapIsSplitAcrossFilesEachWithinIt() throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("burst.trace").path
    let recorder = try TraceRecorder(
      path: path, rotation: TraceRotation(maxBytes: 4_096, keep: 1_000))
    let factory = RecordingSchedulerFactory(wrapping: .immediate, recorder: recorder)
    let queue = factory.makeSerial(label: "burst")
    // About 600 KiB of lines in one flush: the cap used to be checked after each flush only.
    for _ in 0..<3_000 { queue.async {} }
    recorder.flush()
    recorder.close()
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    XCTAssertGreaterThan(names.count, 50, "rotated within the flush")
    var events = 0
    for name in names {
      let file = folder.appendingPathComponent(name).path
      let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
      // The cap, the line that crossed it and the end marker.
      XCTAssertLessThanOrEqual(size, 4_096 + 512, name)
      let reading = TraceReader.read(path: file)
      XCTAssertFalse(reading.hasErrors, "\(name): \(reading.diagnostics.prefix(3))")
      XCTAssertEqual(reading.trace?.closing?.dropped, 0, name)
      events += reading.trace?.events.filter { $0.kind == .schedule }.count ?? 0
    }
    XCTAssertGreaterThanOrEqual(events, 3_000, "every schedule is in a file")
  }

  // MARK: - Links, owners, other recorders

  func testALinkToAFileIsNotFollowedAndTheFileIsUntouched() throws {
    let folder = try folder()
    let victim = folder.appendingPathComponent("private").path
    try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
    XCTAssertEqual(chmod(victim, 0o600), 0)
    let link = folder.appendingPathComponent("app-1234.trace").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
    XCTAssertThrowsError(try TraceRecorder(path: link)) { error in
      XCTAssertTrue("\(error)".contains("symbolic link"), "\(error)")
    }
    XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "keep me")
    // A link to nothing makes nothing where it points.
    let dangling = folder.appendingPathComponent("dangling.trace").path
    let target = folder.appendingPathComponent("made-through-link").path
    try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: target)
    XCTAssertThrowsError(try TraceRecorder(path: dangling))
    XCTAssertNil(fileType(target))
  }

  func testALinkToAStreamIsWrittenInPlace() throws {
    let folder = try folder()
    let (fifo, reader) = try fifoWithReader("fifo", in: folder)
    let link = folder.appendingPathComponent("stdout-like").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fifo)
    let recorder = try TraceRecorder(path: link)
    recorder.close()
    var bytes = [UInt8](repeating: 0, count: 4_096)
    let count = read(reader, &bytes, bytes.count)
    XCTAssertGreaterThan(count, 0, "the header went through the link into the FIFO")
    XCTAssertEqual(fileType(fifo), S_IFIFO)
  }

  func testAFileOfAnotherUserIsNotWrittenOver() throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("other.trace").path
    try Data("not yours".utf8).write(to: URL(fileURLWithPath: path))
    // Another user's file can only be made as root; as anyone else, the rule cannot be shown.
    guard geteuid() == 0, chown(path, 65_534, 65_534) == 0 else {
      throw XCTSkip("needs root to make a file of another user")
    }
    XCTAssertThrowsError(try TraceRecorder(path: path)) { error in
      XCTAssertTrue("\(error)".contains("another user"), "\(error)")
    }
    XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "not yours")
  }

  func testASecondRecorderOnTheSamePathIsRefusedAndTheFirstsTraceStaysWhole() throws {
    let folder = try folder()
    let path = folder.appendingPathComponent("shared.trace").path
    let first = try TraceRecorder(path: path)
    XCTAssertThrowsError(try TraceRecorder(path: path)) { error in
      XCTAssertTrue("\(error)".contains("another process is recording"), "\(error)")
    }
    recordPlenty(first)
    let reading = TraceReader.read(path: path)
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics.prefix(3))")
    XCTAssertNotNil(reading.trace?.closing)
    // Closed, the file is free again, and written over as before.
    let again = try TraceRecorder(path: path)
    again.close()
    XCTAssertEqual(TraceReader.read(path: path).trace?.events.count, 0)
  }

  // MARK: - A flight recorder's dump never waits for a reader

  func testAFlightDumpOntoAFIFONobodyReadsFailsAtOnce() throws {
    let folder = try folder()
    let fifo = folder.appendingPathComponent("dump.fifo").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let flight = FlightRecorder()
    defer { flight.close() }
    let outcome = SendableBox<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      do {
        try flight.dump(to: fifo)
        outcome.value = "dumped"
      } catch {
        outcome.value = "\(error)"
      }
      done.signal()
    }
    XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the dump waited for a reader")
    XCTAssertTrue(outcome.value?.contains("FIFO nobody reads") == true, "\(outcome.value ?? "")")
    XCTAssertEqual(fileType(fifo), S_IFIFO)
  }
}

/// A value a test's thread sets and the test reads after a semaphore.
// @unchecked Sendable: written before the semaphore is signalled, read after it is waited for.
private final class SendableBox<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}
