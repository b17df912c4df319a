import ChronoscopeTraceFormat
import XCTest

/// The warnings `validate` gives a structurally valid trace whose runs do not add up.
final class SemanticChecksTests: XCTestCase {
  private let header = #"{"format":"chronoscope-trace","version":1,"clock":"host"}"#
  private let scheduler =
    #"{"t":0,"e":"scheduler","q":1,"label":"db","kind":"serial","family":"dispatch"}"#
  private let close = #"{"t":100,"e":"close","events":0,"dropped":0}"#

  private func warnings(_ lines: [String]) -> [String] {
    let text = ([header, scheduler] + lines + [close]).joined(separator: "\n") + "\n"
    let reading = TraceReader.parse(Array(text.utf8), file: "bug.trace")
    XCTAssertFalse(reading.hasErrors, "\(reading.diagnostics)")
    return reading.diagnostics.map { "\($0.line): \($0.message)" }
  }

  private func schedule(_ action: Int, mode: String = "async", at time: Int = 1) -> String {
    let delay = mode == "repeating" ? #","delay":10"# : ""
    return
      #"{"t":\#(time),"e":"schedule","a":\#(action),"q":1,"mode":"\#(mode)"\#(delay),"due":\#(time),"th":1}"#
  }

  func testAnEndWithoutABeginIsAWarningAtItsLine() {
    XCTAssertEqual(
      warnings([schedule(1), #"{"t":2,"e":"end","a":1,"th":1,"dur":0}"#]),
      ["4: action #1 ends but never began"])
  }

  func testACancelSayingARunStartedBeforeAnyBeginIsAWarning() {
    XCTAssertEqual(
      warnings([
        schedule(1, mode: "repeating"),
        #"{"t":2,"e":"cancel","a":1,"th":2,"started":true}"#,
        #"{"t":3,"e":"begin","a":1,"th":1,"run":1}"#,
        #"{"t":4,"e":"end","a":1,"th":1,"run":1,"dur":1}"#,
      ]),
      [
        "4: action #1 is cancelled after a run started, but no run has begun",
        "5: action #1 begins after it was cancelled",
      ])
    XCTAssertEqual(
      warnings([
        schedule(1, mode: "repeating"), #"{"t":2,"e":"begin","a":1,"th":1,"run":1}"#,
        #"{"t":3,"e":"cancel","a":1,"th":2,"started":true}"#,
        #"{"t":4,"e":"end","a":1,"th":1,"run":1,"dur":2}"#,
      ]), [], "cancelled during its run, in order")
    XCTAssertEqual(
      warnings([#"{"t":2,"e":"cancel","a":9,"th":2,"started":true}"#]), [],
      "an action scheduled before the file's window: its begin may be before it too")
  }

  func testAScheduleAtACallSiteTheTraceNeverDefinedIsAWarningOnceASite() {
    let site = #"{"t":1,"e":"site","site":2,"file":"A.swift","line":3,"func":"f()"}"#
    XCTAssertEqual(
      warnings([
        #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"async","due":1,"th":1,"site":1}"#,
        #"{"t":1,"e":"schedule","a":2,"q":1,"mode":"async","due":1,"th":1,"site":1}"#,
        site,
        #"{"t":1,"e":"schedule","a":3,"q":1,"mode":"async","due":1,"th":1,"site":2}"#,
      ]),
      ["3: action #1 is scheduled at call site 1, which the trace has not defined"])
  }

  func testAnEndOfARunThatNeverBeganIsAWarning() {
    XCTAssertEqual(
      warnings([
        schedule(1, mode: "repeating"), #"{"t":2,"e":"begin","a":1,"th":1,"run":1}"#,
        #"{"t":3,"e":"end","a":1,"th":1,"run":2,"dur":1}"#,
      ]),
      ["5: action #1 ends run 2, which never began (the last run to begin was 1)"])
  }

  func testARunNumberSkippedBetweenBeginsIsAWarningNamingTheMissingRun() {
    XCTAssertEqual(
      warnings([
        schedule(1, mode: "repeating"),
        #"{"t":2,"e":"begin","a":1,"th":1,"run":1}"#,
        #"{"t":3,"e":"end","a":1,"th":1,"run":1,"dur":1}"#,
        #"{"t":12,"e":"begin","a":1,"th":1,"run":3}"#,
        #"{"t":13,"e":"end","a":1,"th":1,"run":3,"dur":1}"#,
        #"{"t":42,"e":"begin","a":1,"th":1,"run":7}"#,
      ]),
      [
        "6: action #1 begins run 3 after run 1: run 2 is missing",
        "8: action #1 begins run 7 after run 3: runs 4…6 are missing",
      ])
  }

  func testAFirstBeginThatIsNotRunOneSaysWhichRunsAreMissing() {
    XCTAssertEqual(
      warnings([schedule(1, mode: "repeating"), #"{"t":2,"e":"begin","a":1,"th":1,"run":3}"#]),
      ["4: action #1 begins with run 3: runs 1…2 are missing"])
  }

  func testRunsInOrderGiveNoWarningAndTheLargestRunNumberDoesNotOverflow() {
    XCTAssertEqual(
      warnings([
        schedule(1, mode: "repeating"),
        #"{"t":2,"e":"begin","a":1,"th":1,"run":1}"#,
        #"{"t":3,"e":"end","a":1,"th":1,"run":1,"dur":1}"#,
        #"{"t":12,"e":"begin","a":1,"th":1,"run":2}"#,
        #"{"t":13,"e":"end","a":1,"th":1,"run":2,"dur":1}"#,
        schedule(2, mode: "repeating", at: 14),
        #"{"t":14,"e":"begin","a":2,"th":1,"run":4294967295}"#,
        #"{"t":15,"e":"begin","a":2,"th":1,"run":4294967295}"#,
      ]),
      ["9: action #2 begins with run 4294967295: runs 1…4294967294 are missing"])
  }

  func testAHugeActionIdIsTrackedWithoutAHugeTable() {
    let id = 60_000_000
    XCTAssertEqual(
      warnings([
        schedule(id), #"{"t":2,"e":"begin","a":\#(id),"th":1}"#,
        #"{"t":3,"e":"end","a":\#(id),"th":1,"dur":1}"#,
        #"{"t":4,"e":"end","a":5,"th":1,"dur":1}"#,
      ]),
      ["6: action #5 ends but never began"])
  }
}
