import ChronoscopeTestSupport
import XCTest

/// The built `chronoscope` in a real terminal (tmux): the harness itself, on the simplest command.
final class HelpEndToEndTests: XCTestCase {
  func testHelpRunsInATerminalAndExitsCleanly() throws {
    let session = try TmuxSession(
      executable: try ProductsDirectory.executable("chronoscope"), arguments: ["--help"])
    defer { session.kill() }

    let screen = try session.waitFor("EXIT=", timeout: .seconds(30))

    XCTAssertEqual(session.exitStatus, 0, screen)
    XCTAssertTrue(screen.contains("USAGE: chronoscope"), screen)
    XCTAssertFalse(session.isInAlternateScreen(), screen)
  }
}
