import FatalSignals

/// Writes what open recorders hold when the process crashes, then lets the crash go on.
///
/// The moments before a crash are what a bug report needs, and the background writer flushes only
/// every ``TraceRecorder/flushInterval``. Each open recorder registers with ``FatalSignals`` (the
/// one crash-handler chain, which has no limit on recorders and runs on an alternate signal stack,
/// so a stack overflow is written too): on SIGSEGV, SIGBUS, SIGILL (Swift's traps), SIGABRT and
/// SIGTRAP it writes the events its threads have buffered, in time order, mark names included,
/// then a `crash` line naming the signal and the thread it hit, and the crash goes on to the
/// handler that was there before (Swift's backtracer, or the default).
///
/// What the callback does is meant to be safe in a signal handler: it takes no lock that can block
/// (it only tries the writer's lock, yielding while another thread finishes a flush, and gives up
/// after a while, as when the crash hit inside the writer), it reads no clock but the host's (a
/// virtual clock's `now` takes a lock the crashing thread may hold: the crash line then carries
/// the last time buffered), and it allocates nothing — the encoder writes within capacity
/// reserved up front, and the file is written with `write(2)`.
///
/// A thread gets its alternate signal stack when it first records; a stack overflow on a thread
/// that never recorded (nor opened a recorder) cannot run the handler.
enum CrashFlush {
  /// Registers `core` so that a crash writes its buffers.
  static func register(_ core: RecorderCore) -> FatalSignals.Registration {
    FatalSignals.register(context: Unmanaged.passUnretained(core).toOpaque()) { signal, context in
      Unmanaged<RecorderCore>.fromOpaque(context).takeUnretainedValue().writeAfterCrash(
        signal: FatalSignals.name(of: signal))
    }
  }

  /// Forgets `core`; called before it closes, so a crash never touches a closed recorder.
  static func unregister(_ registration: FatalSignals.Registration) {
    FatalSignals.unregister(registration)
  }
}
