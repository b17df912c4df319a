import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// Every number on screen means what a user reads it to mean: one test per way it once misled,
/// on small traces whose right answers are known exactly.
final class ScreenTruthTests: XCTestCase {
  // MARK: - Building traces

  private static let schedulers: [UInt32: SchedulerRecord] = [
    1: SchedulerRecord(id: 1, label: "main", kind: "main", family: "dispatch", time: 0),
    2: SchedulerRecord(id: 2, label: "search", kind: "serial", family: "dispatch", time: 0),
    3: SchedulerRecord(id: 3, label: "network", kind: "concurrent", family: "dispatch", time: 0),
  ]

  private static func app(
    _ events: [TraceEvent], schedulers: [UInt32: SchedulerRecord] = schedulers,
    threads: [UInt32: String] = [1: "main"], sites: [UInt32: CallSiteRecord] = [:],
    marks: [MarkRecord] = [], closed: Bool = true, clock: TraceHeader.ClockKind = .host
  ) -> InspectorApp {
    let trace = Trace(
      header: TraceHeader(clock: clock, start: "", process: "t", pid: 1), events: events,
      schedulers: schedulers, callSites: sites, threadNames: threads, marks: marks,
      closing: closed ? .init(written: Int64(events.count), dropped: 0) : nil)
    return InspectorApp(replay: ReplayEngine(trace: trace), name: "t.trace", timeStep: 1_000_000)
  }

  private static func schedule(
    _ action: UInt32, scheduler: UInt32, at time: Int64, mode: TraceEvent.ScheduleMode = .async,
    delay: Int64 = 0, thread: UInt32 = 1, parent: UInt32 = 0, site: UInt32 = 0
  ) -> TraceEvent {
    .schedule(
      time: time, action: action, scheduler: scheduler, mode: mode, delay: delay,
      due: time + delay, thread: thread, parent: parent, site: site)
  }

  private static func text(_ app: InspectorApp, width: Int = 120, height: Int = 40) -> String {
    app.render(width: width, height: height).plainText
  }

  private static func lines(_ text: String, containing needle: String) -> [Substring] {
    text.split(separator: "\n").filter { $0.contains(needle) }
  }

  private func press(_ app: inout InspectorApp, _ keys: String) {
    for key in keys { XCTAssertTrue(app.handle(.character(key))) }
  }

  /// Work scheduled from main onto a concurrent scheduler that runs on worker threads 4 and 5.
  private static let hoppingWork: [TraceEvent] = [
    schedule(1, scheduler: 3, at: 1_000),
    schedule(2, scheduler: 3, at: 2_000),
    .hop(time: 3_000, action: 1, from: 1, to: 4),
    .begin(time: 3_000, action: 1, thread: 4, run: 1),
    .hop(time: 4_000, action: 2, from: 1, to: 5),
    .begin(time: 4_000, action: 2, thread: 5, run: 1),
    .end(time: 9_000, action: 1, thread: 4, run: 1, duration: 6_000),
    .end(time: 9_500, action: 2, thread: 5, run: 1, duration: 5_500),
  ]

  // MARK: - 1. Work belongs to the thread it runs on

  func testByThreadRunningWorkIsOnTheThreadItRunsOn() {
    var app = Self.app(
      Self.hoppingWork, threads: [1: "main", 4: "-qos.overcommit", 5: "-qos.overcommit"])
    app.seek(to: .event(6))
    app.group(by: .byThread)
    let screen = Self.text(app)
    XCTAssertTrue(Self.lines(screen, containing: "▸main ")[0].hasSuffix("idle"), screen)
    XCTAssertTrue(Self.lines(screen, containing: " worker 4 ")[0].hasSuffix("busy 1.0µs"), screen)
    XCTAssertTrue(Self.lines(screen, containing: " worker 5 ")[0].hasSuffix("busy 0ns"), screen)
    let running = Self.lines(screen, containing: "#1 async").first { $0.contains(" on ") }
    XCTAssertTrue(running?.contains("on worker 4") ?? false, screen)
  }

