import Examples
import Foundation
import Recording
import Replay
import Scheduling
import Sharing
import TraceFormat
import VirtualTime
import XCTest

/// `TraceDiff` on crafted traces and on virtual-time recordings of one program with one change.
final class TraceDiffTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  /// Records ``FindingsDemo`` on virtual time with `fanOut` fetches and replays it.
  private static func recordDemo(fanOut: Int) throws -> ReplayEngine {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("diff-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let clock = VirtualClock()
    let recorder = try TraceRecorder(
      reproduciblePath: path, clock: .virtual { clock.now }, metadata: [:])
    let factory = RecordingSchedulerFactory(
      wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
    let demo = FindingsDemo(factory: factory, fanOut: fanOut) { clock.spend($0) }
    demo.runToEnd(advance: { clock.advance(by: .milliseconds(10)) }) { recorder.close() }
    return ReplayEngine(trace: try XCTUnwrap(TraceReader.read(path: path).trace))
  }

  func testTwoVirtualRecordingsOfTheSameProgramDoNotDiffer() throws {
    let diff = TraceDiff(try Self.recordDemo(fanOut: 10), try Self.recordDemo(fanOut: 10))
    XCTAssertTrue(diff.isSame, "exact, with no tolerance")
  }

  func testOneMoreFetchIsTheOnlyActionOfTheSecondTraceAndTheFirstDivergence() throws {
    let diff = TraceDiff(
      try Self.recordDemo(fanOut: 10), try Self.recordDemo(fanOut: 11), tolerance: 0)
    XCTAssertEqual(diff.onlyInA, [])
    XCTAssertEqual(diff.onlyInB.map(\.key.queue), ["demo.fetch.10"])
    let divergence = try XCTUnwrap(diff.firstDivergence)
    XCTAssertEqual(divergence.b?.action.key.queue, "demo.fetch.10", "the extra fetch ran")
    XCTAssertNotEqual(divergence.a?.action.key.queue, "demo.fetch.10")
    XCTAssertEqual(divergence.a?.began, divergence.b?.began, "where A ran something else")
    // Work due during the extra millisecond of fetching began a millisecond later.
    XCTAssertFalse(diff.timing.isEmpty)
    XCTAssertTrue(diff.timing.allSatisfy { $0.delta.magnitude <= UInt64(Self.ms) })
    let tolerant = TraceDiff(
      try Self.recordDemo(fanOut: 10), try Self.recordDemo(fanOut: 11), tolerance: Self.ms)
    XCTAssertEqual(tolerant.timing, [], "within a millisecond")
  }

  // MARK: Crafted traces

  private static func trace(_ events: [TraceEvent], sites: [UInt32: CallSiteRecord] = [:])
    -> ReplayEngine
  {
    var trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "v", time: 0),
        2: SchedulerRecord(id: 2, label: "net", kind: "serial", family: "v", time: 0),
      ],
      closing: .init(written: Int64(events.count), dropped: 0))
    trace.callSites = sites
    return ReplayEngine(trace: trace)
  }

  private static func action(
    _ id: UInt32, queue: UInt32, site: UInt32, at time: Int64, ran: Int64? = nil
  ) -> [TraceEvent] {
    var events: [TraceEvent] = [
      .schedule(
        time: time, action: id, scheduler: queue, mode: .async, delay: 0, due: time, thread: 1,
        parent: 0, site: site)
    ]
    if let ran {
      events.append(.begin(time: ran, action: id, thread: 1, run: 1))
      events.append(.end(time: ran + ms, action: id, thread: 1, run: 1, duration: ms))
    }
    return events
  }

  private static let sites: [UInt32: CallSiteRecord] = [
    1: CallSiteRecord(id: 1, file: "App.swift", line: 10, function: "load()"),
    2: CallSiteRecord(id: 2, file: "App.swift", line: 20, function: "show()"),
  ]

  func testActionsAreMatchedByQueueSiteAndOccurrenceNotById() {
    // B schedules the same work with other ids (one more action before, never run, elsewhere).
    let a = Self.trace(
      Self.action(1, queue: 2, site: 1, at: 0, ran: 10 * Self.ms)
        + Self.action(2, queue: 1, site: 2, at: 20 * Self.ms, ran: 30 * Self.ms),
      sites: Self.sites)
    let b = Self.trace(
      Self.action(7, queue: 1, site: 1, at: 0)
        + Self.action(8, queue: 2, site: 1, at: 0, ran: 10 * Self.ms)
        + Self.action(9, queue: 1, site: 2, at: 20 * Self.ms, ran: 31 * Self.ms),
      sites: Self.sites)
    let diff = TraceDiff(a, b, tolerance: 2 * Self.ms)
    XCTAssertNil(diff.firstDivergence, "the same runs in the same order")
    XCTAssertEqual(diff.onlyInB.map(\.id), [ActionID(rawValue: 7)])
    XCTAssertEqual(diff.onlyInB.first?.key.site, "App.swift:10 load()")
    XCTAssertEqual(diff.timing, [], "1 ms later is within the tolerance")
    let exact = TraceDiff(a, b, tolerance: 0)
    XCTAssertEqual(exact.timing.map(\.aspect), [.began(run: 1)])
    XCTAssertEqual(exact.timing.first?.delta, Self.ms)
    XCTAssertEqual(exact.timing.first?.bID, ActionID(rawValue: 9))
  }

  func testTheFirstDivergenceSaysWhatEachTraceRanThere() {
    let a = Self.trace(
      Self.action(1, queue: 2, site: 1, at: 0, ran: 1 * Self.ms)
        + Self.action(2, queue: 1, site: 2, at: 0, ran: 5 * Self.ms), sites: Self.sites)
    let b = Self.trace(
      Self.action(1, queue: 2, site: 1, at: 0, ran: 1 * Self.ms)
        + Self.action(2, queue: 1, site: 2, at: 0), sites: Self.sites)
    let diff = TraceDiff(a, b)
    XCTAssertEqual(diff.firstDivergence?.position, 2)
    XCTAssertEqual(diff.firstDivergence?.a?.action.key.site, "App.swift:20 show()")
    XCTAssertNil(diff.firstDivergence?.b, "B ran nothing more")
    XCTAssertEqual(diff.timing.map(\.aspect), [.runs])
    XCTAssertFalse(diff.isSame)
  }
}
