import CChronoscopeNCursesW
import ChronoscopeFatalSignals
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Puts the terminal back when the process crashes, then lets the crash go on.
///
/// A Swift trap (SIGILL/SIGTRAP) or a C crash would leave the terminal in the alternate screen with
/// echo off. ``arm()`` saves the terminal's modes before ncurses changes them and works out the
/// bytes that leave the alternate screen, show the cursor and stop mouse reports; on a crash, a
/// callback in the crash-handler chain (``FatalSignals``) writes those bytes with `write(2)` and
/// puts the modes back with `tcsetattr` — no `endwin()`, whose stdio buffers and allocation are
/// not safe in a signal handler.
enum CrashRestore {
  /// The callback's registration while a session runs. `TerminalSession` arms and disarms only
  /// while it holds its one-session-at-a-time flag.
  private static let registration = Mutex<FatalSignals.Registration?>(nil)

  /// Saves the terminal's modes; call before ncurses takes the terminal over.
  static func saveModes() {
    state.pointee.savedModes = tcgetattr(STDIN_FILENO, &state.pointee.modes) == 0
  }

  /// Works out the bytes that undo ncurses' set-up and registers the callback; call once the
  /// session is set up, so that the terminal's capabilities are known.
  static func arm() {
    var bytes: [UInt8] = []
    for capability in ["rmcup", "rmkx", "cnorm", "sgr0"] {
      guard let value = tigetstr(capability), Int(bitPattern: value) != -1 else { continue }
      var pointer = UnsafePointer(value)
      while pointer.pointee != 0 {
        bytes.append(UInt8(bitPattern: pointer.pointee))
        pointer += 1
      }
    }
    if let mouse = tigetstr("kmous"), Int(bitPattern: mouse) != -1 {
      // The xterm mouse modes ncurses turns on; a terminal ignores the ones it never had on.
      bytes += Array("\u{1B}[?1006l\u{1B}[?1000l".utf8)
    }
    let count = min(bytes.count, CrashRestoreState.capacity)
    withUnsafeMutableBytes(of: &state.pointee.bytes) { buffer in
      buffer.copyBytes(from: bytes.prefix(count))
    }
    state.pointee.count = count
    registration.withLock {
      $0 = FatalSignals.register(context: UnsafeMutableRawPointer(state)) { _, context in
        let state = context.assumingMemoryBound(to: CrashRestoreState.self)
        withUnsafeBytes(of: &state.pointee.bytes) { buffer in
          _ = write(STDOUT_FILENO, buffer.baseAddress, state.pointee.count)
        }
        if state.pointee.savedModes { tcsetattr(STDIN_FILENO, TCSANOW, &state.pointee.modes) }
      }
    }
  }

  /// Removes the callback: the session ended and put the terminal back itself.
  static func disarm() {
    if let registration = registration.withLock({ $0.take() }) {
      FatalSignals.unregister(registration)
    }
  }
}

/// What the crash callback needs, ready before any crash.
private struct CrashRestoreState {
  static let capacity = 256
  var modes = termios()
  var savedModes = false
  var count = 0
  var bytes:
    (
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
      UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    ) = (
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
    )
}

// Allocated once and never freed, so the handler never touches reference counting; written
// only while no callback is registered for it (a session arms once it has filled it in).
nonisolated(unsafe) private let state: UnsafeMutablePointer<CrashRestoreState> = {
  let pointer = UnsafeMutablePointer<CrashRestoreState>.allocate(capacity: 1)
  pointer.initialize(to: CrashRestoreState())
  return pointer
}()
