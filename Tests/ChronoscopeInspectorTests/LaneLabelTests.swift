@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// A row always says which lane it is: a lane's label is cut in its middle, never at its
/// distinguishing end, and its lane number is kept, in every panel.
final class LaneLabelTests: XCTestCase {
  private func lines(_ grid: ScreenGrid) -> [Substring] {
    grid.plainText.split(separator: "\n", omittingEmptySubsequences: false)
  }

  func testPendingAndEventsRowsKeepTheLaneNumberAtTheDefaultSize() throws {
    var app = try GoldenScreenTests.app("busy-app")
    app.seek(to: .time(120_000_000))
    let screen = lines(app.render(width: 100, height: 30))
    // #262 is on the tenth lane labelled app.request.2.
    // Pending is narrower: the label is cut in its middle, keeping `.2` and the number.
    let pending = try XCTUnwrap(screen.first { $0.hasPrefix("  #262 sync") })
    XCTAssertTrue(pending.contains("app…st.2·10 "), String(pending))
    let events = screen.filter { $0.contains("schedule #262") || $0.contains("begin    #262") }
    XCTAssertEqual(events.count, 2, screen.joined(separator: "\n"))
    for row in events { XCTAssertTrue(row.contains("app.request.2·10"), String(row)) }
  }

  func testLabelsThatDifferAtTheirEndReadDifferently() throws {
    var app = try GoldenScreenTests.app("feed-refresher")
    app.seek(to: .time(10_000_000))
    for width in [100, 200] {
      let screen = lines(app.render(width: width, height: 30))
      let lanes = screen[2..<8].filter { $0.dropFirst().hasPrefix("Swift") }.map { $0.prefix(30) }
      XCTAssertEqual(lanes.count, 2, screen.joined(separator: "\n"))
      XCTAssertNotEqual(lanes.first, lanes.last, "at \(width) columns")
      XCTAssertTrue(lanes.contains { $0.contains("#2") }, "\(lanes)")
    }
  }

  /// Threads that share a long name (a redacted trace's hashes) are told apart by their ids,
  /// at the end of their titles: the lanes, the Running panel and the Events panel keep them.
  func testThreadsThatShareALongNameKeepTheirIdsEverywhere() throws {
    let name = "r:4185b3c0818b6f1e2a3c"
    var events: [TraceEvent] = []
    for thread: UInt32 in 2...4 {
      let action = thread - 1
      events += [
        .schedule(
          time: Int64(action) * 1_000, action: action, scheduler: 1, mode: .async, delay: 0,
          due: Int64(action) * 1_000, thread: 1, parent: 0, site: 0),
        .begin(time: Int64(action) * 1_000 + 500, action: action, thread: thread, run: 1),
      ]
    }
    let trace = Trace(
      header: TraceHeader(clock: .host, start: "", process: "t", pid: 1), events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "work", kind: "concurrent", family: "dispatch", time: 0)
      ],
      threadNames: [1: "main", 2: name, 3: name, 4: name],
      closing: Trace.Closing(written: Int64(events.count), dropped: 0))
    var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "t", timeStep: 1_000)
    app.seek(to: .event(events.count))
    app.group(by: .byThread)
    let screen = lines(app.render(width: 60, height: 30))
    let text = screen.joined(separator: "\n")
    for thread in 2...4 {
      XCTAssertEqual(
        screen[2..<7].filter { $0.contains("(\(thread))") }.count, 1, "lane \(thread):\n\(text)")
      XCTAssertTrue(
        screen.contains { $0.contains("on r:") && $0.contains("(\(thread))") },
        "running on \(thread):\n\(text)")
      XCTAssertTrue(
        screen.contains { $0.contains("begin") && $0.contains("(\(thread))") },
        "began on \(thread):\n\(text)")
    }
  }

  /// Wide characters take two columns: a cut label never pushes the strip to the right.
  func testWideLabelsAreCutToTheirColumnsAndKeepTheirNumber() throws {
    let label = "検索キャッシュの更新キュー"
    let events: [TraceEvent] = (1...2).map { scheduler in
      .schedule(
        time: Int64(scheduler) * 1_000, action: UInt32(scheduler), scheduler: UInt32(scheduler),
        mode: .async,
        delay: 0, due: Int64(scheduler) * 1_000, thread: 1, parent: 0, site: 0)
    }
    let trace = Trace(
      header: TraceHeader(clock: .host, start: "", process: "t", pid: 1), events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: label, kind: "serial", family: "dispatch", time: 0),
        2: SchedulerRecord(id: 2, label: label, kind: "serial", family: "dispatch", time: 0),
      ],
      threadNames: [1: "main"], closing: Trace.Closing(written: 2, dropped: 0))
    var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "t", timeStep: 1_000)
    app.seek(to: .event(2))
    let grid = app.render(width: 60, height: 20)
    let screen = lines(grid)
    for (row, number) in [(2, 1), (3, 2)] {
      XCTAssertTrue(screen[row].contains("·\(number) "), String(screen[row]))
      // The strip starts at the same column on every row: column 17 at 60 columns.
      XCTAssertEqual(grid[row, 16].text, " ", String(screen[row]))
      XCTAssertTrue(["·", "s", "│"].contains(grid[row, 17].text), String(screen[row]))
    }
    let pending = screen.filter { $0.hasPrefix("  #") }
    XCTAssertEqual(pending.count, 2, screen.joined(separator: "\n"))
    XCTAssertTrue(pending[0].contains("·1") && pending[1].contains("·2"), "\(pending)")
  }
}
