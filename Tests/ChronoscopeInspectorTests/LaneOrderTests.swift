@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

@_spi(Benchmarks) @testable import ChronoscopeInspector

/// Lanes a user can tell apart and order: numbered where labels repeat, sorted with `o`, idle
/// ones hidden with `h`, and a title that says which of how many it shows.
final class LaneOrderTests: XCTestCase {
  /// The busy app's virtual recording: 45 schedulers, `app.request.0` to `.4` eight times each.
  private func busyApp(at time: Int64 = 500_000_000) throws -> InspectorApp {
    var app = try GoldenScreenTests.app("busy-app-virtual")
    app.seek(to: .time(time))
    return app
  }

  private func press(_ app: inout InspectorApp, _ keys: Character...) {
    for key in keys { XCTAssertTrue(app.handle(.character(key))) }
  }

  private func lanesTitle(_ app: InspectorApp) -> String {
    let lines = app.render(width: 140, height: 40).plainText.split(separator: "\n")
    return lines.first { $0.contains("Lanes (by scheduler)") }.map(String.init) ?? ""
  }

  /// Each scheduler's events in the whole trace, counted from the events themselves.
  private func eventsByScheduler(_ replay: ReplayEngine) -> [SchedulerID: Int] {
    var counts: [SchedulerID: Int] = [:]
    for index in replay.eventIndices {
      guard let action = replay.event(index).action else { continue }
      counts[replay.action(action).scheduler, default: 0] += 1
    }
    return counts
  }

  private func scheduler(_ lane: Lane) -> SchedulerID? {
    if case .scheduler(let id) = lane.key { id } else { nil }
  }

  func testLanesWhoseLabelsRepeatAreNumberedAndOthersAreNot() throws {
    var app = try busyApp()
    let requests = app.lanes.filter { $0.title == "app.request.0" }
    XCTAssertEqual(requests.map(\.name), (1...8).map { "app.request.0 ·\($0)" })
    XCTAssertEqual(
      requests.compactMap(scheduler), requests.compactMap(scheduler).sorted(),
      "numbered in id order")
    let main = try XCTUnwrap(app.lanes.first { $0.title == "main" })
    XCTAssertNil(main.ordinal)
    XCTAssertEqual(main.name, "main")
    app.filterLanes("app.request.0")
    let screen = app.render(width: 140, height: 40).plainText
    for number in 1...8 { XCTAssertTrue(screen.contains("app.request.0 ·\(number)  "), screen) }
  }

  func testANumberedNameCutToItsColumnKeepsItsNumber() {
    let lane = Lane(
      key: .scheduler(SchedulerID(rawValue: 7)), title: "com.example.app.background", ordinal: 12)
    let name = lane.name(fitting: 16)
    // Cut in its middle: its start and its distinguishing end show, and its number.
    XCTAssertEqual(name, "com.ex…ground·12")
    XCTAssertLessThanOrEqual(TextWidth.columns(of: name), 16)
    let request = Lane(
      key: .scheduler(SchedulerID(rawValue: 90)), title: "app.request.4", ordinal: 15)
    XCTAssertEqual(request.name(fitting: 17), "app.request.4 ·15")
    XCTAssertEqual(request.name(fitting: 16), "app.request.4·15", "the space goes first")
    XCTAssertEqual(request.name(fitting: 15), "app.re…est.4·15")
    XCTAssertEqual(request.name(fitting: 4), "…·15", "the number, whatever the room")
  }

  func testOCyclesTheLaneOrdersAndKeepsTheSelectedLane() throws {
    var app = try busyApp()
    let traceOrder = app.lanes
    press(&app, "j", "j", "j")
    let selected = app.lanes[app.state.selected(.lanes)]
    XCTAssertEqual(selected.title, "app.cache")

    press(&app, "o")
    XCTAssertEqual(app.state.laneOrder, .name)
    let names = app.lanes.map { $0.title.lowercased() }
    XCTAssertEqual(names, names.sorted())
    XCTAssertEqual(app.lanes.count, traceOrder.count)
    XCTAssertEqual(app.lanes[app.state.selected(.lanes)], selected, "the selection follows")
    XCTAssertTrue(lanesTitle(app).contains("Lanes (by scheduler) (45) · sorted by name"))

    press(&app, "o")
    XCTAssertEqual(app.state.laneOrder, .activity)
    let events = eventsByScheduler(app.replay)
    let counts = app.lanes.map { events[scheduler($0) ?? SchedulerID(rawValue: 0), default: 0] }
    XCTAssertEqual(counts, counts.sorted(by: >), "the most events in the trace first")
    XCTAssertGreaterThan(counts.first ?? 0, counts.last ?? 0)
    XCTAssertTrue(lanesTitle(app).contains("· sorted by activity"))

    press(&app, "o")
    XCTAssertEqual(app.state.laneOrder, .findings)
    // Warnings and errors: info findings (a timer cancelled after it fired) say nothing wrong.
    let found = app.lanes.map { lane in
      app.findings.filter { $0.scheduler == scheduler(lane) && $0.severity > .info }.count
    }
    XCTAssertEqual(found, found.sorted(by: >), "the most findings first")
    XCTAssertGreaterThan(found.first ?? 0, 0)
    XCTAssertTrue(lanesTitle(app).contains("· sorted by findings"))

    press(&app, "o")
    XCTAssertEqual(app.state.laneOrder, .trace)
    XCTAssertEqual(app.lanes, traceOrder)
    XCTAssertTrue(lanesTitle(app).contains("Lanes (by scheduler) (45) ─"), lanesTitle(app))
  }

