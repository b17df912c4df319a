import ChronoscopeTraceFormat
import XCTest

/// The names of event kinds and schedule modes: one table, written and read the same way.
final class TraceEventTests: XCTestCase {
  /// One event of `kind`, with every field it uses set.
  private func example(of kind: TraceEvent.Kind) -> TraceEvent {
    switch kind {
    case .schedule:
      .schedule(
        time: 1, action: 1, scheduler: 1, mode: .after, delay: 5, due: 6, thread: 1, parent: 0,
        site: 0)
    case .begin: .begin(time: 6, action: 1, thread: 2, run: 1)
    case .end: .end(time: 7, action: 1, thread: 2, run: 1, duration: 1)
    case .hop: .hop(time: 6, action: 1, from: 1, to: 2)
    case .cancel: .cancel(time: 8, action: 1, thread: 1, by: 0, started: true)
    case .mark: .mark(time: 9, thread: 1, mark: 0)
    case .task: .task(time: 1, action: 1, task: 42)
    case .work: .work(time: 1, action: 1, work: 0)
    case .wait:
      .wait(time: 9, thread: 1, scheduler: 1, duration: 4, on: .group, by: 1, site: 0)
    }
  }

  /// A `wait` line (a main thread blocked outside any run) keeps what it waited on, how long and
  /// who ended it; a wait on something else is an error at its field.
  func testAWaitLineIsReadWithItsObjectAndRefusedWithAnUnknownOne() throws {
    let text = """
      {"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"t","pid":1,"metadata":{}}
      {"t":0,"e":"scheduler","q":1,"label":"main","kind":"main","family":"dispatch"}
      {"t":5,"e":"wait","th":1,"q":1,"dur":5,"on":"semaphore"}
      {"t":9,"e":"wait","th":1,"dur":2,"on":"mutex"}

      """
    let reading = TraceReader.parse(Array(text.utf8), file: "w.trace")
    let wait = try XCTUnwrap(reading.trace?.events.first)
    XCTAssertEqual(wait.kind, .wait)
    XCTAssertEqual(wait.waitObject, .semaphore)
    XCTAssertEqual(wait.duration, 5)
    XCTAssertNil(wait.endedBy)
    XCTAssertEqual(wait.scheduler, 1)
    XCTAssertEqual(reading.trace?.events.count, 1)
    XCTAssertTrue(
      reading.diagnostics.contains {
        $0.severity == .error && $0.line == 4
          && $0.message.contains("unknown wait \"mutex\" (expected semaphore or group)")
      }, "\(reading.diagnostics)")
  }

  func testEveryKindIsWrittenUnderItsNameAndReadBackAsTheSameKind() throws {
    for kind in TraceEvent.Kind.allCases {
      var trace = Trace(
        header: TraceHeader(clock: .virtual, start: "", process: "tests", pid: 1),
        events: [example(of: kind)], marks: [MarkRecord(name: "moment")])
      trace.works = [WorkRecord(name: "search", fields: ["query": "swift"])]
      trace.schedulers[1] = SchedulerRecord(
        id: 1, label: "q", kind: "serial", family: "virtual", time: 0)
      let bytes = TraceEncoder.encode(trace)
      let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
      XCTAssertTrue(
        lines.contains { $0.contains("\"e\":\"\(kind.name)\"") },
        "\(kind) is written as \(kind.name)")

      let read = try XCTUnwrap(TraceReader.parse(bytes, file: "\(kind).trace").trace)
      XCTAssertEqual(read.events.map(\.kind), [kind])
      XCTAssertEqual(read.events, trace.events, "\(kind) round-trips with its fields")
      XCTAssertEqual(TraceEvent.Kind(name: kind.name), kind)
    }
  }

  func testKindNamesAreUniqueAndUnknownNamesAreNotKinds() {
    let names = TraceEvent.Kind.allCases.map(\.name)
    XCTAssertEqual(Set(names).count, names.count, "\(names)")
    XCTAssertFalse(names.contains(""))
    for definition in ["scheduler", "thread", "site", "close", "dropped", "Begin", "begin "] {
      XCTAssertNil(TraceEvent.Kind(name: definition), definition)
    }
  }

