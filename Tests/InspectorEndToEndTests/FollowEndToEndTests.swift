import ChronoscopeTestSupport
import Foundation
import XCTest

/// `view --follow` in a real terminal while a child process records into the file it shows.
final class FollowEndToEndTests: XCTestCase {
  /// The total in the header's `event N/TOTAL`.
  private static func counts(_ screen: String) -> (position: Int, total: Int)? {
    guard let header = screen.split(separator: "\n").first,
      let range = header.range(of: #"event \d+/\d+"#, options: .regularExpression)
    else { return nil }
    let numbers = header[range].dropFirst(6).split(separator: "/").compactMap { Int($0) }
    return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
  }

  func testNewEventsAppearAndTheCursorFollowsOnlyFromTheEnd() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("follow-\(UUID().uuidString).trace").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let child = Process()
    child.executableURL = try ProductsDirectory.executable("chronoscope-examples")
    // Slow work (2 ms per action), so that the trace grows for the whole test.
    child.arguments = [
      "stress", "--output", path, "--seconds", "60", "--io-microseconds", "2000",
    ]
    child.standardOutput = Pipe()
    try child.run()
    defer {
      child.terminate()
      child.waitUntilExit()
    }
    // The recorder writes its header at once; wait for the first events to be flushed.
    let deadline = Date(timeIntervalSinceNow: 30)
    while Date() < deadline {
      let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
      if text.contains(#""e":"begin""#) { break }
      Thread.sleep(forTimeInterval: 0.05)
    }

    let session = try TmuxSession(
      executable: try ProductsDirectory.executable("chronoscope"),
      arguments: ["view", "--follow", path], width: 120, height: 30)
    defer { session.kill() }
    let first = try session.waitFor("● live", timeout: .seconds(30))
    let start = try XCTUnwrap(Self.counts(first))
    XCTAssertEqual(start.position, start.total, "it opens at the live end")
    try session.waitUntil("more events, cursor at the end", timeout: .seconds(30)) { screen in
      guard let now = Self.counts(screen) else { return false }
      return now.total > start.total && now.position == now.total && screen.contains("● live")
    }

    session.sendKeys("g")
    let away = try session.waitFor("◌ following", timeout: .seconds(10))
    let stayed = try XCTUnwrap(Self.counts(away))
    XCTAssertEqual(stayed.position, 0)
    try session.waitUntil("more events, cursor where it was", timeout: .seconds(30)) { screen in
      guard let now = Self.counts(screen) else { return false }
      return now.total > stayed.total && now.position == 0
    }

    session.sendKeys("G")
    try session.waitFor("● live", timeout: .seconds(10))
    session.sendKeys("q")
    XCTAssertEqual(try session.waitForExit(timeout: .seconds(20)), 0)
  }
}