  /// Idle: none of the lane's events in the strips' window, nothing of it pending or running
  /// at the cursor — checked here against the events and the replay's state directly.
  private func assertHiddenLanesAreExactlyTheIdleOnes(
    _ app: InspectorApp, file: StaticString = #filePath, line: UInt = #line
  ) {
    let half = app.state.laneSpan / 2
    let start = max(app.state.clock - half, 0)
    let window = start...(start + 2 * half)
    var seen = Set<SchedulerID>()
    for index in app.replay.eventIndices where window.contains(app.replay.event(index).time) {
      if let action = app.replay.event(index).action {
        seen.insert(app.replay.action(action).scheduler)
      }
    }
    for scheduler in app.replay.schedulers.map({ SchedulerID(rawValue: $0.id) }) {
      let now = app.replay.schedulerState(scheduler)
      let busy = seen.contains(scheduler) || now.pending > 0 || now.running > 0
      XCTAssertEqual(
        app.lanes.contains { $0.key == .scheduler(scheduler) }, busy,
        "scheduler \(scheduler.rawValue)",
        file: file, line: line)
    }
  }

  func testHHidesTheIdleLanesAsTheCursorMovesAndTheTitleSaysWhichOfNItShows() throws {
    var app = try busyApp()
    press(&app, "h")
    XCTAssertTrue(app.state.hidesIdleLanes)
    assertHiddenLanesAreExactlyTheIdleOnes(app)
    XCTAssertLessThan(app.lanes.count, 45)
    XCTAssertGreaterThan(app.lanes.count, 0)
    XCTAssertTrue(
      lanesTitle(app).contains("Lanes (by scheduler) \(app.lanes.count) of 45 · idle hidden"),
      lanesTitle(app))

    let before = app.lanes
    press(&app, "t", "t", "t", "t", "t", "t")
    assertHiddenLanesAreExactlyTheIdleOnes(app)
    XCTAssertNotEqual(app.lanes, before, "other lanes are busy 144 ms later")
    app.seek(to: .time(50_000_000))
    assertHiddenLanesAreExactlyTheIdleOnes(app)

    press(&app, "o", "o")
    XCTAssertTrue(
      lanesTitle(app).contains(
        "Lanes (by scheduler) \(app.lanes.count) of 45 · sorted by activity · idle hidden"),
      lanesTitle(app))

    press(&app, "h")
    XCTAssertEqual(app.lanes.count, 45)
    XCTAssertTrue(lanesTitle(app).contains("Lanes (by scheduler) (45) · sorted by activity"))
  }

  func testTheTitleCountsTheLanesAFilterKeepsOfAll() throws {
    var app = try busyApp()
    app.filterLanes("app.request")
    XCTAssertTrue(
      lanesTitle(app).contains("Lanes (by scheduler) 40 of 45 · filter \"app.request\""))
    press(&app, "h")
    XCTAssertTrue(app.lanes.allSatisfy { $0.title.hasPrefix("app.request") })
    XCTAssertTrue(
      lanesTitle(app).contains(
        "Lanes (by scheduler) \(app.lanes.count) of 45 · filter \"app.request\" · idle hidden"),
      lanesTitle(app))
  }

  func testWhenEveryLaneIsIdleThePanelSaysSoAndHowToShowThem() throws {
    var app = try busyApp(at: 0)
    app.filterLanes("app.request.4")
    press(&app, "h")
    XCTAssertEqual(app.lanes, [])
    let screen = app.render(width: 140, height: 40).plainText
    XCTAssertTrue(screen.contains("(all 8 lanes are idle here: h shows them)"), screen)
  }
}
