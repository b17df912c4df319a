import ChronoscopeTestSupport
import Foundation
import XCTest

/// `chronoscope show` for bug reports: the frame as text, its options, and bad values as errors.
final class ShowCommandTests: XCTestCase {
  private static let recordings = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  private func show(_ arguments: [String], recording: String = "busy-app-virtual") throws -> (
    status: Int32, output: String
  ) {
    let path = Self.recordings.appendingPathComponent("\(recording).trace").path
    return try CommandRun.chronoscope(["show", path] + arguments)
  }

  func testLineAndParagraphSeparatorsFromTheTraceAreEscaped() throws {
    let lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"x","pid":1,"metadata":{}}"#,
      #"{"t":0,"e":"scheduler","q":1,"label":"a\u2028b\u2029c","kind":"serial","family":"dispatch"}"#,
      #"{"t":5,"e":"schedule","a":1,"q":1,"mode":"async","due":5,"th":1}"#,
      #"{"t":100,"e":"close","events":1,"dropped":0}"#,
    ]
    let path = try temporaryTrace(lines, name: "separators")
    let (status, output) = try CommandRun.chronoscope(
      ["show", path, "--size", "120x20", "--at", "0", "--findings"])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains(#"a\u{2028}b\u{2029}c"#), output)
    XCTAssertFalse(output.contains("\u{2028}") || output.contains("\u{2029}"), output)
  }

  func testShowPrintsNoKeyHints() throws {
    let (status, output) = try show(["--at", "0.5s"])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("Lanes (by scheduler)"), output)
    XCTAssertFalse(output.contains("q quit"), output)
    XCTAssertFalse(output.contains("space play"), output)
  }

  func testByThreadFilterAndActionOptions() throws {
    let byThread = try show(["--at", "0.5s", "--by-thread"])
    XCTAssertEqual(byThread.status, 0, byThread.output)
    XCTAssertTrue(byThread.output.contains("Lanes (by thread)"), byThread.output)
    let filtered = try show(["--at", "0.5s", "--filter", "app.c"])
    XCTAssertTrue(
      filtered.output.contains("Lanes (by scheduler) 1 of 45 · filter \"app.c\""), filtered.output)
    XCTAssertFalse(filtered.output.contains("app.database"), filtered.output)
    let detail = try show(["--at", "0.5s", "--action", "#1"])
    XCTAssertEqual(detail.status, 0, detail.output)
    XCTAssertTrue(detail.output.contains("Action #1 · repeating"), detail.output)
    XCTAssertEqual(try show(["--action", "1"]).output, try show(["--action", "#1"]).output)
  }

  func testTheActionsStateIsDatedByItsOwnEvents() throws {
    let fixture = Self.recordings.deletingLastPathComponent()
      .appendingPathComponent("Tests/ChronoscopeInspectorTests/Fixtures/worker-hops.trace").path
    let cancelled = try CommandRun.chronoscope(["show", fixture, "--at", "5ms", "--action", "4"])
    XCTAssertEqual(cancelled.status, 0, cancelled.output)
    XCTAssertTrue(
      cancelled.output.contains("now          cancelled before it ran, at 0.002180s"),
      cancelled.output)
    XCTAssertFalse(cancelled.output.contains("done"), cancelled.output)
    let finished = try CommandRun.chronoscope(["show", fixture, "--at", "5ms", "--action", "1"])
    XCTAssertTrue(finished.output.contains("now          finished at 0.000140s"), finished.output)
  }

  func testAnActionWithoutAtIsShownAtItsMostTellingInstant() throws {
    // The README's example: #5 never ran; it was cancelled.
    let readme = try show(["--action", "5"], recording: "busy-app")
    XCTAssertEqual(readme.status, 0, readme.output)
    XCTAssertFalse(readme.output.contains("not scheduled yet"), readme.output)
    XCTAssertTrue(readme.output.contains("now          cancelled before it ran"), readme.output)
    // #10 hangs: its last run, still running at the end.
    let stuck = try show(["--action", "10"], recording: "findings-demo-virtual")
    XCTAssertTrue(stuck.output.contains("now          running run 1 since 0.800000s"), stuck.output)
    XCTAssertTrue(stuck.output.contains(" 0.800000s / 1.200000s "), stuck.output)
    // Repeating work: the begin of its last run.
    let repeating = try show(["--action", "1"], recording: "findings-demo-virtual")
    XCTAssertTrue(repeating.output.contains(" 0.780000s / 1.200000s "), repeating.output)
    // --at still chooses.
    let atStart = try show(["--action", "10", "--at", "e0"], recording: "findings-demo-virtual")
    XCTAssertTrue(atStart.output.contains("not scheduled yet"), atStart.output)
  }

  func testAnActionsDetailSaysWhyItWasLate() throws {
    let (status, output) = try show(["--action", "6"], recording: "findings-demo-virtual")
    XCTAssertEqual(status, 0, output)
    let parts = output.components(separatedBy: "\nWhy #6 was late · run 1 · 295.000ms\n")
    XCTAssertEqual(parts.count, 2, output)
    XCTAssertTrue(parts[1].contains("waited for   the main thread: what ran on it"), output)
    XCTAssertTrue(
      parts[1].contains("    295.000ms   #7 async        main                run 1 on main"), output
    )
    let onTime = try show(["--action", "3"], recording: "findings-demo-virtual")
    XCTAssertFalse(onTime.output.contains("Why #3"), "work that began on time: \(onTime.output)")
  }

  func testFindingsAreAppendedAfterTheFrameWhenAsked() throws {
    let (status, output) = try show(["--findings"], recording: "retry")
    XCTAssertEqual(status, 0, output)
    let parts = output.components(separatedBy: "\nFindings (2)\n")
    XCTAssertEqual(parts.count, 2, output)
    XCTAssertTrue(parts[1].contains(": no-op-cancel: #1 retry"), output)
    XCTAssertFalse(try show([], recording: "retry").output.contains("Findings ("))
  }

  func testHashSeeksToWhereAnActionWasScheduled() throws {
    let (status, output) = try show(["--at", "#3"], recording: "virtual-timeout")
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("▸ e5 "), "action #3 is scheduled by the fifth event:\n\(output)")
  }

  func testWhyLateListsTheLongestStretchesInTimeOrderAndCountsTheRest() throws {
    // On a serial scheduler, 40 runs ahead of #100, one every 3 ms, every tenth twice as long.
    var lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"t","pid":1}"#,
      #"{"t":0,"e":"scheduler","q":2,"label":"db","kind":"serial","family":"dispatch"}"#,
      #"{"t":0,"e":"thread","th":2,"name":"worker"}"#,
    ]
    var events: [(Int64, String)] = []
    for k in 0..<41 {
      let id = k == 40 ? 100 : k + 1
      let from = Int64(k == 40 ? 121 : 3 * k) * 1_000_000
      let length: Int64 = (k % 10 == 9 ? 2 : 1) * 1_000_000
      events.append(
        (0, #"{"t":0,"e":"schedule","a":\#(id),"q":2,"mode":"async","due":0,"th":1}"#))
      events.append((from, #"{"t":\#(from),"e":"begin","a":\#(id),"th":2,"run":1}"#))
      events.append(
        (
          from + length,
          #"{"t":\#(from + length),"e":"end","a":\#(id),"th":2,"run":1,"dur":\#(length)}"#
        ))
    }
    lines += events.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
      .map(\.element.1)
    lines.append(#"{"t":130000000,"e":"close","events":123,"dropped":0}"#)
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("why-late-\(UUID().uuidString).trace").path
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    let (status, output) = try CommandRun.chronoscope(["show", path, "--action", "100"])
    XCTAssertEqual(status, 0, output)
    XCTAssertTrue(output.contains("  held up by (the longest, in time order)"), output)
    XCTAssertTrue(output.contains("    … and 70 shorter stretches, 101.000ms in all"), output)
    let stretches = output.split(separator: "\n").filter { $0.hasPrefix("    2.000ms") }
    XCTAssertEqual(stretches.count, 10, output)
  }

  func testBadValuesExitTwoAndNameTheLimit() throws {
    let cases: [([String], String)] = [
      (["--size", "10x5"], "--size 10x5 is below the minimum, 60x16"),
      (["--size", "100000x100000"], "--size 100000x100000 is above the maximum, 1000x1000"),
      (["--size", "wide"], "--size must be WIDTHxHEIGHT"),
      (["--at", "5s"], "--at 5s is after the trace's end: it spans 0s to 1.300000s"),
      (["--at", "e999999"], "the trace has events e1 to e1077"),
      (["--at", "#999999"], "the trace has no action #999999"),
      (["--at", "120"], "\"120\" needs a unit"),
      (["--at", "-1s"], "times start at 0s"),
      (["--action", "424242"], "--action: the trace has no action #424242"),
      (["--action", "+1"], "--action: \"+1\" is not an action id (actions are written #12)"),
      (["--action", "#1x"], "--action: \"#1x\" is not an action id"),
      (["--bogus"], "Unknown option '--bogus'"),
    ]
    for (arguments, message) in cases {
      let (status, output) = try show(arguments)
      XCTAssertEqual(status, 2, "\(arguments): \(output)")
      XCTAssertTrue(output.contains(message), "\(arguments): \(output)")
      XCTAssertFalse(output.contains("Lanes"), "no frame on an error")
    }
  }
}
