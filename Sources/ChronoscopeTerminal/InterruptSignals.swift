import CChronoscopeNCursesW
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns Ctrl-C (`SIGINT`) and `SIGTERM` into a flag the session's owner checks between keys, so
/// that the program leaves through its normal path — terminal restored by
/// ``TerminalSession/stop()`` — and exits with the conventional 128 + signal (130, 143).
///
/// Installed before ncurses starts: ncurses then leaves these two signals alone (it only catches
/// signals whose action is the default). A signal the process ignored stays ignored. A second
/// one while the first is pending restores the terminal and ends the process by the default
/// action.
///
/// The handler also writes a byte to a pipe, ``wakeUpDescriptor``: a signal that lands while the
/// owner is not waiting (drawing, say) interrupts no read, so a wait that includes the pipe
/// still ends at once when it begins, instead of waiting for the next key.
enum InterruptSignals {
  static let signals: [Int32] = [SIGINT, SIGTERM]

  /// The signal received since ``install()``, or 0.
  static var received: Int32 { pending.load(ordering: .acquiring) }

  /// Installs the handlers where the default action is in place; remembers the previous ones.
  static func install() {
    pending.store(0, ordering: .releasing)
    drainWakeUps()
    for signal in signals {
      sigaction(signal, nil, interruptPrevious + Int(signal))
      guard isDefault(interruptPrevious[Int(signal)]) else { continue }
      var action = sigaction()
      sigemptyset(&action.sa_mask)
      action.sa_flags = 0  // no SA_RESTART: a key read waiting in poll returns at once
      #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = interruptHandler
      #else
        action.__sigaction_u.__sa_handler = interruptHandler
      #endif
      sigaction(signal, &action, nil)
    }
  }

  /// Puts back the actions that were there before ``install()``.
  static func uninstall() {
    for signal in signals {
      sigaction(signal, interruptPrevious + Int(signal), nil)
    }
  }

  /// The end of the pipe a wait polls beside the terminal: readable once a signal has arrived
  /// since ``install()``. -1 if the pipe could not be made (the wait then ends only on input).
  static var wakeUpDescriptor: Int32 { wakeUpPipe.read }

  /// The pipe, made once and kept for the process's life; both ends are non-blocking and closed
  /// on exec.
  private static let wakeUpPipe: (read: Int32, write: Int32) = {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return (-1, -1) }
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    wakeUpWriter.store(ends[1], ordering: .releasing)
    return (ends[0], ends[1])
  }()

  /// Empties the pipe of an earlier session's signal.
  private static func drainWakeUps() {
    let descriptor = wakeUpPipe.read
    guard descriptor >= 0 else { return }
    var bytes = [UInt8](repeating: 0, count: 64)
    while read(descriptor, &bytes, bytes.count) > 0 {}
  }

  private static func isDefault(_ action: sigaction) -> Bool {
    #if canImport(Glibc)
      action.__sigaction_handler.sa_handler == nil
    #else
      action.__sigaction_u.__sa_handler == nil
    #endif
  }
}

// Lock-free, so the handler may store into it.
private let pending = Atomic<Int32>(0)

// The wake-up pipe's write end, for the handler (which may not touch a lazily made global).
private let wakeUpWriter = Atomic<Int32>(-1)

// Written by `install()`/`uninstall()` while `TerminalSession.active` is held (one session at a
// time); never touched by the handler. Allocated once and never freed; indexed by signal number
// (both are below 32).
nonisolated(unsafe) private let interruptPrevious = UnsafeMutablePointer<sigaction>.allocate(
  capacity: 32)

private func interruptHandler(_ signal: Int32) {
  if pending.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing)
    .exchanged
  {
    // write(2) is async-signal-safe; errno is the interrupted code's, so it is kept.
    let saved = errno
    var byte: UInt8 = 1
    _ = write(wakeUpWriter.load(ordering: .acquiring), &byte, 1)
    errno = saved
    return
  }
  // Asked twice: the loop did not get to the first one. Restore the terminal here, as ncurses'
  // own handler would, and let the default action end the process.
  endwin()
  var action = sigaction()
  sigemptyset(&action.sa_mask)
  sigaction(signal, &action, nil)
  raise(signal)
}
