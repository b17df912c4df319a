import ChronoscopeFatalSignals
import ChronoscopeTestSupport
import Foundation
import Synchronization
import XCTest

@testable import ChronoscopeTraceFormat

/// A trace file another process truncates while it is read is reported as changed, never a
/// crash (`SIGBUS` on the mapped pages past the new end; issue 29, item 10).
final class MappedTraceFileTests: XCTestCase {
  /// A trace of `count` schedule lines: about 90 bytes each, so 100,000 span many pages.
  private func writeTrace(events count: Int) throws -> String {
    var text =
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"2026-01-01T00:00:00Z","process":"t","pid":1,"metadata":{}}"#
      + "\n"
    text +=
      #"{"t":0,"e":"scheduler","q":1,"label":"main","kind":"main","family":"dispatch"}"# + "\n"
    for index in 1...count {
      text +=
        #"{"t":\#(index),"e":"schedule","a":\#(index),"q":1,"mode":"async","due":\#(index),"th":1}"#
        + "\n"
    }
    let path = temporaryTracePath("truncated")
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return path
  }

  private func assertChanged(
    _ reading: TraceReading, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertNil(reading.trace, file: file, line: line)
    XCTAssertEqual(
      reading.diagnostics.map(\.message),
      [
        "the file changed while it was read (another process truncated or rewrote it); read it again once it is complete"
      ], file: file, line: line)
  }

  /// The mending is a repair in the process's one chain of crash handlers: a recorder's or a
  /// terminal's crash callback in the same process is not called for a fault it mends, and stays
  /// installed for a real crash.
  func testAMendedFaultIsNoCrashForTheOtherCrashCallbacks() throws {
    let registration = FatalSignals.register(context: UnsafeMutableRawPointer(bitPattern: 16)!) {
      _, _ in crashCallbacks.add(1, ordering: .relaxed)
    }
    defer { FatalSignals.unregister(registration) }
    let path = try writeTrace(events: 100_000)
    let reading = TraceReader.read(
      path: path, workers: 2, pageChunk: PageRelease.defaultChunk,
      afterMapping: { _ = truncate(path, 4096) })
    assertChanged(reading)
    XCTAssertEqual(crashCallbacks.load(ordering: .relaxed), 0)
  }

  func testAFileTruncatedAfterItIsMappedIsReportedAsChangedOnOneThreadAndOnSeveral() throws {
    for workers in [1, 2, 4] {
      let path = try writeTrace(events: 100_000)
      let reading = TraceReader.read(
        path: path, workers: workers, pageChunk: PageRelease.defaultChunk,
        afterMapping: { _ = truncate(path, 4096) })
      assertChanged(reading)
    }
  }

  func testAFileTruncatedToNothingAfterItIsMappedIsReportedAsChanged() throws {
    let path = try writeTrace(events: 20_000)
    let reading = TraceReader.read(
      path: path, workers: 2, pageChunk: 1, afterMapping: { _ = truncate(path, 0) })
    assertChanged(reading)
  }

  /// Shrunk inside its last page, the file raises no fault (the page reads zeros past the
  /// end): its size says it changed.
  func testAFileShrunkWithinItsLastPageIsReportedAsChanged() throws {
    let path = try writeTrace(events: 1_000)
    let size = try XCTUnwrap(
      FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    let reading = TraceReader.read(
      path: path, pageChunk: PageRelease.defaultChunk,
      afterMapping: { _ = truncate(path, off_t(size - 10)) })
    assertChanged(reading)
  }

  func testAFileAppendedToWhileItIsReadIsReadAsItWasWhenMapped() throws {
    let path = try writeTrace(events: 1_000)
    let reading = TraceReader.read(
      path: path, pageChunk: PageRelease.defaultChunk,
      afterMapping: {
        let handle = FileHandle(forWritingAtPath: path)
        _ = try? handle?.seekToEnd()
        let line = #"{"t":5000,"e":"schedule","a":5000,"q":1,"mode":"async","due":5000,"th":1}"#
        handle?.write(Data(line.utf8 + [10]))
        try? handle?.close()
      })
    XCTAssertEqual(reading.trace?.events.count, 1_000)
  }

  /// Once the reader is done, a fault outside any mapping it guards is not its to handle: a
  /// truncated file read after another one is still guarded, and the guard is released.
  func testGuardsAreReleasedAfterEachRead() throws {
    for _ in 0..<(MappedFileFaults.slotCount + 2) {
      let path = try writeTrace(events: 200)
      let reading = TraceReader.read(
        path: path, pageChunk: PageRelease.defaultChunk, afterMapping: { _ = truncate(path, 100) })
      assertChanged(reading)
    }
  }
}

/// How often a crash callback ran (a C callback captures nothing).
private let crashCallbacks = Atomic<Int>(0)
