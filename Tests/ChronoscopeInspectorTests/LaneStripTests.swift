@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// What the lane strips draw: runs as bars from their begin to their end, events over them, the
/// cursor over the bars, and the marks on a row of their own.
final class LaneStripTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  /// One request on `app.request.0`, due at 100 ms, that runs from then to 378 ms (278 ms), and
  /// marks at 300 and 390 ms.
  private func requestApp() throws -> InspectorApp {
    let ms = Self.ms
    let events: [TraceEvent] = [
      .schedule(
        time: 0, action: 1, scheduler: 1, mode: .after, delay: 100 * ms, due: 100 * ms, thread: 1,
        parent: 0, site: 0),
      .begin(time: 100 * ms, action: 1, thread: 2, run: 1),
      .mark(time: 300 * ms, thread: 1, mark: 0),
      .end(time: 378 * ms, action: 1, thread: 2, run: 1, duration: 278 * ms),
      .mark(time: 390 * ms, thread: 1, mark: 1),
    ]
    let trace = Trace(
      header: TraceHeader(clock: .host, start: "", process: "t", pid: 1), events: events,
      schedulers: [
        1: SchedulerRecord(
          id: 1, label: "app.request.0", kind: "serial", family: "dispatch", time: 0)
      ],
      threadNames: [1: "main", 2: "worker"],
      marks: [MarkRecord(name: "typed"), MarkRecord(name: "shown")],
      closing: Trace.Closing(written: 5, dropped: 0))
    // A step of 100 ms: the strips show 400 ms, from 0 while the cursor is at 200 ms or before.
    return InspectorApp(replay: ReplayEngine(trace: trace), name: "request", timeStep: 100 * ms)
  }

  private func row(_ grid: ScreenGrid, startingWith prefix: String) throws -> Int {
    let lines = grid.plainText.split(separator: "\n", omittingEmptySubsequences: false)
    return try XCTUnwrap(lines.firstIndex { $0.hasPrefix(prefix) }, grid.plainText)
  }

  /// The first column of the strip (after the label) that shows `glyph`.
  private func column(of glyph: String, in grid: ScreenGrid, row: Int) throws -> Int {
    try XCTUnwrap((15..<grid.width).first { grid[row, $0].text == glyph }, "no \(glyph)")
  }

  func testARunDrawsAsABarAcrossTheColumnsOfItsTimeRange() throws {
    var app = try requestApp()
    app.seek(to: .time(200 * Self.ms))
    let grid = app.render(width: 100, height: 30)
    let lane = try row(grid, startingWith: "▸app.request.0")
    XCTAssertTrue(grid.plainText.contains("0p 1r"), "the request runs at the cursor")
    let begin = try column(of: "▶", in: grid, row: lane)
    let end = try column(of: "█", in: grid, row: lane)
    let cursor = try column(of: "│", in: grid, row: lane)
    // 278 ms of a 400 ms window 66 columns wide: some 45 columns.
    XCTAssertGreaterThan(end - begin, 40, grid.plainText)
    XCTAssertTrue((begin + 1)..<end ~= cursor)
    for column in (begin + 1)..<end where column != cursor {
      XCTAssertEqual(grid[lane, column].text, "━", "column \(column):\n\(grid.plainText)")
      let style = grid[lane, column].style
      if column < cursor {
        XCTAssertEqual(style.foreground, .green, "run so far: as begins and ends are")
      } else {
        XCTAssertTrue(style.dim, "still to run: dim, as events to come are")
      }
    }
    XCTAssertEqual(grid[lane, begin - 1].text, "·", "nothing runs before the begin")
    XCTAssertEqual(grid[lane, end + 1].text, "·", "nothing runs after the end")
  }

  func testEventsShowOverTheBarAndNothingRunsOnceItEnded() throws {
    var app = try requestApp()
    app.seek(to: .time(400 * Self.ms))
    // Zoomed in to 200 ms, narrower than the trace (a window that holds the whole trace shows
    // it from 0). At the end, 390 ms: the window is 290–490 ms; the run is under way at its
    // start and ends at 378 ms.
    _ = app.handle(.character("z"))
    let grid = app.render(width: 100, height: 30)
    let lane = try row(grid, startingWith: "▸app.request.0")
    let end = try column(of: "█", in: grid, row: lane)
    let first = try XCTUnwrap((15..<grid.width).first { grid[lane, $0].text != " " })
    for column in first..<end {
      XCTAssertEqual(grid[lane, column].text, "━", "column \(column):\n\(grid.plainText)")
    }
    XCTAssertFalse(
      ((end + 1)..<(grid.width - 16)).contains { grid[lane, $0].text == "━" }, grid.plainText)
    XCTAssertTrue(grid.plainText.contains("0p 0r"))
  }

  /// A slice that starts while #1 runs holds its end, not its begin: past that end, the strip
  /// draws the run from the window's start up to it, and a later run on the lane still shows.
  func testARunWhoseBeginASliceCutOffShowsUpToItsEnd() throws {
    let ms = Self.ms
    let events: [TraceEvent] = [
      .schedule(
        time: 0, action: 1, scheduler: 1, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
        site: 0),
      .end(time: 150 * ms, action: 1, thread: 2, run: 1, duration: 200 * ms),
      .schedule(
        time: 160 * ms, action: 2, scheduler: 1, mode: .async, delay: 0, due: 160 * ms, thread: 1,
        parent: 0, site: 0),
      .begin(time: 160 * ms, action: 2, thread: 2, run: 1),
      .end(time: 350 * ms, action: 2, thread: 2, run: 1, duration: 190 * ms),
      .mark(time: 390 * ms, thread: 1, mark: 0),
    ]
    let trace = Trace(
      header: TraceHeader(clock: .host, start: "", process: "t", pid: 1), events: events,
      schedulers: [
        1: SchedulerRecord(id: 1, label: "search", kind: "serial", family: "dispatch", time: 0)
      ],
      threadNames: [1: "main", 2: "worker"], marks: [MarkRecord(name: "done")],
      closing: Trace.Closing(written: 6, dropped: 0))
    var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "slice", timeStep: 100 * ms)
    app.seek(to: .time(200 * ms))
    let grid = app.render(width: 100, height: 30)
    let lane = try row(grid, startingWith: "▸search")
    let first = try XCTUnwrap((15..<grid.width).first { grid[lane, $0].text != " " })
    let ends = (first..<(grid.width - 16)).filter { grid[lane, $0].text == "█" }
    XCTAssertEqual(ends.count, 2, grid.plainText)
    // The first column shows #1's schedule (a finding, to the replay); #2's begin one too.
    for column in (first + 1)..<ends[0] {
      XCTAssertEqual(
        grid[lane, column].text, "━", "#1 ran from before the slice:\n\(grid.plainText)")
    }
    XCTAssertEqual(grid[lane, ends[0] + 1].text, "·", "nothing runs between the two")
    for column in (ends[0] + 3)..<ends[1] where grid[lane, column].text != "│" {
      XCTAssertEqual(grid[lane, column].text, "━", "#2 runs:\n\(grid.plainText)")
    }
  }

  /// The virtual findings demo's #10 begins at 0.8 s, its last event, and never ends; the trace
  /// closes at 1.2 s. Past its last event the Running panel says it runs: so does its lane.
  func testARunStillGoingAtTheLastEventShowsUpToTheTracesEnd() throws {
    var app = try GoldenScreenTests.app("findings-demo-virtual")
    app.seek(to: .time(1_018_022_000))
    let grid = app.render(width: 100, height: 30)
    XCTAssertTrue(grid.plainText.contains("for 218.022ms"), grid.plainText)
    let lane = try row(grid, startingWith: " demo.stuck")
    let strip = (19..<(grid.width - 16)).map { grid[lane, $0].text }
    XCTAssertFalse(strip.contains("·"), "every column runs:\n\(grid.plainText)")
    XCTAssertEqual(strip.filter { $0 == "━" }.count, strip.count - 1, grid.plainText)
  }

  func testNothingRunsAfterTheTracesEnd() throws {
    var app = try GoldenScreenTests.app("findings-demo-virtual")
    app.seek(to: .time(1_200_000_000))
    let grid = app.render(width: 100, height: 30)
    let lane = try row(grid, startingWith: " demo.stuck")
    let cursor = try column(of: "│", in: grid, row: lane)
    XCTAssertEqual(grid[lane, cursor - 1].text, "━", grid.plainText)
    XCTAssertEqual(grid[lane, cursor + 2].text, "·", "nothing after the end:\n\(grid.plainText)")
  }

  func testTheMarksRowShowsMarksThatNoSchedulerLaneHolds() throws {
    var app = try requestApp()
    app.seek(to: .time(200 * Self.ms))
    let grid = app.render(width: 100, height: 30)
    let marks = try row(grid, startingWith: " ◆ marks")
    let lane = try row(grid, startingWith: "▸app.request.0")
    XCTAssertEqual(marks, lane + 1, "right under the lanes")
    let mark = try column(of: "◆", in: grid, row: marks)
    XCTAssertEqual(grid[lane, mark].text, "━", "the scheduler lane holds no mark: the run goes on")
    XCTAssertTrue(grid.plainText.contains("2 marks"))
  }
}
