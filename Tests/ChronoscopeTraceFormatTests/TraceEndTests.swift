import ChronoscopeTraceFormat
import XCTest

/// A trace's end is one instant for every command: its `close` or `crash` line when it has one,
/// else its last event — never before the last event, whatever the file says.
final class TraceEndTests: XCTestCase {
  private func trace(lastEvent: Int64?, closedAt: Int64? = nil, crashAt: Int64? = nil) -> Trace {
    var trace = Trace(
      header: TraceHeader(clock: .host, start: "", process: "p", pid: 1),
      events: lastEvent.map { [.begin(time: $0, action: 1, thread: 1, run: 1)] } ?? [],
      closing: closedAt.map { _ in Trace.Closing(written: 1, dropped: 0) })
    trace.closedAt = closedAt
    trace.crash = crashAt.map { Trace.Crash(signal: "SIGSEGV", thread: 1, time: $0) }
    return trace
  }

  func testAnUnclosedTraceEndsAtItsLastEvent() {
    XCTAssertEqual(trace(lastEvent: 700).end, 700)
    XCTAssertEqual(trace(lastEvent: nil).end, 0)
  }

  func testAClosedTraceEndsAtItsCloseLineAfterAQuietTime() {
    XCTAssertEqual(trace(lastEvent: 700, closedAt: 30_000).end, 30_000)
  }

  func testACrashedTraceEndsAtItsCrashLine() {
    XCTAssertEqual(trace(lastEvent: 700, crashAt: 900).end, 900)
  }

  func testAnEndMarkerBeforeTheLastEventDoesNotMoveTheEndBack() {
    XCTAssertEqual(trace(lastEvent: 700, closedAt: 10, crashAt: 20).end, 700)
  }

  func testAFileOutOfTimeOrderEndsAtItsLatestEventNotItsLastLine() {
    // A line dated before the one above it is only a warning: the file still reads.
    var outOfOrder = trace(lastEvent: 300)
    outOfOrder.events.insert(.begin(time: 900, action: 2, thread: 1, run: 1), at: 0)
    XCTAssertEqual(outOfOrder.end, 900)
  }
}
