// Linux only, as `chronoscope record` is: interposing through LD_PRELOAD on glibc and ELF. On
// other systems the library is empty (README, "What builds where").
#if os(Linux)
  import CChronoscopePreload
  import ChronoscopeRecording
  import ChronoscopeTraceFormat
  import Synchronization

  // The main thread's own code (a top-level `main`, a test) blocking on a semaphore or a group
  // outside any main-queue job: no run shows it, yet the main thread is as stuck as in a long
  // main-queue job. These record such a wait as a `wait` line, with the action whose signal
  // ended it, for `check` to report (`main-thread-hang`). A wait inside a recorded run is that
  // run's time already; other threads' waits are not the main thread's hangs.

  private typealias WaitCall = @convention(c) (OpaquePointer?, UInt64) -> Int
  private let realSemaphoreWait = nextDefinition("dispatch_semaphore_wait", as: WaitCall.self)
  private let realGroupWait = nextDefinition("dispatch_group_wait", as: WaitCall.self)
  private let realSemaphoreSignal = nextDefinition(
    "dispatch_semaphore_signal", as: (@convention(c) (OpaquePointer?) -> Int).self)

  /// The semaphore the main thread waits on now (its address, 0 for none), and the action whose
  /// signal of it came last: a signal looks at the one address, and names its action only then.
  private let mainWaitsOn = Atomic<UInt>(0)
  private let mainSignalledBy = Atomic<UInt32>(0)

  /// Waits shorter than this are not written: a semaphore taken at once, or used as a lock.
  private let shortestWait: Int64 = 1_000_000

  /// Runs the program's wait `wait` on `object` at `address`, recording it when the main thread
  /// waits outside any recorded run for at least ``shortestWait``.
  @inline(__always)
  private func recordingMainWait(
    _ object: TraceEvent.WaitObject, at address: OpaquePointer?, _ wait: () -> Int
  ) -> Int {
    guard let address, chronoscope_preload_is_main_thread() != 0, Preload.isRecording,
      let recorder = Preload.recorder, chronoscope_preload_is_inside() == 0,
      recorder.currentAction == 0
    else { return wait() }
    let start = monotonicNow()
    if object == .semaphore {
      mainSignalledBy.store(0, ordering: .relaxed)
      mainWaitsOn.store(UInt(bitPattern: address), ordering: .releasing)
    }
    let result = wait()
    if object == .semaphore { mainWaitsOn.store(0, ordering: .relaxed) }
    let duration = monotonicNow() &- start
    guard duration >= shortestWait, let recorder = enterRecorder() else { return result }
    defer { chronoscope_preload_leave() }
    // Taken after the wait, and only for a long one: the interposer's frame is the same.
    var caller: UInt = 0
    let site = chronoscope_preload_call_site(&caller)
    let by = result == 0 && object == .semaphore ? mainSignalledBy.load(ordering: .acquiring) : 0
    recorder.waited(
      duration, on: object, scheduler: Preload.queues.mainQueueID(in: recorder), by: by,
      codeAddress: site, caller: caller)
    return result
  }

  @_cdecl("dispatch_semaphore_wait")
  package func interposedSemaphoreWait(_ semaphore: OpaquePointer?, _ timeout: UInt64) -> Int {
    recordingMainWait(.semaphore, at: semaphore) { realSemaphoreWait(semaphore, timeout) }
  }

  @_cdecl("dispatch_group_wait")
  package func interposedGroupWait(_ group: OpaquePointer?, _ timeout: UInt64) -> Int {
    recordingMainWait(.group, at: group) { realGroupWait(group, timeout) }
  }

  @_cdecl("dispatch_semaphore_signal")
  package func interposedSemaphoreSignal(_ semaphore: OpaquePointer?) -> Int {
    if let semaphore, mainWaitsOn.load(ordering: .relaxed) == UInt(bitPattern: semaphore),
      let recorder = Preload.recorder
    {
      mainSignalledBy.store(recorder.currentAction, ordering: .releasing)
    }
    return realSemaphoreSignal(semaphore)
  }
#endif