  // MARK: - 2. Thread names identify threads

  func testThreadNamesAreNeverFragmentsOrDuplicates() {
    var app = Self.app(
      Self.hoppingWork, threads: [1: "main", 4: "-qos.overcommit", 5: "oot.default-qos"])
    app.group(by: .byThread)
    press(&app, "j")
    let screen = Self.text(app)
    XCTAssertFalse(screen.contains("-qos.overcommit"), screen)
    XCTAssertFalse(screen.contains("oot.default-qos"), screen)
    XCTAssertTrue(screen.contains("worker 4"), screen)
    XCTAssertTrue(screen.contains("worker 4 ran network"), "the selected thread's schedulers")
  }

  // MARK: - 3. Pending shows when work is due

  func testPendingShowsTheDueTimeAndACountdownNotTheSchedulingTime() {
    var app = Self.app([
      Self.schedule(1, scheduler: 2, at: 322_699_000, mode: .after, delay: 300_000_000),
      .begin(time: 622_699_000, action: 1, thread: 1, run: 1),
    ])
    app.seek(to: .time(422_699_000))
    let row = Self.lines(Self.text(app), containing: "#1 after")[0]
    XCTAssertTrue(row.contains("due 0.622699s"), String(row))
    XCTAssertTrue(row.contains("in 200.000ms"), String(row))
    XCTAssertFalse(row.contains("0.322699s"), "the scheduling time belongs in the detail")
    app.seek(to: .time(622_000_000))
    XCTAssertTrue(Self.lines(Self.text(app), containing: "#1 after")[0].contains("in 699.0µs"))
  }

  // MARK: - 4. The lane filter filters every panel

  func testTheLaneFilterAppliesToPendingRunningAndEvents() {
    var app = Self.app([
      Self.schedule(1, scheduler: 2, at: 1_000),
      Self.schedule(2, scheduler: 3, at: 2_000),
      Self.schedule(3, scheduler: 3, at: 3_000),
      .begin(time: 4_000, action: 2, thread: 4, run: 1),
    ])
    app.seek(to: .event(4))
    app.filterLanes("search")
    let screen = Self.text(app)
    XCTAssertTrue(screen.contains("Pending (1)"), screen)
    XCTAssertTrue(screen.contains("Running (0)"), screen)
    XCTAssertTrue(screen.contains("Events (1)"), screen)
    XCTAssertFalse(screen.contains("#2 async"), screen)
    app.filterLanes("network")
    let network = Self.text(app)
    XCTAssertTrue(network.contains("Pending (1)"), network)
    XCTAssertTrue(network.contains("Running (1)"), network)
    XCTAssertTrue(network.contains("Events (3)"), network)
  }

  // MARK: - 5. One notation: #12 is an action, e120 an event

  func testHashAlwaysMeansAnActionAndActionsAreSearchable() {
    var app = Self.app(Self.hoppingWork)
    press(&app, "/#2")
    XCTAssertTrue(app.handle(.enter))
    XCTAssertEqual(app.replay.currentEvent?.kind, .schedule)
    XCTAssertTrue(Self.text(app).contains("1/4 matching events"), Self.text(app))
    let screen = Self.text(app)
    XCTAssertTrue(screen.contains("e2 "), "events are numbered e2, not #2")
    XCTAssertTrue(screen.contains("event 2/8"), screen)
  }

  // MARK: - 7. The strips have an axis, a scale and a legend; help explains them

