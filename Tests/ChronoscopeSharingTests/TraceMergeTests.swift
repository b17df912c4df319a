@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// Several processes' traces merged onto one timeline.
final class TraceMergeTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  /// A process that schedules action 1 on scheduler 1 at `at` and runs it 1 ms later on thread 2.
  private static func process(
    _ name: String, pid: Int64, startNanoseconds: Int64?, at time: Int64 = 0,
    clock: TraceHeader.ClockKind = .host
  ) -> Trace {
    var header = TraceHeader(clock: clock, start: "", process: name, pid: pid)
    header.startNanoseconds = startNanoseconds
    var trace = Trace(
      header: header,
      events: [
        .schedule(
          time: time, action: 1, scheduler: 1, mode: .async, delay: 0, due: time, thread: 1,
          parent: 0, site: 1),
        .hop(time: time + ms, action: 1, from: 1, to: 2),
        .begin(time: time + ms, action: 1, thread: 2, run: 1),
        .end(time: time + 2 * ms, action: 1, thread: 2, run: 1, duration: ms),
      ],
      schedulers: [1: SchedulerRecord(id: 1, label: "net", kind: "serial", family: "d", time: 0)],
      callSites: [1: CallSiteRecord(id: 1, file: "\(name).swift", line: 3, function: "f()")],
      threadNames: [1: "main", 2: "-qos.overcommit"],
      closing: .init(written: 4, dropped: 0))
    trace.closedAt = time + 3 * ms
    return trace
  }

  func testProcessesShareOneTimelineWithDisjointIdsAndTaggedNames() throws {
    let client = Self.process("client", pid: 10, startNanoseconds: 1_000 * Self.ms)
    let server = Self.process("server", pid: 20, startNanoseconds: 1_005 * Self.ms)
    let merged = try TraceMerge.merge([client, server], sources: ["c.trace", "s.trace"])
    XCTAssertEqual(merged.events.count, 8)
    XCTAssertEqual(merged.events.map(\.time), merged.events.map(\.time).sorted())
    XCTAssertEqual(
      merged.events.filter { $0.kind == .schedule }.map(\.time), [0, 5 * Self.ms],
      "the server started 5 ms after the client")
    XCTAssertEqual(Set(merged.events.map(\.action)), [1, 2], "the server's action 1 is now 2")
    XCTAssertEqual(merged.schedulers.values.map(\.label).sorted(), ["P1 net", "P2 net"])
    XCTAssertEqual(
      merged.threadNames.values.sorted(), ["P1 main", "P1 worker 2", "P2 main", "P2 worker 2"],
      "a cut-off thread name is a worker, named by its id in its own trace")
    XCTAssertEqual(merged.callSites.values.map(\.file).sorted(), ["client.swift", "server.swift"])
    XCTAssertEqual(merged.closing, Trace.Closing(written: 8, dropped: 0))
    XCTAssertEqual(merged.closedAt, 8 * Self.ms)
    XCTAssertEqual(merged.header.startNanoseconds, 1_000 * Self.ms)
    XCTAssertEqual(
      merged.header.metadata["merged"],
      "P1 = client pid 10 from c.trace; P2 = server pid 20 from s.trace")
    // The merged trace encodes, reads back without a diagnostic, and replays consistently.
    let reading = TraceReader.parse(TraceEncoder.encode(merged), file: "merged")
    XCTAssertEqual(reading.diagnostics, [])
    var replay = ReplayEngine(trace: try XCTUnwrap(reading.trace))
    replay.seek(toTime: 3 * Self.ms / 2)
    XCTAssertEqual(replay.runningCount, 1, "the client's action runs")
    XCTAssertEqual(replay.pendingCount(), 0, "the server has not started")
    replay.seek(toTime: 11 * Self.ms / 2)
    XCTAssertEqual(replay.pendingCount(), 1, "the server's action waits")
    XCTAssertEqual(replay.runningCount, 0)
    replay._checkInvariants()
  }

  func testTwoProcessesTasksStayTwoTasks() throws {
    var client = Self.process("client", pid: 10, startNanoseconds: 1_000 * Self.ms)
    var server = Self.process("server", pid: 20, startNanoseconds: 1_000 * Self.ms)
    // Both runtimes number their first task 1.
    client.events.insert(.task(time: 0, action: 1, task: 1), at: 1)
    server.events.insert(.task(time: 0, action: 1, task: 1), at: 1)
    let merged = try TraceMerge.merge([client, server])
    let replay = ReplayEngine(trace: merged)
    XCTAssertEqual(replay.tasks.map(\.id.rawValue), [1, 2])
    XCTAssertEqual(
      replay.actionIndices.map { replay.task(of: $0)?.rawValue }, [1, 2],
      "each process's action is work of its own task")
    XCTAssertEqual(merged.threadNames.count, 4, "a task line names no thread")
  }

  func testEachProcesssNamedWorkKeepsItsOwnName() throws {
    var client = Self.process("client", pid: 10, startNanoseconds: 1_000 * Self.ms)
    var server = Self.process("server", pid: 20, startNanoseconds: 1_000 * Self.ms)
    client.events.insert(.work(time: 0, action: 1, work: 0), at: 1)
    client.works = [WorkRecord(name: "fetch", fields: ["id": "1"])]
    server.events.insert(.work(time: 0, action: 1, work: 0), at: 1)
    server.works = [WorkRecord(name: "serve", fields: ["id": "1"])]
    let merged = try TraceMerge.merge([client, server])
    let replay = ReplayEngine(trace: merged)
    XCTAssertEqual(
      replay.actionIndices.map { replay.work(of: $0)?.summary }, ["fetch id=1", "serve id=1"])
    XCTAssertEqual(merged.threadNames.count, 4, "a work line names no thread")
  }

  func testTracesThatCannotBeLinedUpOrWouldOverflowAreRefused() {
    let host = Self.process("a", pid: 1, startNanoseconds: 0)
    let virtual = Self.process("b", pid: 2, startNanoseconds: nil, clock: .virtual)
    XCTAssertThrowsError(try TraceMerge.merge([host, virtual])) { error in
      XCTAssertTrue("\(error)".contains("virtual"), "\(error)")
    }
    var huge = Self.process("a", pid: 1, startNanoseconds: 0)
    huge.events[0] = .schedule(
      time: 0, action: .max, scheduler: 1, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
      site: 0)
    XCTAssertThrowsError(try TraceMerge.merge([host, huge]), "ids past 2^32 - 1")
    let late = Self.process(
      "c", pid: 3, startNanoseconds: TraceLimits.maximumTime,
      at: TraceLimits.maximumTime - 10 * Self.ms)
    XCTAssertThrowsError(try TraceMerge.merge([host, late]), "times past 2^62 - 1")
  }

  func testMergedRecordingsKeepEveryProcessesEventsInItsOwnOrder() throws {
    let names = ["contact-loader", "message-loader", "timeout-success"]
    let traces = try names.map { try XCTUnwrap(TraceReader.read(path: Recordings.path($0)).trace) }
    let merged = try TraceMerge.merge(traces)
    XCTAssertEqual(merged.events.count, traces.reduce(0) { $0 + $1.events.count })
    let timeline = ProcessTimeline(headers: traces.map(\.header))
    // Each process's events, taken back out of the merge by their scheduler's tag, are its own.
    let replay = ReplayEngine(trace: merged)
    for (index, trace) in traces.enumerated() {
      let tag = TraceMerge.tag(index) + " "
      let own = replay.eventIndices.map(replay.event).filter { event in
        guard let action = event.action else { return false }
        return replay.scheduler(replay.action(action).scheduler)?.label.hasPrefix(tag) ?? false
      }
      let expected = trace.events.filter { $0.kind != .mark }
      XCTAssertEqual(own.map(\.kind), expected.map(\.kind), names[index])
      XCTAssertEqual(own.map(\.time), expected.map { $0.time + timeline.offsets[index] })
    }
  }
}
