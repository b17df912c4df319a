import ChronoscopeTestSupport
import Foundation
import XCTest

/// The real `chronoscope` binary in a real terminal (tmux): keys in, screen out.
///
/// These wait on the program through tmux with deadlines, condition-driven — except the one test
/// that measures idleness, which must let wall-clock time pass (two seconds) to count wake-ups.
final class InspectorEndToEndTests: XCTestCase {
  private static let recordings = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Recordings")

  private func start(
    _ arguments: [String], width: Int = 100, height: Int = 30, environment: [String: String] = [:]
  ) throws -> TmuxSession {
    try TmuxSession(
      executable: try ProductsDirectory.executable("chronoscope"), arguments: arguments,
      width: width, height: height, environment: environment)
  }

  private func recording(_ name: String) -> String {
    Self.recordings.appendingPathComponent("\(name).trace").path
  }

  func testWithNoArgumentsItOpensTheBundledRecordingAndQuitsCleanly() throws {
    let session = try start([])
    defer { session.kill() }
    let screen = try session.waitFor("busy-app.trace", timeout: .seconds(30))
    XCTAssertTrue(screen.contains("Lanes (by scheduler)"), screen)
    XCTAssertTrue(screen.contains("app.database"), screen)
    XCTAssertTrue(session.isInAlternateScreen())
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(timeout: .seconds(20)), 0)
    XCTAssertFalse(session.isInAlternateScreen(), "the terminal left the alternate screen")
  }

  func testStepKeysMoveThroughEventsBothWays() throws {
    let session = try start(["view", recording("virtual-timeout")])
    defer { session.kill() }
    try session.waitFor("event 0/45", timeout: .seconds(30))
    session.sendKeys("n", "n", "Right")
    try session.waitFor("event 3/45")
    session.sendKeys("p")
    try session.waitFor("event 2/45")
    session.sendKeys("G")
    try session.waitFor("event 45/45")
    session.sendKeys("g")
    try session.waitFor("event 0/45")
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(), 0)
  }

  func testViewAtAnEventOpensWithTheCursorOnIt() throws {
    let session = try start(["view", recording("virtual-timeout"), "--at", "e5"])
    defer { session.kill() }
    // The cursor's line is drawn after the header: waiting for it waits for the whole frame.
    let screen = try session.waitFor("▸ e5 ", timeout: .seconds(30))
    XCTAssertTrue(screen.contains("event 5/45"), screen)
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(), 0)
    // An --at outside the trace is refused before the terminal is taken, as show refuses it.
    let refused = try CommandRun.chronoscope(["view", recording("virtual-timeout"), "--at", "e99"])
    XCTAssertEqual(refused.status, 2, refused.output)
    XCTAssertTrue(
      refused.output.contains("--at e99 is past the last event: the trace has events e1 to e45"),
      refused.output)
  }

  func testHomeAndEndGoToTheEndsOfTheTrace() throws {
    let session = try start(["view", recording("virtual-timeout")])
    defer { session.kill() }
    try session.waitFor("event 0/45", timeout: .seconds(30))
    session.sendKeys("End")
    try session.waitFor("event 45/45")
    session.sendKeys("Home")
    try session.waitFor("event 0/45")
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(), 0)
  }

  /// At 100 × 30 and the start, the lanes are on rows 2–3 and the Events panel's rows start at
  /// 10.
  func testAClickSelectsALaneAndAnEventWhoseActionEnterOpens() throws {
    let session = try start(["view", recording("virtual-timeout")])
    defer { session.kill() }
    try session.waitFor("event 0/45", timeout: .seconds(30))
    session.click(column: 10, row: 3)
    try session.waitFor("▸timeout-service")
    session.click(column: 10, row: 12)  // e2, the schedule of #1 (under the marks row)
    try session.waitFor("▸ Events (45)")
    session.sendKeys("Enter")
    try session.waitFor("Action #1 · sync")
    session.sendKeys("Escape", "q")
    XCTAssertEqual(try session.waitForExit(), 0)
  }

  func testSeekPromptHelpAndDetailScreens() throws {
    let session = try start(["view", recording("virtual-timeout")])
    defer { session.kill() }
    try session.waitFor("event 0/45", timeout: .seconds(30))
    session.sendKeys("@")
    try session.waitFor("seek to:")
    session.type("3s")
    session.sendKeys("Enter")
    try session.waitFor("3.000000s / 6.500000s")
    session.sendKeys("?")
    try session.waitFor("search labels, sites, marks, threads, named work")
    session.sendKeys("Escape")
    try session.waitUntil("the main view", timeout: .seconds(10)) {
      $0.contains("Lanes (by scheduler)")
    }
    session.sendKeys("Enter")
    try session.waitFor("Action #")
    session.sendKeys("Escape", "q")
    XCTAssertEqual(try session.waitForExit(), 0)
  }

  /// `o` and `h` in the real binary on the bundled recording, whose request schedulers share five
  /// labels: sorted by name they are numbered, idle lanes hide and come back, and the title
  /// says which of how many lanes it shows.
  func testLaneKeysSortByNameAndHideIdleLanes() throws {
    let session = try start(["view", recording("busy-app")])
    defer { session.kill() }
    try session.waitFor("event 0/", timeout: .seconds(30))
    session.sendKeys("o")
    let sorted = try session.waitFor("· sorted by name")
    // The selected lane, main, stays selected: last by name, after the twentieth app.request.4.
    XCTAssertTrue(sorted.contains("▸main "), sorted)
    XCTAssertTrue(sorted.contains(" app.request.4·20 "), sorted)
    session.sendKeys("h")
    try session.waitUntil("idle lanes hidden, counted in the title") {
      $0.range(
        of: #"Lanes \(by scheduler\) [0-9]+ of [0-9]+ · sorted by name · idle hidden"#,
        options: .regularExpression) != nil
    }
    session.sendKeys("h")
    try session.waitUntil("every lane shown again") {
      $0.range(
        of: #"Lanes \(by scheduler\) \([0-9]+\) · sorted by name ─"#, options: .regularExpression)
        != nil
    }
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(), 0)
  }

  func testResizingRedrawsAndATinyTerminalSaysSo() throws {
    let session = try start(["view", recording("virtual-timeout")])
    defer { session.kill() }
    try session.waitFor("event 0/45", timeout: .seconds(30))
    session.resize(width: 40, height: 10)
    try session.waitFor("terminal too small")
    try session.waitFor("have 40×10")
    session.resize(width: 120, height: 35)
    let screen = try session.waitFor("Lanes (by scheduler)")
    let header = screen.split(separator: "\n").first.map(String.init) ?? ""
    XCTAssertTrue(header.hasSuffix("×1"), "the header spans the new width: \(header)")
    XCTAssertGreaterThan(header.count, 100)
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(), 0)
    XCTAssertFalse(session.isInAlternateScreen())
  }

  /// Paused, the inspector waits for a key without waking: no redraw on a timer.
  func testAPausedInspectorSleepsUntilAKeyArrives() throws {
    #if !os(Linux)
      throw XCTSkip("counts wake-ups in /proc/PID/status, which only Linux has")
    #endif
    let session = try start(["view", recording("busy-app")])
    defer { session.kill() }
    // Once the findings (made on another thread after the first frame) are on screen, nothing
    // is left to wait for.
    try session.waitUntil("the first frame with its findings", timeout: .seconds(30)) {
      $0.contains("event 0/") && !$0.contains("finding…")
    }
    let program = try session.programID()
    /// The main thread's voluntary context switches: each wake-up from waiting is one.
    func wakeUps() throws -> Int {
      let status = try String(contentsOfFile: "/proc/\(program)/status", encoding: .utf8)
      let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches") }
      return Int(line?.split(separator: "\t").last ?? "") ?? -1
    }
    let before = try wakeUps()
    // Deliberately idle: this measures that nothing happens while nothing is pressed.
    Thread.sleep(forTimeInterval: 2)
    let idle = try wakeUps() - before
    XCTAssertLessThanOrEqual(idle, 1, "woke \(idle) times in 2 s paused (a 250 ms timer wakes 8)")
    session.sendKeys("n")
    try session.waitFor("event 1/")
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(), 0)
  }

  /// The first frame comes before the findings; they appear without a key being pressed.
  func testTheFindingsAppearWithoutAKeyOnceFound() throws {
    let session = try start(["view", recording("findings-demo")], width: 140)
    defer { session.kill() }
    let screen = try session.waitUntil("a count of findings in the title", timeout: .seconds(30)) {
      $0.range(of: #"⚑ [0-9]+ findings"#, options: .regularExpression) != nil
    }
    XCTAssertFalse(screen.contains("finding…"), screen)
    session.sendKeys("!")
    try session.waitFor("head-of-line-blocking")
    session.sendKeys("q", "q")
    XCTAssertEqual(try session.waitForExit(), 0)
  }

  func testCtrlCRestoresTheTerminal() throws {
    let session = try start(["view", recording("timeout-timeout")])
    defer { session.kill() }
    try session.waitFor("timeout-timeout.trace", timeout: .seconds(30))
    session.sendKeys("C-c")
    let status = try session.waitForExit(timeout: .seconds(30))
    XCTAssertEqual(status, 130, "128 + SIGINT, as shells report an interrupted program")
    XCTAssertFalse(session.isInAlternateScreen(), "the terminal was restored")
  }

  func testSIGTERMRestoresTheTerminalAndExits143() throws {
    let session = try start(["view", recording("timeout-timeout")])
    defer { session.kill() }
    try session.waitFor("timeout-timeout.trace", timeout: .seconds(30))
    XCTAssertTrue(session.isInAlternateScreen())
    try session.signalProgram(SIGTERM)
    let status = try session.waitForExit(timeout: .seconds(30))
    XCTAssertEqual(status, 143, "128 + SIGTERM")
    XCTAssertFalse(session.isInAlternateScreen(), "the terminal was restored")
  }

  func testACorruptFileFailsWithTheMessageAndNeverTakesTheScreen() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("corrupt-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let text = """
      {"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"x","pid":1,"metadata":{}}
      {"t":1,"e":"begin","a":"one","th":1}

      """
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let session = try start(["view", path])
    defer { session.kill() }
    let status = try session.waitForExit(timeout: .seconds(30))
    // Long lines wrap at the pane's width; joining the rows undoes that.
    let screen = session.capture().replacingOccurrences(of: "\n", with: "")
    XCTAssertEqual(status, 2, screen)
    XCTAssertTrue(
      screen.contains(":2:24: error: field \"a\" must be an integer, found a string"), screen)
    XCTAssertFalse(session.isInAlternateScreen())
  }

  func testMonochromeWithNoColorKeepsAttributesButNoColours() throws {
    let session = try start(["view", recording("virtual-timeout")], environment: ["NO_COLOR": "1"])
    defer { session.kill() }
    try session.waitFor("event 0/45", timeout: .seconds(30))
    session.sendKeys("n")
    try session.waitFor("event 1/45")
    let escapes = session.captureWithEscapes()
    // SGR parameters 30–37 / 40–47 set colours; 39 / 49 (default colour) are fine.
    let colour = try NSRegularExpression(pattern: "\u{1B}\\[(?:[0-9]*;)*[34][0-7](?:;[0-9]*)*m")
    let range = NSRange(escapes.startIndex..., in: escapes)
    XCTAssertEqual(colour.numberOfMatches(in: escapes, range: range), 0, "no colours:\n\(escapes)")
    let reverse = try NSRegularExpression(pattern: "\u{1B}\\[(?:[0-9]*;)*7(?:;[0-9]*)*m")
    XCTAssertGreaterThan(
      reverse.numberOfMatches(in: escapes, range: range), 0, "reverse video marks the header")
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(), 0)
  }

  func testShowPrintsThePlainFrameWithoutEscapeCodes() throws {
    let binary = try ProductsDirectory.executable("chronoscope")
    let process = Process()
    process.executableURL = binary
    process.arguments = ["show", recording("virtual-timeout"), "--at", "e5", "--size", "80x20"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    XCTAssertEqual(process.terminationStatus, 0)
    XCTAssertTrue(text.contains("event 5/45"), text)
    XCTAssertTrue(text.contains("Pending (2)"), text)
    XCTAssertFalse(text.contains("\u{1B}"), "plain text only")
    XCTAssertEqual(text.split(separator: "\n", omittingEmptySubsequences: false).count, 21)
  }
}