  func testLaneStripsHaveATimeAxisScaleAndLegend() {
    var app = Self.app(Self.hoppingWork)
    app.seek(to: .event(4))
    let screen = Self.text(app)
    XCTAssertTrue(screen.contains("├0.000000s"), screen)
    XCTAssertTrue(
      screen.contains("0.000009s┤"),
      "a 4 ms window (1 ms step × 4) is wider than the 9 µs trace: it shows the trace, to its end")
    XCTAssertTrue(screen.contains("▲ 0.000003s"), screen)
    XCTAssertTrue(screen.contains("/col"), screen)
    XCTAssertTrue(
      screen.contains("s schedule ▶ begin ━ running █ end × cancel ↷ hop ◆ mark ! finding │ now"),
      screen)
    press(&app, "zzzzzzzzzz")
    let zoomed = Self.text(app)
    XCTAssertFalse(zoomed.contains("0.000009s┤"), "zoomed in: narrower than the trace")
    XCTAssertTrue(zoomed.contains("▲ 0.000003s"), zoomed)
  }

  func testEveryEventOfADenseWindowCountsInTheStrips() {
    // 70,000 runs on "search" in the first 0.21 ms (210,000 events), a cancel after them, then
    // one run on "network" at 0.25 ms: all in the first window. A strip that scanned the
    // window's events up to a limit (200,000) showed "network" empty and missed the cancel.
    var events: [TraceEvent] = []
    events.reserveCapacity(210_010)
    for index in 0..<70_000 {
      let time = Int64(index) * 3
      events.append(Self.schedule(UInt32(index + 1), scheduler: 2, at: time))
      events.append(.begin(time: time + 1, action: UInt32(index + 1), thread: 1, run: 1))
      events.append(
        .end(time: time + 2, action: UInt32(index + 1), thread: 1, run: 1, duration: 1))
    }
    events.append(Self.schedule(70_001, scheduler: 2, at: 209_998, mode: .after, delay: 1_000_000))
    events.append(.cancel(time: 209_999, action: 70_001, thread: 1, by: 0, started: false))
    events.append(Self.schedule(70_002, scheduler: 3, at: 249_000))
    events.append(.begin(time: 250_000, action: 70_002, thread: 1, run: 1))
    let app = Self.app(events)
    let screen = Self.text(app)
    let network = Self.lines(screen, containing: " network ").first ?? ""
    XCTAssertTrue(network.contains("▶"), "the last run of the window shows:\n\(screen)")
    let search = Self.lines(screen, containing: " search ").first ?? ""
    XCTAssertTrue(search.contains("×"), "the cancel after 210,000 events shows:\n\(screen)")
    XCTAssertFalse(screen.contains("dense"), "no caveat: nothing is left out")
  }

  func testHelpExplainsTheGlyphsCountsAndTheTraceClock() {
    var app = Self.app(Self.hoppingWork)
    press(&app, "?")
    let host = Self.text(app)
    XCTAssertTrue(host.contains("2p 1r"), host)
    XCTAssertTrue(
      host.contains("cancelled, hopped, marked (all marks: a row under the lanes)"), host)
    XCTAssertTrue(host.contains("running (begin to end)"), host)
    XCTAssertTrue(host.contains("recorded (host) time"), host)
    XCTAssertFalse(host.contains("virtual time runs"), host)
    var virtual = Self.app(Self.hoppingWork, clock: .virtual)
    press(&virtual, "?")
    XCTAssertTrue(Self.text(virtual).contains("virtual time runs at speed × wall time"))
  }

  // MARK: - 8. The footer always shows help and quit

  func testTheFooterFitsAndAlwaysShowsHelpAndQuit() {
    var app = Self.app(Self.hoppingWork)
    for width in [60, 80, 120, 200] {
      let footer = String(Self.text(app, width: width).split(separator: "\n").last ?? "")
      XCTAssertTrue(footer.hasSuffix("? help · q quit"), "\(width): \(footer)")
      XCTAssertLessThanOrEqual(TextWidth.columns(of: footer), width)
    }
    press(&app, "/nothing-matches-this")
    XCTAssertTrue(app.handle(.enter))
    let footer = Self.text(app, width: 60).split(separator: "\n").last ?? ""
    XCTAssertTrue(footer.hasSuffix("? help · q quit"), String(footer))
  }

  // MARK: - 9. Long labels are cut the same way everywhere

