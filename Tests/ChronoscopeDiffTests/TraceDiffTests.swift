import ChronoscopeDiff
@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeRecording
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeScheduling
import ChronoscopeTraceFormat
import ChronoscopeVirtualTime
import Foundation
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
    XCTAssertEqual(diff.onlyInB.map(\.key.scheduler), ["demo.fetch.10"])
    let divergence = try XCTUnwrap(diff.firstDivergence)
    XCTAssertEqual(divergence.b?.action.key.scheduler, "demo.fetch.10", "the extra fetch ran")
    XCTAssertNotEqual(divergence.a?.action.key.scheduler, "demo.fetch.10")
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
    _ id: UInt32, scheduler: UInt32, site: UInt32, at time: Int64, ran: Int64? = nil
  ) -> [TraceEvent] {
    var events: [TraceEvent] = [
      .schedule(
        time: time, action: id, scheduler: scheduler, mode: .async, delay: 0, due: time, thread: 1,
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

  func testActionsAreMatchedBySchedulerSiteAndOccurrenceNotById() {
    // B schedules the same work with other ids (one more action before, never run, elsewhere).
    let a = Self.trace(
      Self.action(1, scheduler: 2, site: 1, at: 0, ran: 10 * Self.ms)
        + Self.action(2, scheduler: 1, site: 2, at: 20 * Self.ms, ran: 30 * Self.ms),
      sites: Self.sites)
    let b = Self.trace(
      Self.action(7, scheduler: 1, site: 1, at: 0)
        + Self.action(8, scheduler: 2, site: 1, at: 0, ran: 10 * Self.ms)
        + Self.action(9, scheduler: 1, site: 2, at: 20 * Self.ms, ran: 31 * Self.ms),
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
      Self.action(1, scheduler: 2, site: 1, at: 0, ran: 1 * Self.ms)
        + Self.action(2, scheduler: 1, site: 2, at: 0, ran: 5 * Self.ms), sites: Self.sites)
    let b = Self.trace(
      Self.action(1, scheduler: 2, site: 1, at: 0, ran: 1 * Self.ms)
        + Self.action(2, scheduler: 1, site: 2, at: 0), sites: Self.sites)
    let diff = TraceDiff(a, b)
    XCTAssertEqual(diff.firstDivergence?.position, 2)
    XCTAssertEqual(diff.firstDivergence?.a?.action.key.site, "App.swift:20 show()")
    XCTAssertNil(diff.firstDivergence?.b, "B ran nothing more")
    XCTAssertEqual(diff.timing.map(\.aspect), [.runs])
    XCTAssertFalse(diff.isSame)
  }

  // MARK: An edit, another start

  /// `sites` with every line from `line` on moved down by `by`, as an edit above them does.
  private static func moved(
    _ sites: [UInt32: CallSiteRecord], from line: Int, by: Int
  ) -> [UInt32: CallSiteRecord] {
    sites.mapValues { site in
      var site = site
      if site.line >= line { site.line += by }
      return site
    }
  }

  /// `load()` schedules on `net` from two lines and `show()` on `main` from one, as a program
  /// does before and after a fix.
  private static let loaderSites: [UInt32: CallSiteRecord] = [
    1: CallSiteRecord(id: 1, file: "App/Loader.swift", line: 10, function: "load()"),
    2: CallSiteRecord(id: 2, file: "App/Loader.swift", line: 14, function: "load()"),
    3: CallSiteRecord(id: 3, file: "App/Loader.swift", line: 30, function: "show()"),
  ]

  private static func loaderEvents(shift: Int64 = 0) -> [TraceEvent] {
    action(1, scheduler: 2, site: 1, at: shift, ran: shift + 1 * ms)
      + action(2, scheduler: 2, site: 2, at: shift + 1 * ms, ran: shift + 3 * ms)
      + action(3, scheduler: 2, site: 1, at: shift + 2 * ms, ran: shift + 5 * ms)
      + action(4, scheduler: 1, site: 3, at: shift + 6 * ms, ran: shift + 7 * ms)
  }

  private static func sortedByTime(_ events: [TraceEvent]) -> [TraceEvent] {
    events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
      .map(\.element)
  }

  func testAFourLineEditThatMovesLinesLeavesNoActionOnlyInOneTrace() {
    let before = Self.trace(Self.sortedByTime(Self.loaderEvents()), sites: Self.loaderSites)
    // Four lines added at the top of load(): every call site below moves down.
    let after = Self.trace(
      Self.sortedByTime(Self.loaderEvents()), sites: Self.moved(Self.loaderSites, from: 9, by: 4))
    let diff = TraceDiff(before, after, tolerance: 0)
    XCTAssertEqual(diff.onlyInA, [])
    XCTAssertEqual(diff.onlyInB, [])
    XCTAssertTrue(diff.isSame)
    // Only the second of load()'s lines moved (a line added between them): still the same.
    let between = Self.trace(
      Self.sortedByTime(Self.loaderEvents()), sites: Self.moved(Self.loaderSites, from: 12, by: 4))
    XCTAssertTrue(TraceDiff(before, between, tolerance: 0).isSame)
  }

  func testLinesStillTellApartWhatOneFunctionSchedulesFromSeveralPlaces() {
    let before = Self.trace(Self.sortedByTime(Self.loaderEvents()), sites: Self.loaderSites)
    // After the edit the line-14 work (action 2) runs 1 ms later: it is action 2 that differs,
    // not the second action scheduled by load().
    var events = Self.loaderEvents()
    events = events.map { event in
      guard event.action == 2, event.kind != .schedule else { return event }
      return event.kind == .begin
        ? .begin(time: event.time + Self.ms, action: 2, thread: 1, run: 1)
        : .end(time: event.time + Self.ms, action: 2, thread: 1, run: 1, duration: Self.ms)
    }
    let after = Self.trace(
      Self.sortedByTime(events), sites: Self.moved(Self.loaderSites, from: 9, by: 4))
    let diff = TraceDiff(before, after, tolerance: 0)
    XCTAssertEqual(diff.onlyInA, [])
    XCTAssertEqual(diff.onlyInB, [])
    XCTAssertEqual(diff.timing.map(\.a.id), [ActionID(rawValue: 2)])
    XCTAssertEqual(diff.timing.map(\.aspect), [.began(run: 1)])
    XCTAssertEqual(diff.timing.first?.a.key.site, "App/Loader.swift:14 load()")
    XCTAssertEqual(diff.timing.first?.a.key.occurrence, 2, "load()'s second action on net")
  }

  func testRecordingsStartedAtDifferentTimesShowNoTimingDifferences() {
    let early = Self.trace(Self.sortedByTime(Self.loaderEvents()), sites: Self.loaderSites)
    // The recorder of the second run started 2.5 s before the same work.
    let late = Self.trace(
      Self.sortedByTime(Self.loaderEvents(shift: 2_500 * Self.ms)), sites: Self.loaderSites)
    let diff = TraceDiff(early, late, tolerance: 0)
    XCTAssertTrue(diff.isSame, "\(diff.timing)")
    XCTAssertEqual(diff.origin, .firstEvent)
    XCTAssertEqual(diff.originB - diff.originA, 2_500 * Self.ms)
    // Relative timing that does differ still shows, by how much it differs.
    var events = Self.loaderEvents(shift: 2_500 * Self.ms)
    events[events.count - 2] = .begin(time: 2_508 * Self.ms, action: 4, thread: 1, run: 1)
    events[events.count - 1] = .end(
      time: 2_509 * Self.ms, action: 4, thread: 1, run: 1, duration: Self.ms)
    let later = TraceDiff(
      early, Self.trace(Self.sortedByTime(events), sites: Self.loaderSites), tolerance: 0)
    XCTAssertEqual(later.timing.map(\.aspect), [.began(run: 1)])
    XCTAssertEqual(later.timing.first?.delta, Self.ms)
    XCTAssertEqual(later.timing.first?.valueA, 7 * Self.ms, "from the first event")
  }

  func testANamedMarkLinesTheTracesUpWhereTheAppSaidTheWorkStarts() throws {
    func marked(_ mark: Int64, before: [TraceEvent] = []) -> ReplayEngine {
      var events = before + [.mark(time: mark, thread: 1, mark: 0)]
      events += Self.loaderEvents(shift: mark)
      var trace = Trace(
        header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1),
        events: Self.sortedByTime(events),
        schedulers: [
          1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "v", time: 0),
          2: SchedulerRecord(id: 2, label: "net", kind: "serial", family: "v", time: 0),
        ],
        closing: .init(written: Int64(events.count), dropped: 0))
      trace.callSites = Self.loaderSites
      trace.marks = [MarkRecord(name: "request"), MarkRecord(name: "boot")]
      return ReplayEngine(trace: trace)
    }
    let a = marked(10 * Self.ms)
    // B booted first (a mark at 0), then the same request 40 ms in.
    let b = marked(40 * Self.ms, before: [.mark(time: 0, thread: 1, mark: 1)])
    XCTAssertFalse(TraceDiff(a, b, tolerance: 0).timing.isEmpty, "from the first event")
    let diff = try TraceDiff(a, b, tolerance: 0, origin: .mark("request"))
    XCTAssertTrue(diff.isSame, "\(diff.timing)")
    XCTAssertEqual(diff.originA, 10 * Self.ms)
    XCTAssertEqual(diff.originB, 40 * Self.ms)
    XCTAssertThrowsError(try TraceDiff(b, a, origin: .mark("boot"))) { error in
      XCTAssertEqual((error as? TraceDiff.MissingMark)?.trace, "B")
      XCTAssertEqual("\(error)", #"trace B has no mark named "boot""#)
    }
  }
}