  func testEveryScheduleModeIsWrittenUnderItsNameAndReadBack() throws {
    let names = TraceEvent.ScheduleMode.allCases.map(\.name)
    XCTAssertEqual(Set(names).count, names.count, "\(names)")
    for mode in TraceEvent.ScheduleMode.allCases {
      var trace = Trace(
        header: TraceHeader(clock: .virtual, start: "", process: "tests", pid: 1),
        events: [
          .schedule(
            time: 1, action: 1, scheduler: 1, mode: mode, delay: 5, due: 6, thread: 1, parent: 0,
            site: 0)
        ])
      trace.schedulers[1] = SchedulerRecord(
        id: 1, label: "q", kind: "serial", family: "virtual", time: 0)
      let bytes = TraceEncoder.encode(trace)
      XCTAssertTrue(String(decoding: bytes, as: UTF8.self).contains("\"mode\":\"\(mode.name)\""))
      let read = try XCTUnwrap(TraceReader.parse(bytes, file: "mode.trace").trace)
      XCTAssertEqual(read.events.first?.mode, mode)
      XCTAssertEqual(TraceEvent.ScheduleMode(name: mode.name), mode)
    }
  }

  /// Actions 1 and 2, scheduled at 1 and 2 ns on scheduler 1, each followed by `line(action)`.
  private func twoActions(each line: (UInt32) -> TraceEvent) -> Trace {
    var trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "tests", pid: 1),
      events: [UInt32(1), 2].flatMap { action -> [TraceEvent] in
        let time = Int64(action)
        return [
          .schedule(
            time: time, action: action, scheduler: 1, mode: .async, delay: 0, due: time,
            thread: 1, parent: 0, site: 0),
          line(action),
        ]
      })
    trace.schedulers[1] = SchedulerRecord(
      id: 1, label: "q", kind: "serial", family: "virtual", time: 0)
    return trace
  }

  func testNamedWorkRoundTripsAndANamelessLineReads() throws {
    var trace = twoActions { .work(time: Int64($0), action: $0, work: $0 - 1) }
    trace.works = [
      WorkRecord(name: "search \"swift\"\u{1B}[2J", fields: ["query": "swift", "id": "7"]),
      WorkRecord(name: "", fields: ["request": "42"]),
    ]
    let text = String(decoding: TraceEncoder.encode(trace), as: UTF8.self)
    XCTAssertTrue(
      text.contains(
        #"{"t":1,"e":"work","a":1,"name":"search \"swift\"\u001b[2J","fields":{"id":"7","query":"swift"}}"#
      ), text)
    XCTAssertTrue(text.contains(#"{"t":2,"e":"work","a":2,"fields":{"request":"42"}}"#), text)
    let read = try XCTUnwrap(TraceReader.parse(Array(text.utf8), file: "work.trace").trace)
    XCTAssertEqual(read.works, trace.works)
    XCTAssertEqual(read.events, trace.events)
    XCTAssertEqual(
      read.works.map(\.summary), ["search \"swift\"\u{1B}[2J id=7 query=swift", "request=42"])
  }

  func testATasksNameIsWrittenOnEachOfItsLinesAndReadFromAny() throws {
    var trace = twoActions { .task(time: Int64($0), action: $0, task: 7) }
    trace.taskNames = [7: "search"]
    let text = String(decoding: TraceEncoder.encode(trace), as: UTF8.self)
    XCTAssertTrue(text.contains(#"{"t":1,"e":"task","a":1,"task":7,"name":"search"}"#), text)
    XCTAssertTrue(text.contains(#"{"t":2,"e":"task","a":2,"task":7,"name":"search"}"#), text)
    let read = try XCTUnwrap(TraceReader.parse(Array(text.utf8), file: "task.trace").trace)
    XCTAssertEqual(read.taskNames, [7: "search"])
    XCTAssertEqual(read.events, trace.events)
  }
}
