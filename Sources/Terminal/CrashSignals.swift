import CNCursesW

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Puts the terminal back when the process crashes, then lets the crash go on as before.
///
/// A Swift trap (SIGILL/SIGTRAP) or a C crash leaves ncurses in the alternate screen with echo off.
/// The handler calls `endwin()`, puts back whatever handler was there (Swift's backtracer, or the
/// default), and returns: a fault re-executes and reaches that handler; a signal sent by `kill` or
/// `abort()` is raised again first, because it would not recur by itself.
enum CrashSignals {
  static let signals: [Int32] = [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS]

  /// Installs the handlers, remembering the previous ones.
  static func install() {
    for signal in signals {
      var action = sigaction()
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_SIGINFO
      #if canImport(Glibc)
        action.__sigaction_handler.sa_sigaction = crashHandler
      #else
        action.__sigaction_u.__sa_sigaction = crashHandler
      #endif
      sigaction(signal, &action, previousActions + Int(signal))
    }
  }

  /// Puts back the handlers that were there before `install()`.
  static func uninstall() {
    for signal in signals {
      sigaction(signal, previousActions + Int(signal), nil)
    }
  }
}

// Written only by `CrashSignals.install()`/`uninstall()`, which `TerminalSession` calls while it
// holds the one-session-at-a-time flag (`TerminalSession.active`); read by the signal handler,
// which runs only while those handlers are installed. Allocated once and never freed, so the
// handler never touches Swift reference counting. Indexed by signal number (all five are below 32).
nonisolated(unsafe) private let previousActions = UnsafeMutablePointer<sigaction>.allocate(
  capacity: 32)

private func crashHandler(
  _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?
) {
  endwin()
  sigaction(signal, previousActions + Int(signal), nil)
  // si_code <= 0 means the signal was sent (kill, raise, abort) rather than caused by an
  // instruction; it is blocked while this handler runs, so raising it now delivers it to the
  // restored handler as soon as we return.
  if let info, info.pointee.si_code <= 0 { raise(signal) }
}
