import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes what open recorders hold when the process crashes, then lets the crash go on.
///
/// The moments before a crash are what a bug report needs, and the background writer flushes only
/// every ``TraceRecorder/flushInterval``. On SIGSEGV, SIGBUS, SIGILL (Swift's traps), SIGABRT and
/// SIGTRAP the handler writes, for each open recorder, the events its threads have buffered, in
/// time order, then a `crash` line naming the signal and the thread it hit. It then puts back the
/// handler that was there before (Swift's backtracer, or the default) and returns: a fault
/// re-executes and reaches that handler; a signal sent by `kill`, `raise` or `abort()` is raised
/// again first, as it would not recur by itself.
///
/// What the handler does is meant to be safe in a signal handler: it takes no lock that can block
/// (it only tries the writer's lock, yielding while another thread finishes a flush, and gives up
/// after a while, as when the crash hit inside the writer), and it allocates nothing — the
/// encoder writes within capacity reserved up front, and the file is written with `write(2)`.
enum CrashFlush {
  static let signals: [(number: Int32, name: StaticString)] = [
    (SIGSEGV, "SIGSEGV"), (SIGBUS, "SIGBUS"), (SIGILL, "SIGILL"), (SIGABRT, "SIGABRT"),
    (SIGTRAP, "SIGTRAP"),
  ]

  /// The most recorders open at once whose buffers a crash writes; more are recorded as usual
  /// but not flushed on a crash.
  static let capacity = 16

  private static let installed = Atomic<Bool>(false)

  /// Registers `core` so that a crash writes its buffers, installing the handlers the first time.
  static func register(_ core: RecorderCore) {
    if !installed.exchange(true, ordering: .acquiringAndReleasing) { install() }
    let address = UInt(bitPattern: Unmanaged.passUnretained(core).toOpaque())
    for slot in 0..<capacity {
      if (slots + slot).pointee.compareExchange(
        expected: 0, desired: address, ordering: .acquiringAndReleasing
      ).exchanged {
        return
      }
    }
  }

  /// Forgets `core`; called before it closes, so a crash never touches a closed recorder.
  static func unregister(_ core: RecorderCore) {
    let address = UInt(bitPattern: Unmanaged.passUnretained(core).toOpaque())
    for slot in 0..<capacity {
      _ = (slots + slot).pointee.compareExchange(
        expected: address, desired: 0, ordering: .acquiringAndReleasing)
    }
  }

  private static func install() {
    for (signal, _) in signals {
      var action = sigaction()
      sigemptyset(&action.sa_mask)
      action.sa_flags = SA_SIGINFO
      #if canImport(Glibc)
        action.__sigaction_handler.sa_sigaction = crashFlushHandler
      #else
        action.__sigaction_u.__sa_sigaction = crashFlushHandler
      #endif
      sigaction(signal, &action, previousActions + Int(signal))
    }
  }

  /// Writes every registered recorder's buffers after `signal`.
  fileprivate static func flushAll(after signal: Int32) {
    guard let name = signals.first(where: { $0.number == signal })?.name else { return }
    for slot in 0..<capacity {
      let address = (slots + slot).pointee.load(ordering: .acquiring)
      guard address != 0, let pointer = UnsafeRawPointer(bitPattern: address) else { continue }
      Unmanaged<RecorderCore>.fromOpaque(pointer).takeUnretainedValue().writeAfterCrash(
        signal: name)
    }
  }
}

// The registered recorders' addresses, in atomics the handler reads: allocated once and never
// freed, so the handler touches no reference counting to reach them.
nonisolated(unsafe) private let slots: UnsafeMutablePointer<Atomic<UInt>> = {
  let pointer = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: CrashFlush.capacity)
  for index in 0..<CrashFlush.capacity { (pointer + index).initialize(to: Atomic(0)) }
  return pointer
}()

// Written once by `install()`, before any handler can run; read by the handler. Indexed by signal
// number (all five are below 32).
nonisolated(unsafe) private let previousActions = UnsafeMutablePointer<sigaction>.allocate(
  capacity: 32)

private func crashFlushHandler(
  _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?
) {
  CrashFlush.flushAll(after: signal)
  sigaction(signal, previousActions + Int(signal), nil)
  // si_code <= 0: sent (kill, raise, abort), not caused by an instruction. It is blocked while
  // this handler runs, so raising it again delivers it to the restored handler when we return.
  if let info, info.pointee.si_code <= 0 { raise(signal) }
}