  func testLongLabelsAreCutWithAnEllipsisAndKeepColumnsInPlace() throws {
    let long = "com.example.app.background-sync.very-long-queue-label"
    var schedulers = Self.schedulers
    schedulers[2] = SchedulerRecord(id: 2, label: long, kind: "serial", family: "dispatch", time: 0)
    var app = Self.app(
      [
        Self.schedule(1, scheduler: 2, at: 1_000, mode: .after, delay: 5_000),
        Self.schedule(2, scheduler: 1, at: 2_000, mode: .after, delay: 6_000),
      ], schedulers: schedulers)
    app.seek(to: .event(2))
    let screen = Self.text(app)
    XCTAssertFalse(screen.contains(long), screen)
    let cut = try XCTUnwrap(
      screen.split(separator: "\n").first { $0.contains("#1 after") }?.split(separator: " ").first {
        $0.hasPrefix("com.ex")
      })
    // In its middle: its end, which may be what tells it from another, shows.
    XCTAssertTrue(cut.contains("…") && cut.hasSuffix("label"), String(cut))
    let rows = screen.split(separator: "\n").filter { $0.contains(cut) }
    XCTAssertEqual(rows.count, 3, "lane, pending row and event row cut it alike:\n\(screen)")
    // In Events, the thread column starts at the same column whatever the label.
    let events = screen.split(separator: "\n").filter { $0.contains(" schedule #") }.map(
      String.init)
    XCTAssertEqual(events.count, 2)
    let threadColumns = events.map { row in
      row.range(of: "main", options: .backwards).map {
        TextWidth.columns(of: row[..<$0.lowerBound])
      }
    }
    XCTAssertEqual(threadColumns[0], threadColumns[1], screen)
  }

  // MARK: - 10. Repeating work is predicted from its rhythm, and its drift shown

  func testATimersNextRunIsDueOnItsRhythmAndItsDriftIsShown() {
    var app = Self.app([
      Self.schedule(1, scheduler: 1, at: 0, mode: .repeating, delay: 10_000_000),
      .begin(time: 14_000_000, action: 1, thread: 1, run: 1),
      .end(time: 15_000_000, action: 1, thread: 1, run: 1, duration: 1_000_000),
      .begin(time: 27_000_000, action: 1, thread: 1, run: 2),
      .end(time: 28_000_000, action: 1, thread: 1, run: 2, duration: 1_000_000),
    ])
    app.seek(to: .event(5))
    let row = Self.lines(Self.text(app, width: 160), containing: "#1 repeating")[0]
    XCTAssertTrue(row.contains("due 0.030000s"), "10 + 2 × 10 ms, not 27 + 10: \(row)")
    XCTAssertTrue(row.contains("in 2.000ms"), String(row))
    XCTAssertTrue(row.contains("last run +7.000ms late"), String(row))
  }

  // MARK: - 11. Search finds marks' fields and threads, by field when asked

  func testSearchCoversMarkFieldsThreadsAndFieldScopes() {
    let sites: [UInt32: CallSiteRecord] = [
      1: CallSiteRecord(id: 1, file: "App/Loader.swift", line: 3, function: "load()"),
      2: CallSiteRecord(id: 2, file: "App/Cache.swift", line: 9, function: "evict()"),
    ]
    var app = Self.app(
      [
        Self.schedule(1, scheduler: 2, at: 1_000, site: 1),
        Self.schedule(2, scheduler: 3, at: 2_000, site: 2),
        .hop(time: 3_000, action: 2, from: 1, to: 7),
        .begin(time: 3_000, action: 2, thread: 7, run: 1),
        .mark(time: 4_000, thread: 1, mark: 0),
      ], threads: [1: "main", 7: "db-writer"], sites: sites,
      marks: [MarkRecord(name: "login", fields: ["user": "alice"])])
    func matches(_ query: String) -> String {
      press(&app, "/" + query)
      XCTAssertTrue(app.handle(.enter))
      return app.state.message ?? Self.text(app).split(separator: "\n").last.map(String.init) ?? ""
    }
    XCTAssertTrue(matches("alice").contains("1 matching event"), "mark fields")
    XCTAssertTrue(matches("db-writer").contains("1 matching event"), "thread names")
    XCTAssertEqual(matches("swift"), "no match for \"swift\"", "not every call site")
    // An action matches with every event of its life: #2's schedule, hop and begin.
    XCTAssertTrue(matches("site:swift").contains("4 matching event"), "site: searches whole paths")
    XCTAssertTrue(matches("label:network").contains("3 matching event"))
    XCTAssertTrue(matches("mark:login").contains("1 matching event"))
    XCTAssertTrue(matches("loader").contains("1 matching event"), "a file's name")
  }

