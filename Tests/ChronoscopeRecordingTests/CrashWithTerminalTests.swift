import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

#if os(Linux)
  import Glibc

  /// A child takes a pseudo-terminal over with a `TerminalSession` and records, then crashes: the
  /// one crash-handler chain must put the terminal back and write the trace's crash line, whichever
  /// was set up first and whichever was given up before the crash. Waits only for the child.
  final class CrashWithTerminalTests: XCTestCase {
    /// Runs `crash --terminal` on a new pseudo-terminal; returns the bytes the child wrote to it
    /// and the terminal's modes after it died.
    private func runOnTerminal(_ arguments: [String]) throws -> (output: [UInt8], modes: termios) {
      // posix_openpt and its kin are hidden from Swift's Glibc: the same through /dev/ptmx and
      // Linux's ioctls (TIOCSPTLCK unlocks the other end, TIOCGPTN numbers it; their _IOW/_IOR
      // values, which Swift cannot compute from the macros).
      let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
      XCTAssertGreaterThanOrEqual(master, 0)
      defer { close(master) }
      var unlock: Int32 = 0
      XCTAssertEqual(ioctl(master, 0x4004_5431, &unlock), 0)
      var number: UInt32 = 0
      XCTAssertEqual(ioctl(master, 0x8004_5430, &number), 0)
      let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
      XCTAssertGreaterThanOrEqual(terminal, 0)
      var size = winsize(ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0)
      _ = ioctl(terminal, UInt(TIOCSWINSZ), &size)

      let child = Process()
      child.executableURL = try ProductsDirectory.executable("chronoscope-examples")
      child.arguments = ["crash", "--terminal"] + arguments
      child.environment = ProcessInfo.processInfo.environment.merging([
        "SWIFT_BACKTRACE": "enable=no", "TERM": "xterm",
      ]) { $1 }
      let handle = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
      child.standardInput = handle
      child.standardOutput = handle
      child.standardError = FileHandle.nullDevice
      // Read as the child writes, so that it never waits on a full terminal; the read ends (EIO)
      // when the last descriptor of the terminal's other end closes: the child's as it dies, then
      // this test's.
      let output = SharedValue<[UInt8]>([])
      let finished = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
          let count = read(master, &buffer, buffer.count)
          if count <= 0 { break }
          output.set(output.get() + buffer[..<count])
        }
        finished.signal()
      }
      try child.run()
      let deadline = DispatchWorkItem { [child] in if child.isRunning { child.terminate() } }
      DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: deadline)
      child.waitUntilExit()
      deadline.cancel()
      XCTAssertEqual(child.terminationReason, .uncaughtSignal)
      var modes = termios()
      XCTAssertEqual(tcgetattr(terminal, &modes), 0)
      close(terminal)
      finished.wait()
      return (output.get(), modes)
    }

    func testACrashWithATerminalAndARecorderRestoresTheTerminalAndWritesTheCrashLine() throws {
      let path = temporaryTracePath("crash-terminal")
      let (output, modes) = try runOnTerminal(["--output", path, "--way", "stack-overflow"])
      let text = String(decoding: output, as: UTF8.self)
      let entered = try XCTUnwrap(text.range(of: "\u{1B}[?1049h"), "ncurses took the screen over")
      XCTAssertNotNil(
        text.range(of: "\u{1B}[?1049l", range: entered.upperBound..<text.endIndex),
        "the crash left the alternate screen: \(text.debugDescription.suffix(200))")
      XCTAssertNotNil(text.range(of: "\u{1B}[?25h"), "the cursor shows again")
      XCTAssertNotEqual(modes.c_lflag & tcflag_t(ECHO), 0, "echo is back on")
      XCTAssertNotEqual(modes.c_lflag & tcflag_t(ICANON), 0, "line editing is back on")
      let trace = try XCTUnwrap(TraceReader.read(path: path).trace)
      XCTAssertEqual(trace.crash?.signal, "SIGSEGV")
    }

    func testARecorderOpenedAfterATerminalSessionKeepsItsCrashLineWhenTheSessionEnds() throws {
      let path = temporaryTracePath("crash-terminal-stopped")
      _ = try runOnTerminal(["--output", path, "--way", "ill", "--stop-terminal"])
      let trace = try XCTUnwrap(TraceReader.read(path: path).trace)
      XCTAssertEqual(trace.crash?.signal, "SIGILL")
    }
  }
#endif
