import ChronoscopeTestSupport
import Foundation
import XCTest

/// What a user sees in a real terminal on the bundled live recording: the footer, thread names,
/// the axis, following actions in the detail view. Condition-driven waits only.
final class ScreenTruthEndToEndTests: XCTestCase {
  private static let busyApp = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings/busy-app.trace").path

  private func start(width: Int, height: Int) throws -> TmuxSession {
    try TmuxSession(
      executable: try ProductsDirectory.executable("chronoscope"),
      arguments: ["view", Self.busyApp], width: width, height: height, environment: [:])
  }

  /// tmux measures code point by code point, as `wcwidth` does: a ZWJ sequence sent whole
  /// moved its cursor 6 columns where the grid counted 2, and the rest of the lane's row moved.
  func testEmojiSequencesInALabelLeaveTheRestOfTheRowInItsColumns() throws {
    let lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"x","pid":1,"metadata":{}}"#,
      #"{"t":0,"e":"scheduler","q":1,"label":"a👨‍👩‍👧b🇯🇵c❤️d⛹‍♀e|","kind":"serial","family":"dispatch"}"#,
      #"{"t":0,"e":"scheduler","q":2,"label":"abcdefghijklm|","kind":"serial","family":"dispatch"}"#,
      #"{"t":5,"e":"schedule","a":1,"q":1,"mode":"async","due":5,"th":1}"#,
      // At the same instant as #1, so that both lanes draw the same strip.
      #"{"t":5,"e":"schedule","a":2,"q":2,"mode":"async","due":5,"th":1}"#,
      #"{"t":100,"e":"close","events":2,"dropped":0}"#,
    ]
    let path = try temporaryTrace(lines, name: "emoji")
    let session = try TmuxSession(
      executable: try ProductsDirectory.executable("chronoscope"), arguments: ["view", path])
    defer { session.kill() }
    let screen = try session.waitFor("abcdefghijklm|", timeout: .seconds(30))
    let rows = screen.split(separator: "\n")
    let emoji = try XCTUnwrap(rows.first { $0.contains("e|") && !$0.contains("abcdefghijklm") })
    let plain = try XCTUnwrap(rows.first { $0.contains("abcdefghijklm|") })
    // Both lanes' strips and counts, from the label's end: the same text in the same columns.
    let strip = { (row: Substring) in row.split(separator: "|", maxSplits: 1).last ?? "" }
    XCTAssertEqual(strip(emoji), strip(plain), screen)
    XCTAssertTrue(emoji.hasPrefix("▸a👨b🇯 c❤ d⛹ e|"), screen)
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(timeout: .seconds(20)), 0)
  }

  func testAt120ColumnsTheFooterEndsWithHelpAndQuit() throws {
    let session = try start(width: 120, height: 30)
    defer { session.kill() }
    let screen = try session.waitFor("Lanes (by scheduler)", timeout: .seconds(30))
    let footer = screen.split(separator: "\n").last {
      !$0.trimmingCharacters(in: .whitespaces).isEmpty
    }
    XCTAssertTrue(footer?.hasSuffix("? help · q quit") ?? false, screen)
    session.resize(width: 80, height: 30)
    let narrow = try session.waitUntil("the footer at 80 columns") { screen in
      screen.split(separator: "\n").contains { $0.count <= 80 && $0.hasSuffix("? help · q quit") }
        && !screen.contains("tab panel")
    }
    XCTAssertFalse(narrow.contains("tab panel"), "fewer hints fit, help and quit stay")
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(timeout: .seconds(20)), 0)
  }

  func testByThreadShowsWholeUniqueThreadNamesAndTheTimeAxis() throws {
    let session = try start(width: 120, height: 30)
    defer { session.kill() }
    try session.waitFor("Lanes (by scheduler)", timeout: .seconds(30))
    session.sendKeys("G", "v")
    let screen = try session.waitFor("Lanes (by thread)")
    XCTAssertTrue(screen.contains("worker "), screen)
    XCTAssertFalse(screen.contains("-qos.overcommit"), screen)
    XCTAssertFalse(screen.contains("oot.default-qos"), screen)
    XCTAssertTrue(screen.contains("/col"), "the strips' scale")
    XCTAssertTrue(screen.contains("┤"), "the axis' end")
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(timeout: .seconds(20)), 0)
  }

  func testInfoFindingsAreQuietUntilAskedForThenOpen() throws {
    let session = try start(width: 120, height: 30)
    defer { session.kill() }
    // The findings are made after the first frame; the title says `⚑ finding…` until then, and
    // counts none after: every finding of this app is a cancel of a timer that already fired.
    try session.waitUntil("the findings made", timeout: .seconds(30)) {
      $0.contains("Lanes (by scheduler)") && !$0.contains("⚑")
    }
    session.sendKeys("x")
    try session.waitFor("no warnings or errors in this trace (! then i lists")
    session.sendKeys("!")
    try session.waitFor("Findings (0)")
    session.sendKeys("i")
    try session.waitFor("no-op-cancel")
    session.sendKeys("Enter")
    try session.waitFor("Finding 1 of ")
    session.sendKeys("Escape")
    try session.waitFor("i hides info")
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(timeout: .seconds(20)), 0)
  }

  func testTheDetailViewFollowsTheParentAndWalksBack() throws {
    let session = try start(width: 120, height: 30)
    defer { session.kill() }
    try session.waitFor("Lanes (by scheduler)", timeout: .seconds(30))
    // A search for an action that has a parent, then its detail and the parent's.
    session.sendKeys("@")
    session.type("#5")
    session.sendKeys("Enter", "Enter")
    try session.waitFor("Action #5 ")
    try session.waitFor("scheduled by #")
    session.sendKeys("Enter")
    let parent = try session.waitFor("(#5 → #")
    XCTAssertFalse(parent.contains("Action #5 "), parent)
    session.sendKeys("Escape")
    try session.waitFor("Action #5 ")
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(timeout: .seconds(20)), 0)
  }
}