  // MARK: - Navigating like a debugger

  func testTheDetailFollowsParentsAndChildrenAndWalksBack() throws {
    var app = Self.app([
      Self.schedule(1, scheduler: 1, at: 1_000),
      .begin(time: 2_000, action: 1, thread: 1, run: 1),
      Self.schedule(2, scheduler: 2, at: 2_100, parent: 1),
      Self.schedule(3, scheduler: 3, at: 2_200, mode: .after, delay: 9_000, parent: 1),
      .end(time: 2_300, action: 1, thread: 1, run: 1, duration: 300),
      .begin(time: 3_000, action: 2, thread: 1, run: 1),
      .cancel(time: 3_100, action: 3, thread: 1, by: 2, started: false),
      .end(time: 3_200, action: 2, thread: 1, run: 1, duration: 200),
    ])
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 1)))
    var screen = Self.text(app)
    XCTAssertTrue(screen.contains("▸ scheduled    #2 async"), screen)
    XCTAssertTrue(screen.contains("  scheduled    #3 after"), screen)
    XCTAssertTrue(app.handle(.enter))
    screen = Self.text(app)
    XCTAssertTrue(screen.contains("Action #2 · async"), screen)
    XCTAssertTrue(screen.contains("scheduled by #1 async"), screen)
    XCTAssertTrue(screen.contains("cancelled    #3 after"), "what it cancelled")
    XCTAssertTrue(app.handle(.character("j")))
    XCTAssertTrue(app.handle(.enter))
    XCTAssertTrue(Self.text(app).contains("Action #3 · after"))
    XCTAssertTrue(Self.text(app).contains("cancelled by #2 async"))
    XCTAssertTrue(app.handle(.backspace))
    XCTAssertTrue(Self.text(app).contains("Action #2 · async"))
    XCTAssertTrue(app.handle(.escape))
    XCTAssertTrue(Self.text(app).contains("Action #1 · async"))
    XCTAssertTrue(app.handle(.escape))
    XCTAssertEqual(app.state.mode, .main)
  }

  func testMarkKeysJumpBetweenMarks() {
    var app = Self.app(
      [
        .mark(time: 1_000, thread: 1, mark: 0),
        Self.schedule(1, scheduler: 1, at: 2_000),
        .mark(time: 3_000, thread: 1, mark: 1),
      ], marks: [MarkRecord(name: "a"), MarkRecord(name: "b")])
    press(&app, "m")
    XCTAssertEqual(app.replay.position, 1)
    press(&app, "m")
    XCTAssertEqual(app.replay.position, 3)
    press(&app, "m")
    XCTAssertEqual(app.state.message, "no later mark")
    press(&app, "M")
    XCTAssertEqual(app.replay.position, 1)
  }

  // MARK: - A recording that did not close

  func testATraceWithoutACloseLineSaysSoInTheHeaderAndStatus() {
    let app = Self.app(Self.hoppingWork, closed: false)
    let screen = Self.text(app, width: 200)
    XCTAssertTrue(screen.split(separator: "\n")[0].contains("⚠ not closed"), screen)
    XCTAssertTrue(screen.contains("the recording did not close"), screen)
    XCTAssertFalse(Self.text(Self.app(Self.hoppingWork)).contains("not closed"))
  }
}
