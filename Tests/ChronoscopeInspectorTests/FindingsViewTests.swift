@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// Findings in the inspector: counted in the header, marked on the lanes, listed with `!`, jumped
/// to with `x`/`X`, each opening its explanation and the actions involved.
final class FindingsViewTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  /// A serial scheduler whose first run blocks the second for 70 ms; the second is late. `extra`
  /// events follow.
  private static func blockedScheduler(_ extra: [TraceEvent] = []) -> InspectorApp {
    let events: [TraceEvent] =
      [
        .schedule(
          time: 0, action: 1, scheduler: 2, mode: .async, delay: 0, due: 0, thread: 1, parent: 0,
          site: 0),
        .schedule(
          time: 10 * ms, action: 2, scheduler: 2, mode: .async, delay: 0, due: 10 * ms, thread: 1,
          parent: 0, site: 0),
        .begin(time: 10 * ms, action: 1, thread: 1, run: 1),
        .end(time: 80 * ms, action: 1, thread: 1, run: 1, duration: 70 * ms),
        .begin(time: 80 * ms, action: 2, thread: 1, run: 1),
        .end(time: 81 * ms, action: 2, thread: 1, run: 1, duration: 1 * ms),
      ] + extra
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: [2: SchedulerRecord(id: 2, label: "db", kind: "serial", family: "v", time: 0)],
      threadNames: [1: "main"], closing: .init(written: Int64(events.count), dropped: 0))
    return InspectorApp(replay: ReplayEngine(trace: trace), name: "t.trace", timeStep: 5 * ms)
  }

  private func screen(_ app: InspectorApp) -> String {
    app.render(width: 120, height: 30).plainText
  }

  func testTheHeaderCountsTheFindingsAndTheLaneMarksThem() {
    var app = Self.blockedScheduler()
    XCTAssertEqual(app.findings.map(\.kind), [.headOfLineBlocking, .late], "by time")
    app.seek(to: .time(10 * Self.ms))
    let text = screen(app)
    XCTAssertTrue(text.split(separator: "\n")[0].contains("⚑ 2 findings"), text)
    let lane = text.split(separator: "\n").first { $0.hasPrefix("▸db") } ?? ""
    XCTAssertTrue(lane.contains("!"), "the blocker's begin is marked: \(lane)")
  }

  func testXJumpsToTheNextFindingAndItsActionsCanBeFollowedAndWalkedBack() {
    var app = Self.blockedScheduler()
    XCTAssertTrue(app.handle(.character("x")))
    var text = screen(app)
    XCTAssertTrue(text.contains("Finding 1 of 2 · head-of-line-blocking · warning"), text)
    XCTAssertEqual(app.state.clock, 10 * Self.ms, "the cursor moved to the finding")
    XCTAssertTrue(text.contains("▸ the action   #1 async"), text)
    XCTAssertTrue(text.contains("  waited       #2 async"), text)
    XCTAssertTrue(app.handle(.character("j")))
    XCTAssertTrue(app.handle(.enter))
    XCTAssertTrue(screen(app).contains("Action #2 · async"))
    XCTAssertTrue(app.handle(.escape))
    XCTAssertTrue(screen(app).contains("Finding 1 of 2"))
    XCTAssertTrue(app.handle(.escape))
    XCTAssertEqual(app.state.mode, .main)
    XCTAssertTrue(app.handle(.character("x")))
    text = screen(app)
    XCTAssertTrue(text.contains("Finding 2 of 2 · late"), text)
    XCTAssertTrue(app.handle(.character("w")))
    XCTAssertTrue(screen(app).contains("Why #2 was late · run 1 · 70.000ms"), "w on a finding")
    XCTAssertTrue(app.handle(.escape))
    XCTAssertTrue(app.handle(.escape))
    XCTAssertTrue(app.handle(.character("x")))
    XCTAssertEqual(app.state.message, "no later finding")
    XCTAssertTrue(app.handle(.character("X")))
    XCTAssertTrue(screen(app).contains("Finding 1 of 2"))
  }

  func testInfoFindingsAreNeitherCountedNorListedNorJumpedToUntilAskedFor() {
    // A cancel of #1 after it finished, as a timeout's cancel does: true, not wrong.
    var app = Self.blockedScheduler([
      .cancel(time: 90 * Self.ms, action: 1, thread: 1, by: 0, started: true)
    ])
    XCTAssertEqual(app.findings.map(\.severity), [.warning, .warning, .info])
    app.seek(to: .time(85 * Self.ms))
    var text = screen(app)
    XCTAssertTrue(text.split(separator: "\n")[0].contains("⚑ 2 findings"), text)
    XCTAssertTrue(app.handle(.character("x")))
    XCTAssertEqual(app.state.message, "no later finding", "the info finding at 90 ms is skipped")
    XCTAssertTrue(app.handle(.character("!")))
    text = screen(app)
    XCTAssertTrue(text.contains("Findings (2)"), text)
    XCTAssertTrue(text.contains("i shows 1 info"), text)
    XCTAssertFalse(text.contains("no-op-cancel"), text)
    XCTAssertTrue(app.handle(.character("i")))
    text = screen(app)
    XCTAssertTrue(text.contains("Findings (3)"), text)
    XCTAssertTrue(text.contains("no-op-cancel"), text)
    XCTAssertTrue(app.handle(.character("j")))
    XCTAssertTrue(app.handle(.character("j")))
    XCTAssertTrue(app.handle(.enter))
    XCTAssertTrue(screen(app).contains("Finding 3 of 3 · no-op-cancel · info"))
  }

  func testTheBundledLiveRecordingOpensWithoutAFindingsCount() throws {
    // All its findings are cancels of timers that had fired, as every timeout does: info.
    let app = try GoldenScreenTests.app("busy-app")
    XCTAssertFalse(app.findings.isEmpty)
    XCTAssertTrue(app.findings.allSatisfy { $0.severity == .info })
    let header = screen(app).split(separator: "\n")[0]
    XCTAssertFalse(header.contains("⚑"), String(header))
  }

  func testWShowsWhatHeldALateActionUpAndEnterOpensIt() {
    var app = Self.blockedScheduler()
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 2)))
    XCTAssertTrue(app.handle(.character("w")))
    var text = screen(app)
    XCTAssertTrue(text.contains("Why #2 was late · run 1 · 70.000ms"), text)
    XCTAssertTrue(text.contains("its serial scheduler db: the runs ahead of it"), text)
    XCTAssertTrue(text.contains("▸ 70.000ms    #1 async        db"), text)
    XCTAssertTrue(app.handle(.enter))
    XCTAssertTrue(screen(app).contains("Action #1 · async"))
    XCTAssertTrue(app.handle(.character("w")))
    text = screen(app)
    XCTAssertTrue(text.contains("Why #1 was late · run 1 · 10.000ms"), text)
    XCTAssertTrue(text.contains("nothing ran on db"), "#1 waited for no run: \(text)")
    XCTAssertTrue(app.handle(.enter))
    XCTAssertEqual(app.state.message, "no action ran then")
    XCTAssertTrue(app.handle(.escape))
    XCTAssertTrue(screen(app).contains("Action #1 · async"), "Esc walks back")
    XCTAssertTrue(app.handle(.escape))
    XCTAssertTrue(screen(app).contains("Why #2 was late"), "Esc walks back")
  }

  func testTheFindingsListOpensAFinding() {
    var app = Self.blockedScheduler()
    XCTAssertTrue(app.handle(.character("!")))
    var text = screen(app)
    XCTAssertTrue(text.contains("Findings (2)"), text)
    XCTAssertTrue(text.contains("head-of-line-blocking"), text)
    XCTAssertTrue(app.handle(.character("j")))
    XCTAssertTrue(app.handle(.enter))
    text = screen(app)
    XCTAssertTrue(text.contains("Finding 2 of 2 · late"), text)
    XCTAssertTrue(app.handle(.escape))
    XCTAssertEqual(app.state.mode, .findings(selected: 1), "back to the list where it was")
  }
}
