// Linux only, as `chronoscope record` is: interposing through LD_PRELOAD on glibc and ELF. On
// other systems the library is empty (README, "What builds where").
#if os(Linux)
  import CChronoscopePreload
  import ChronoscopeRecording
  import ChronoscopeTraceFormat
  import Glibc

  // libdispatch's entry points as the program calls them across the shared-library boundary (the
  // Swift `Dispatch` overlay, Foundation and the concurrency runtime import them; see
  // ../shared/PRELOAD-NOTES.md). Each records, then calls the real function with the same
  // arguments, the work wrapped so that its run is recorded where and when Dispatch runs it.

  package typealias Block = @convention(block) () -> Void
  package typealias WorkFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void

  private typealias QueueBlockCall = @convention(c) (OpaquePointer?, @escaping Block) -> Void
  private typealias QueueFunctionCall =
    @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, WorkFunction?) -> Void

  private let realAsync = nextDefinition("dispatch_async", as: QueueBlockCall.self)
  private let realAsyncF = nextDefinition("dispatch_async_f", as: QueueFunctionCall.self)
  private let realSync = nextDefinition("dispatch_sync", as: QueueBlockCall.self)
  private let realSyncF = nextDefinition("dispatch_sync_f", as: QueueFunctionCall.self)
  private let realBarrierAsync = nextDefinition("dispatch_barrier_async", as: QueueBlockCall.self)
  private let realBarrierAsyncF = nextDefinition(
    "dispatch_barrier_async_f", as: QueueFunctionCall.self)
  private let realBarrierSync = nextDefinition("dispatch_barrier_sync", as: QueueBlockCall.self)
  private let realBarrierSyncF = nextDefinition(
    "dispatch_barrier_sync_f", as: QueueFunctionCall.self)
  private let realAfter = nextDefinition(
    "dispatch_after", as: (@convention(c) (UInt64, OpaquePointer?, @escaping Block) -> Void).self)
  private let realAfterF = nextDefinition(
    "dispatch_after_f",
    as: (@convention(c) (UInt64, OpaquePointer?, UnsafeMutableRawPointer?, WorkFunction?) -> Void)
      .self)
  private let realGroupAsync = nextDefinition(
    "dispatch_group_async",
    as: (@convention(c) (OpaquePointer?, OpaquePointer?, @escaping Block) -> Void).self
  )
  private let realGroupAsyncF = nextDefinition(
    "dispatch_group_async_f",
    as: (@convention(c) (
      OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?, WorkFunction?
    ) -> Void).self)
  private let realGroupNotify = nextDefinition(
    "dispatch_group_notify",
    as: (@convention(c) (OpaquePointer?, OpaquePointer?, @escaping Block) -> Void).self)
  private let realGroupNotifyF = nextDefinition(
    "dispatch_group_notify_f",
    as: (@convention(c) (
      OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?, WorkFunction?
    ) -> Void).self)
  private let realTime = nextDefinition(
    "dispatch_time", as: (@convention(c) (UInt64, Int64) -> UInt64).self)

  // MARK: - Recording one schedule

  /// Records a schedule of work on `queue` from the calling thread, if recording is on and the
  /// thread is not inside the recorder; returns the recorder and the action for the work's runs.
  ///
  /// On success the thread stays inside the recorder until the interposer has made the real call
  /// (it calls `chronoscope_preload_leave()` then): libdispatch calls its own entry points too
  /// (`dispatch_after` for a time already past calls `dispatch_async`), and those calls are part
  /// of the one the program made, not work of their own.
  @inline(__always)
  private func recordSchedule(
    on queue: OpaquePointer?, _ mode: TraceEvent.ScheduleMode, after when: UInt64? = nil,
    task: (UnsafeMutableRawPointer?, WorkFunction?)? = nil
  ) -> (ForeignWorkRecorder, ForeignWorkRecorder.Action)? {
    // The deadline is read first: it is when the program asked.
    let delay = when.map(nanoseconds(until:)) ?? 0
    let deadline = when == nil || delay == Int64.max ? nil : monotonicNow() &+ delay
    guard let queue, let recorder = enterRecorder() else { return nil }
    var caller: UInt = 0
    let site = chronoscope_preload_call_site(&caller)
    var taskID: UInt64?
    var taskName: String?
    if let (context, function) = task, let context, let function,
      chronoscope_preload_is_concurrency_runtime(
        UInt(bitPattern: unsafeBitCast(function, to: Int.self)))
        != 0
    {
      // The runtime hands Dispatch a job as the context of one of its own functions.
      let id = jobTaskID(UnsafeRawPointer(context))
      taskID = id == 0 ? nil : id
      if id != 0 { taskName = name(ofTaskJob: UnsafeRawPointer(context), id: id) }
    }
    let action = recorder.schedule(
      on: Preload.queues.id(of: queue, in: recorder), mode, delay: delay, deadline: deadline,
      codeAddress: site, caller: caller, task: taskID, taskName: taskName)
    return (recorder, action)
  }

  /// The name of the task `job` is (`Task(name:)`), read before the job goes to Dispatch; nil
  /// when it has none, when it was written lately (the trace has it from the task's first line),
  /// or when this runtime's layout is not known (see `chronoscope_preload_task_name`).
  @inline(__always)
  private func name(ofTaskJob job: UnsafeRawPointer, id: UInt64) -> String? {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
      guard let base = buffer.baseAddress,
        chronoscope_preload_task_name(job, base, buffer.count) > 0,
        chronoscope_preload_task_named_lately(id) == 0
      else { return nil }
      return String(cString: base)
    }
  }

  /// Runs the program's `work` as a run of `action`: outside the recorder, even when Dispatch
  /// runs it inside the interposed call (a sync's block), so that what it schedules is recorded.
  @inline(__always)
  func runRecorded(
    _ recorder: ForeignWorkRecorder, _ action: ForeignWorkRecorder.Action, run: UInt32 = 1,
    _ work: () -> Void
  ) {
    let outer = chronoscope_preload_suspend()
    let start = recorder.begin(action, run: run)
    work()
    recorder.end(action, run: run, startedAt: start)
    chronoscope_preload_restore(outer)
  }

  /// Runs the work of a record from `chronoscope_preload_take_work`, passed to Dispatch as its
  /// context, as a run of its action; the record goes back to the pool before the work runs, so
  /// work that schedules more reuses it at once.
  private let runRecordedWork: WorkFunction = { raw in
    guard let raw else { return }
    let work = raw.assumingMemoryBound(to: chronoscope_recorded_work.self)
    let (context, function) = (work.pointee.context, work.pointee.function)
    let action = ForeignWorkRecorder.Action(id: work.pointee.action, thread: work.pointee.thread)
    chronoscope_preload_give_work(work)
    // Set before main and never cleared: a record is only taken while it is there.
    guard let recorder = Preload.recorder else { return function?(context) ?? () }
    runRecorded(recorder, action) { function?(context) }
  }

  /// A plain block's work as a (context, function) pair for the `_f` form of the call the program
  /// made: one object to allocate, where a block around the block took three. Dispatch does the
  /// same with a plain block (a copy it runs and releases); a block made by
  /// `dispatch_block_create` keeps its block form (see `DispatchBlocks`), so nil.
  @inline(__always)
  private func recordedAsFunction(
    _ block: @escaping Block, _ schedule: (ForeignWorkRecorder, ForeignWorkRecorder.Action)
  ) -> (UnsafeMutableRawPointer?, WorkFunction)? {
    guard !DispatchBlocks.isMadeByDispatch(block),
      let copy = chronoscope_preload_copy_block(unsafeBitCast(block, to: UnsafeRawPointer.self))
    else { return nil }
    return recorded(copy, chronoscope_preload_run_block, schedule)
  }

  /// The (context, function) to hand Dispatch for recorded work: a record of it from the pools
  /// (`chronoscope_preload_take_work`) with ``runRecordedWork``; the work as it came, unrecorded,
  /// when the heap has no room for a record.
  @inline(__always)
  private func recorded(
    _ context: UnsafeMutableRawPointer?, _ function: WorkFunction,
    _ schedule: (ForeignWorkRecorder, ForeignWorkRecorder.Action)
  ) -> (UnsafeMutableRawPointer?, WorkFunction) {
    guard let work = chronoscope_preload_take_work() else { return (context, function) }
    work.pointee.context = context
    work.pointee.function = function
    work.pointee.action = schedule.1.id
    work.pointee.thread = schedule.1.thread
    return (UnsafeMutableRawPointer(work), runRecordedWork)
  }

  /// How long from now a `dispatch_time_t` is, in nanoseconds: 0 for now or the past, the longest
  /// the trace holds for "forever".
  ///
  /// libdispatch encodes three clocks: the host's uptime (`CLOCK_MONOTONIC` on Linux) as a plain
  /// positive count; its monotonic time, which counts on through suspension (`CLOCK_BOOTTIME`;
  /// Swift's `ContinuousClock`), with bit 63 set; and the wall clock as a negative count, bits 63
  /// and 62 set.
  func nanoseconds(until when: UInt64) -> Int64 {
    if when == ~0 { return Int64.max }
    let now: UInt64
    let value: UInt64
    if when & (1 << 63) == 0 {
      now = realTime(0, 0)
      value = when
    } else if when & (1 << 62) == 0 {
      var time = timespec()
      clock_gettime(CLOCK_BOOTTIME, &time)
      now = UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
      value = when & ~(1 << 63)
    } else {
      now = 0 &- realTime(~1, 0)
      value = 0 &- when
    }
    let delay = Int64(bitPattern: value).subtractingReportingOverflow(Int64(bitPattern: now))
    return delay.overflow ? Int64.max : max(delay.partialValue, 0)
  }

  // The same signature as ChronoscopeRecording's declaration of this symbol (TaskIdentity.swift): under -O the
  // optimizer links both into one module's SIL, and two types for one name crash the compiler
  // ("SILFunction type mismatch for 'swift_task_getJobTaskId'", `swift test -c release`).
  @_silgen_name("swift_task_getJobTaskId")
  private func jobTaskID(_ job: UnsafeRawPointer) -> UInt64

  // MARK: - Interposers

  @_cdecl("dispatch_async")
  package func interposedAsync(_ queue: OpaquePointer?, _ block: @escaping Block) {
    guard DispatchBlocks.isRecordable(block),
      let (recorder, action) = recordSchedule(on: queue, .async)
    else { return realAsync(queue, block) }
    defer { chronoscope_preload_leave() }
    if let (context, function) = recordedAsFunction(block, (recorder, action)) {
      return realAsyncF(queue, context, function)
    }
    realAsync(queue, DispatchBlocks.recorded(block, recorder, action))
  }

  @_cdecl("dispatch_async_f")
  package func interposedAsyncF(
    _ queue: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ function: WorkFunction?
  ) {
    guard let function, let schedule = recordSchedule(on: queue, .async, task: (context, function))
    else { return realAsyncF(queue, context, function) }
    defer { chronoscope_preload_leave() }
    let (context, wrapped) = recorded(context, function, schedule)
    realAsyncF(queue, context, wrapped)
  }

  @_cdecl("dispatch_barrier_async")
  package func interposedBarrierAsync(_ queue: OpaquePointer?, _ block: @escaping Block) {
    guard DispatchBlocks.isRecordable(block),
      let (recorder, action) = recordSchedule(on: queue, .async)
    else { return realBarrierAsync(queue, block) }
    defer { chronoscope_preload_leave() }
    if let (context, function) = recordedAsFunction(block, (recorder, action)) {
      return realBarrierAsyncF(queue, context, function)
    }
    realBarrierAsync(queue, DispatchBlocks.recorded(block, recorder, action))
  }

  @_cdecl("dispatch_barrier_async_f")
  package func interposedBarrierAsyncF(
    _ queue: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ function: WorkFunction?
  ) {
    guard let function, let schedule = recordSchedule(on: queue, .async) else {
      return realBarrierAsyncF(queue, context, function)
    }
    defer { chronoscope_preload_leave() }
    let (context, wrapped) = recorded(context, function, schedule)
    realBarrierAsyncF(queue, context, wrapped)
  }

  @_cdecl("dispatch_sync")
  package func interposedSync(_ queue: OpaquePointer?, _ block: @escaping Block) {
    guard DispatchBlocks.isRecordable(block),
      let (recorder, action) = recordSchedule(on: queue, .sync)
    else { return realSync(queue, block) }
    defer { chronoscope_preload_leave() }
    realSync(queue, DispatchBlocks.recorded(block, recorder, action))
  }

  @_cdecl("dispatch_sync_f")
  package func interposedSyncF(
    _ queue: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ function: WorkFunction?
  ) {
    guard let function, let schedule = recordSchedule(on: queue, .sync) else {
      return realSyncF(queue, context, function)
    }
    defer { chronoscope_preload_leave() }
    let (context, wrapped) = recorded(context, function, schedule)
    realSyncF(queue, context, wrapped)
  }

  @_cdecl("dispatch_barrier_sync")
  package func interposedBarrierSync(_ queue: OpaquePointer?, _ block: @escaping Block) {
    guard DispatchBlocks.isRecordable(block),
      let (recorder, action) = recordSchedule(on: queue, .sync)
    else { return realBarrierSync(queue, block) }
    defer { chronoscope_preload_leave() }
    realBarrierSync(queue, DispatchBlocks.recorded(block, recorder, action))
  }

  @_cdecl("dispatch_barrier_sync_f")
  package func interposedBarrierSyncF(
    _ queue: OpaquePointer?, _ context: UnsafeMutableRawPointer?, _ function: WorkFunction?
  ) {
    guard let function, let schedule = recordSchedule(on: queue, .sync) else {
      return realBarrierSyncF(queue, context, function)
    }
    defer { chronoscope_preload_leave() }
    let (context, wrapped) = recorded(context, function, schedule)
    realBarrierSyncF(queue, context, wrapped)
  }

  @_cdecl("dispatch_after")
  package func interposedAfter(_ when: UInt64, _ queue: OpaquePointer?, _ block: @escaping Block) {
    guard DispatchBlocks.isRecordable(block),
      let (recorder, action) = recordSchedule(on: queue, .after, after: when)
    else { return realAfter(when, queue, block) }
    defer { chronoscope_preload_leave() }
    if let (context, function) = recordedAsFunction(block, (recorder, action)) {
      return realAfterF(when, queue, context, function)
    }
    realAfter(when, queue, DispatchBlocks.recorded(block, recorder, action))
  }

  @_cdecl("dispatch_after_f")
  package func interposedAfterF(
    _ when: UInt64, _ queue: OpaquePointer?, _ context: UnsafeMutableRawPointer?,
    _ function: WorkFunction?
  ) {
    guard let function,
      let schedule = recordSchedule(
        on: queue, .after, after: when, task: (context, function))
    else { return realAfterF(when, queue, context, function) }
    defer { chronoscope_preload_leave() }
    let (context, wrapped) = recorded(context, function, schedule)
    realAfterF(when, queue, context, wrapped)
  }

  @_cdecl("dispatch_group_async")
  package func interposedGroupAsync(
    _ group: OpaquePointer?, _ queue: OpaquePointer?, _ block: @escaping Block
  ) {
    guard DispatchBlocks.isRecordable(block),
      let (recorder, action) = recordSchedule(on: queue, .async)
    else { return realGroupAsync(group, queue, block) }
    defer { chronoscope_preload_leave() }
    if let (context, function) = recordedAsFunction(block, (recorder, action)) {
      return realGroupAsyncF(group, queue, context, function)
    }
    realGroupAsync(group, queue, DispatchBlocks.recorded(block, recorder, action))
  }

  @_cdecl("dispatch_group_async_f")
  package func interposedGroupAsyncF(
    _ group: OpaquePointer?, _ queue: OpaquePointer?, _ context: UnsafeMutableRawPointer?,
    _ function: WorkFunction?
  ) {
    guard let function, let schedule = recordSchedule(on: queue, .async) else {
      return realGroupAsyncF(group, queue, context, function)
    }
    defer { chronoscope_preload_leave() }
    let (context, wrapped) = recorded(context, function, schedule)
    realGroupAsyncF(group, queue, context, wrapped)
  }

  // A group's notify is due when the group empties, which only Dispatch knows: it is recorded
  // when Dispatch runs it, as a schedule and its run at once, its parent the work that asked.

  @_cdecl("dispatch_group_notify")
  package func interposedGroupNotify(
    _ group: OpaquePointer?, _ queue: OpaquePointer?, _ block: @escaping Block
  ) {
    guard let queue, DispatchBlocks.isRecordable(block), let asked = notification(on: queue) else {
      return realGroupNotify(group, queue, block)
    }
    defer { chronoscope_preload_leave() }
    // The schedule is recorded when the notify runs, just before its run.
    realGroupNotify(
      group, queue,
      DispatchBlocks.wrap(block) { work in
        let (recorder, action) = asked()
        runRecorded(recorder, action, work)
      })
  }

  @_cdecl("dispatch_group_notify_f")
  package func interposedGroupNotifyF(
    _ group: OpaquePointer?, _ queue: OpaquePointer?, _ context: UnsafeMutableRawPointer?,
    _ function: WorkFunction?
  ) {
    guard let queue, let function, let asked = notification(on: queue) else {
      return realGroupNotifyF(group, queue, context, function)
    }
    defer { chronoscope_preload_leave() }
    // A block around the function: its context is the caller's, passed through untouched.
    let block: Block = {
      let (recorder, action) = asked()
      runRecorded(recorder, action) { function(context) }
    }
    realGroupNotify(group, queue, block)
  }

  /// What a notify asked from the calling thread: a closure that records its schedule when it is
  /// due, with the call site and parent of the asking. The thread stays inside the recorder, as
  /// after ``recordSchedule(on:_:delay:task:)``.
  private func notification(on queue: OpaquePointer)
    -> (() -> (ForeignWorkRecorder, ForeignWorkRecorder.Action))?
  {
    guard let recorder = enterRecorder() else { return nil }
    var caller: UInt = 0
    let site = chronoscope_preload_call_site(&caller)
    let scheduler = Preload.queues.id(of: queue, in: recorder)
    let parent = recorder.currentAction
    return {
      (
        recorder,
        recorder.schedule(
          on: scheduler, .async, codeAddress: site, caller: caller, parent: parent)
      )
    }
  }
#endif
