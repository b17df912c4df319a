@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// The inspector's run loop (`InspectorApp.run(on:following:)`) on a scripted display: what the
/// CLI's `view` did in its own loop, now in the library and tested without a terminal.
final class InspectorRunLoopTests: XCTestCase {
  /// A display that hands out scripted reads (nil: no key before the timeout) and keeps what
  /// was drawn; past the script it reads `q`.
  private final class ScriptedDisplay: InspectorDisplay {
    let width = 120
    let height = 40
    let hasColors = false
    var reads: [InputKey?]
    var frames: [ScreenGrid] = []
    var timeouts: [Int] = []
    /// The signal that arrives with the read at this index of the script, if any.
    var signal: (read: Int, number: Int32)?
    private var readCount = 0

    init(_ reads: [InputKey?]) { self.reads = reads }

    func draw(_ grid: ScreenGrid) { frames.append(grid) }

    func readKey(timeoutMilliseconds: Int) -> InputKey? {
      timeouts.append(timeoutMilliseconds)
      defer { readCount += 1 }
      return reads.isEmpty ? .character("q") : reads.removeFirst()
    }

    var interruption: Int32? {
      guard let signal, readCount > signal.read else { return nil }
      return signal.number
    }
  }

  private static let recording = GoldenScreenTests.recordings.appendingPathComponent(
    "busy-app-virtual.trace"
  ).path

  private func inspector() throws -> InspectorApp {
    let trace = try XCTUnwrap(TraceReader.read(path: Self.recording).trace)
    return InspectorApp(replay: ReplayEngine(trace: trace), name: "busy-app-virtual.trace")
  }

  func testPausedTheLoopWaitsForKeysAndDrawsOnlyWhenOneCame() throws {
    var app = try inspector()
    let display = ScriptedDisplay([nil, nil, .right, nil, .character("q")])

    let end = app.run(on: display)

    XCTAssertEqual(end, .quit)
    XCTAssertEqual(display.frames.count, 2, "the first frame, then one after the key")
    XCTAssertEqual(Set(display.timeouts), [-1], "paused, it waits for a key without waking")
    XCTAssertEqual(app.replay.position, 1, "the key reached the inspector")
    XCTAssertEqual(app.screenSize?.width, 120, "it learnt the display's size")
  }

  func testASignalEndsTheLoopWithItsNumber() throws {
    var app = try inspector()
    let display = ScriptedDisplay([nil, nil, nil])
    display.signal = (read: 1, number: 15)

    XCTAssertEqual(app.run(on: display), .interrupted(signal: 15))
    XCTAssertEqual(display.timeouts.count, 2, "it ended at the read the signal came with")
  }

  func testFollowingTheLoopReadsWhatWasWrittenSinceTheFileWasFirstLookedAt() throws {
    let lines = try String(contentsOfFile: Self.recording, encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false)
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("follow-\(UUID().uuidString).trace").path
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    let half = lines.prefix(lines.count / 2).joined(separator: "\n") + "\n"
    try half.write(toFile: path, atomically: false, encoding: .utf8)
    let followed = FollowedFile(path: path)
    var app = InspectorApp(
      replay: ReplayEngine(trace: try XCTUnwrap(TraceReader.read(path: path).trace)), name: path)
    let before = app.replay.eventCount
    try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
    let display = ScriptedDisplay([nil, .character("q")])

    XCTAssertEqual(app.run(on: display, following: followed), .quit)

    XCTAssertGreaterThan(app.replay.eventCount, before)
    XCTAssertTrue(app.isLive, "at the end, the cursor moved with the new events")
    XCTAssertEqual(display.timeouts.first, FollowedFile.interval)
    XCTAssertEqual(display.frames.count, 2, "the first frame, then one for the newer read")
  }
}
