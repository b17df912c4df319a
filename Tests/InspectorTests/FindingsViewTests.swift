import Analysis
import Inspector
import Replay
import Screen
import TraceFormat
import XCTest

/// Findings in the inspector: counted in the header, marked on the lanes, listed with `!`, jumped
/// to with `x`/`X`, each opening its explanation and the actions involved.
final class FindingsViewTests: XCTestCase {
  private static let ms: Int64 = 1_000_000

  /// A serial queue whose first run blocks the second for 70 ms; the second is late.
  private static func blockedQueue() -> InspectorApp {
    let events: [TraceEvent] = [
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
    ]
    let trace = Trace(
      header: TraceHeader(clock: .virtual, start: "", process: "t", pid: 1), events: events,
      schedulers: [2: SchedulerRecord(id: 2, label: "db", kind: "serial", family: "v", time: 0)],
      threadNames: [1: "main"], closing: .init(written: 6, dropped: 0))
    return InspectorApp(replay: ReplayEngine(trace: trace), name: "t.trace", timeStep: 5 * ms)
  }

  private func screen(_ app: InspectorApp) -> String {
    app.render(width: 120, height: 30).plainText
  }

  func testTheHeaderCountsTheFindingsAndTheLaneMarksThem() {
    var app = Self.blockedQueue()
    XCTAssertEqual(app.findings.map(\.kind), [.headOfLineBlocking, .late], "by time")
    app.seek(to: .time(10 * Self.ms))
    let text = screen(app)
    XCTAssertTrue(text.split(separator: "\n")[0].contains("⚑ 2 findings"), text)
    let lane = text.split(separator: "\n").first { $0.hasPrefix("▸db") } ?? ""
    XCTAssertTrue(lane.contains("!"), "the blocker's begin is marked: \(lane)")
  }

  func testXJumpsToTheNextFindingAndItsActionsCanBeFollowedAndWalkedBack() {
    var app = Self.blockedQueue()
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
    XCTAssertTrue(app.handle(.escape))
    XCTAssertTrue(app.handle(.character("x")))
    XCTAssertEqual(app.state.message, "no later finding")
    XCTAssertTrue(app.handle(.character("X")))
    XCTAssertTrue(screen(app).contains("Finding 1 of 2"))
  }

  func testTheFindingsListOpensAFinding() {
    var app = Self.blockedQueue()
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
