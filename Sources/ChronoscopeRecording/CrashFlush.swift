import ChronoscopeFatalSignals
import ChronoscopeTraceFormat
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes what open recorders hold when the process crashes, then lets the crash go on.
///
/// The moments before a crash are what a bug report needs, and the background writer flushes only
/// every ``TraceRecorder/flushInterval``. Each open recorder registers with ``FatalSignals`` (the
/// one crash-handler chain, which has no limit on recorders and runs on an alternate signal stack,
/// so a stack overflow is written too): on SIGSEGV, SIGBUS, SIGILL (Swift's traps), SIGABRT and
/// SIGTRAP it writes the events its threads have buffered, in time order, mark names included,
/// with the schedulers and call sites they use that no flush wrote yet, then a `crash` line naming the signal and the thread it hit, and the crash goes on to the
/// handler that was there before (Swift's backtracer, or the default).
///
/// The callback runs on `ChronoscopeFatalSignals`' worker thread while the crashed thread waits (a bounded
/// time), or in the handler itself in a forked child; either way the crashed thread may hold any
/// lock, `malloc`'s included. So it takes no lock that can block: it tries the writer's lock,
/// yielding then sleeping while another thread finishes a flush, for at most
/// ``RecorderCore/crashWaitNanoseconds``, and then writes what it can without it (see
/// ``LastResort``). It reads no clock but the host's (a virtual clock's `now` takes a lock the
/// crashing thread may hold: the crash line then carries the last time buffered), and it
/// allocates nothing — the encoder and the merge write within room reserved up front, and the
/// file is written with `write(2)`.
///
/// A thread gets its alternate signal stack when it first records; a stack overflow on a thread
/// that never recorded (nor opened a recorder) cannot run the handler.
enum CrashFlush {
  /// Registers `core` so that a crash writes its buffers.
  static func register(_ core: RecorderCore) -> FatalSignals.Registration {
    // The crash line names the thread the signal interrupted, by its id in traces.
    FatalSignals.tagThreads { UInt(ThreadIdentity.assignedID()) }
    return FatalSignals.register(context: Unmanaged.passUnretained(core).toOpaque()) {
      signal, context in
      Unmanaged<RecorderCore>.fromOpaque(context).takeUnretainedValue().writeAfterCrash(
        signal: FatalSignals.name(of: signal))
    }
  }

  /// Forgets `core`; called before it closes, so a crash never touches a closed recorder.
  static func unregister(_ registration: FatalSignals.Registration) {
    FatalSignals.unregister(registration)
  }
}

extension CrashFlush {
  /// The host's monotonic clock, in nanoseconds: async-signal-safe (`clock_gettime`).
  static func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
  }

  /// Between two tries of a lock on the crash path: a yield for the first hundred (a flush
  /// about to end), then a millisecond's sleep (a flush that takes long, a writer off the CPU).
  /// `nanosleep` is async-signal-safe.
  static func pause(after tries: Int) {
    if tries < 100 {
      sched_yield()
    } else {
      var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
      nanosleep(&pause, nil)
    }
  }
}

/// What the crash path writes when the writer's lock never comes free: a `dropped` line counting
/// the events the threads still buffer, and the `crash` line, after the last line the writer
/// wrote to the file it writes now — so a trace whose writer was stuck still says how it ended
/// and what it lost, rather than ending mid-way without a word.
///
/// The writer notes its file and last time after each flush (atomics); the lines are encoded in
/// room made up front. A flight recorder's memory has no file: nothing is written then.
///
/// Written without the writer's lock: the writer is stuck (it held the lock for longer than any
/// write waits), so its last line is whole; should it wake and write again, its lines follow.
// @unchecked Sendable: `encoder` is used only by the one crash path that won the recorder's
// `stopping` flag (see `RecorderCore.writeAfterCrash(signal:)`); the rest are atomics.
final class LastResort: @unchecked Sendable {
  private let descriptor = Atomic<Int32>(-1)
  /// The file's device and inode when noted: a descriptor the writer has closed since (a
  /// rotation part way through a flush) may be the program's own file by now.
  private let device = Atomic<UInt64>(0)
  private let inode = Atomic<UInt64>(0)
  private let lastTime = Atomic<Int64>(0)
  private var encoder = TraceEncoder()

  init() { encoder.bytes.reserveCapacity(512) }

  /// After a flush: the file written now (or -1) and the `t` of its last line.
  func note(descriptor: Int32, time: Int64) {
    var status = stat()
    let known = descriptor >= 0 && fstat(descriptor, &status) == 0
    self.descriptor.store(-1, ordering: .releasing)
    device.store(UInt64(status.st_dev), ordering: .relaxed)
    inode.store(UInt64(status.st_ino), ordering: .relaxed)
    lastTime.store(time, ordering: .relaxed)
    self.descriptor.store(known ? descriptor : -1, ordering: .releasing)
  }

  /// Writes the `dropped` line (when `buffered` is above 0) and the `crash` line, if the file
  /// noted is still open at its descriptor. Allocates nothing.
  func write(signal: StaticString, thread: UInt32, time: Int64, buffered: Int64) {
    let file = descriptor.load(ordering: .acquiring)
    guard file >= 0 else { return }
    var status = stat()
    guard fstat(file, &status) == 0, UInt64(status.st_dev) == device.load(ordering: .relaxed),
      UInt64(status.st_ino) == inode.load(ordering: .relaxed)
    else { return }
    let time = max(time, lastTime.load(ordering: .relaxed))
    encoder.bytes.removeAll(keepingCapacity: true)
    if buffered > 0 { encoder.dropped(time: time, count: buffered) }
    encoder.crash(time: time, signal: signal, thread: thread)
    _ = writeAll(file, encoder.bytes)
  }
}
