import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import XCTest

/// An action's life from its indexed events (``ActionEventIndex``) is what scanning every event
/// after its schedule found, and reading it costs its own events, not the trace's.
final class ActionEventIndexTests: XCTestCase {
  func testLivesFromTheIndexEqualTheScanOnEveryBundledRecording() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Recordings.folder.path)
      .filter { $0.hasSuffix(".trace") }.sorted()
    XCTAssertFalse(names.isEmpty, "no recordings in \(Recordings.folder.path)")
    var related = 0
    for name in names {
      let trace = try XCTUnwrap(TraceReader.read(path: Recordings.folder.path + "/" + name).trace)
      let replay = ReplayEngine(trace: trace, makingKeyframes: false)
      for action in replay.actionIndices {
        let life = replay.life(of: action)
        XCTAssertEqual(life, Self.lifeByScanning(action, in: replay), "\(name): \(action)")
        related += life.children.count + life.cancelled.count
      }
    }
    XCTAssertGreaterThan(related, 0, "the recordings schedule or cancel from actions")
  }

  func testLivesFromTheIndexEqualTheScanOnRandomHostileTraces() {
    for seed in 1...300 {
      var random = SplitMix64(seed: UInt64(seed))
      let replay = ReplayEngine(trace: ReplayEnginePropertyTests.randomTrace(&random))
      for action in replay.actionIndices {
        XCTAssertEqual(
          replay.life(of: action), Self.lifeByScanning(action, in: replay), "seed \(seed)")
      }
    }
  }

  func testALifeReadsItsOwnEventsNotTheTracesAfterItFromAPackedIndex() {
    // The first action schedules one child and runs once; then 100,000 other actions live and
    // die. Its life costs its begin, its end and its child's schedule.
    func schedule(_ id: UInt32, at time: Int64, parent: UInt32 = 0) -> TraceEvent {
      .schedule(
        time: time, action: id, scheduler: 1, mode: .async, delay: 0, due: time, thread: 1,
        parent: parent, site: 0)
    }
    var events = [
      schedule(1, at: 0), .begin(time: 1, action: 1, thread: 1, run: 1),
      schedule(2, at: 2, parent: 1), .end(time: 3, action: 1, thread: 1, run: 1, duration: 2),
    ]
    for id in UInt32(3)..<100_003 {
      let time = Int64(id) * 10
      events.append(schedule(id, at: time))
      events.append(.begin(time: time + 1, action: id, thread: 1, run: 1))
      events.append(.end(time: time + 2, action: id, thread: 1, run: 1, duration: 1))
    }
    let replay = ReplayEngine(
      trace: Trace(
        header: TraceHeader(clock: .virtual, start: "", process: "big", pid: 1), events: events,
        schedulers: [
          1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "virtual", time: 0)
        ]),
      makingKeyframes: false)
    let first = ActionIndex(0)

    XCTAssertEqual(replay.eventsReadForLife(of: first), 3)
    // Packed: 2 bytes an offset where 64 neighbours lie close, as they do here (4 unpacked).
    XCTAssertLessThan(Double(replay.lifeIndexBytes) / Double(replay.eventCount), 2.5)
    XCTAssertEqual(replay.life(of: first).children, [ActionIndex(1)])
    XCTAssertEqual(replay.life(of: first).runs.map(\.ended), [3])
  }

  /// The life as it was found before the index: from every event after the action's schedule.
  private static func lifeByScanning(_ action: ActionIndex, in replay: ReplayEngine) -> ActionLife {
    let schedule = replay.scheduleEvent(of: action).offset
    return replay.life(of: action, reading: schedule..<replay.eventCount)
  }
}
