// Linux only, as `chronoscope record` is: interposing through LD_PRELOAD on glibc and ELF. On
// other systems the library is empty (README, "What builds where").
#if os(Linux)
  import CChronoscopePreload
  import ChronoscopeRecording
  import Glibc
  import Synchronization

  // Dispatch timer sources as repeating actions (or `after` ones, for a timer that fires once):
  // the schedule is recorded when the timer is both set and running (`dispatch_source_set_timer`
  // and `dispatch_resume`/`dispatch_activate`, in either order), each firing of its handler is a
  // run, and `dispatch_source_cancel` its cancel. Setting a running timer again ends its action
  // (a cancel) and schedules a new one. Other kinds of source pass through unrecorded.

  private let realSourceCreate = nextDefinition(
    "dispatch_source_create",
    as: (@convention(c) (OpaquePointer?, UInt, UInt, OpaquePointer?) -> OpaquePointer?).self)
  private let realSetTimer = nextDefinition(
    "dispatch_source_set_timer",
    as: (@convention(c) (OpaquePointer?, UInt64, UInt64, UInt64) -> Void).self)
  // The handler functions take a block or NULL: one spelling passes a block on, the other the
  // caller's argument as it came (an optional block in a C function's type is a type the runtime
  // cannot instantiate here).
  private let realSetHandler = nextDefinition(
    "dispatch_source_set_event_handler",
    as: (@convention(c) (OpaquePointer?, @escaping Block) -> Void).self)
  private let realSetHandlerAsGiven = nextDefinition(
    "dispatch_source_set_event_handler",
    as: (@convention(c) (OpaquePointer?, UnsafeRawPointer?) -> Void).self)
  private let realSetHandlerF = nextDefinition(
    "dispatch_source_set_event_handler_f",
    as: (@convention(c) (OpaquePointer?, UnsafeRawPointer?) -> Void).self)
  private let realResume = nextDefinition(
    "dispatch_resume", as: (@convention(c) (OpaquePointer?) -> Void).self)
  private let realActivate = nextDefinition(
    "dispatch_activate", as: (@convention(c) (OpaquePointer?) -> Void).self)
  private let realSourceCancel = nextDefinition(
    "dispatch_source_cancel", as: (@convention(c) (OpaquePointer?) -> Void).self)
  private let realGetContext = nextDefinition(
    "dispatch_get_context", as: (@convention(c) (OpaquePointer?) -> UnsafeMutableRawPointer?).self)

  private let timerType = UInt(bitPattern: dlsym(nil, "_dispatch_source_type_timer"))

  /// One timer source's recording state.
  private final class RecordedTimer: Sendable {
    struct State {
      /// The queue its handler runs on, announced when the timer is first scheduled: a timer
      /// that never is (the libraries' own) leaves no scheduler in the trace.
      var queue: UInt
      /// Set by `dispatch_source_set_timer`: the first firing's deadline on the host's monotonic
      /// clock, and the interval (nil for a timer that fires once). A timer set before it runs
      /// is due when it was set to be, however late it starts.
      var firstDeadline: Int64?
      var interval: Int64?
      var site: UInt = 0
      var caller: UInt = 0
      var isRunning = false
      var isCancelled = false
      /// The action of the timer as now set, and how many times it has fired.
      var action: ForeignWorkRecorder.Action?
      var runs: UInt32 = 0
    }

    let recorder: ForeignWorkRecorder
    let state: Mutex<State>

    init(recorder: ForeignWorkRecorder, queue: OpaquePointer) {
      self.recorder = recorder
      state = Mutex(State(queue: UInt(bitPattern: queue)))
    }

    /// Records a schedule when the timer is set and running and has none yet (under the lock).
    func scheduleIfArmed(_ state: inout State) {
      guard state.action == nil, state.isRunning, !state.isCancelled,
        let firstDeadline = state.firstDeadline
      else { return }
      let firstDelay = max(
        firstDeadline.subtractingReportingOverflow(monotonicNow()).partialValue, 0)
      let deadline = firstDelay == Int64.max ? nil : firstDeadline
      state.runs = 0
      guard let queue = OpaquePointer(bitPattern: state.queue) else { return }
      let scheduler = Preload.queues.id(of: queue, in: recorder)
      if let interval = state.interval {
        state.action = recorder.schedule(
          on: scheduler, .repeating, delay: interval, deadline: deadline,
          codeAddress: state.site, caller: state.caller)
      } else {
        state.action = recorder.schedule(
          on: scheduler, .after, delay: firstDelay, deadline: deadline,
          codeAddress: state.site, caller: state.caller)
      }
    }

    /// Records the end of the timer's action as now set (a cancel, or a new setting).
    func endAction(_ state: inout State) {
      guard let action = state.action else { return }
      recorder.cancel(action, started: state.runs > 0)
      state.action = nil
    }

    /// One firing: `handler` runs as a run of the timer's action (as ``runRecorded`` runs
    /// work: outside the recorder, so that what it schedules is recorded).
    ///
    /// The run's `begin` is stamped under the lock a cancel takes (``endAction(_:)``): a cancel
    /// that sees the run started is then stamped after its begin. Counting the run under the
    /// lock and stamping after it let a cancel in between say `started` before the begin.
    func fire(_ handler: () -> Void) {
      let outer = chronoscope_preload_suspend()
      let run = state.withLock { state -> (ForeignWorkRecorder.Action, UInt32, Int64)? in
        guard let action = state.action else { return nil }
        state.runs &+= 1
        return (action, state.runs, recorder.begin(action, run: state.runs))
      }
      guard let (action, number, start) = run else {
        chronoscope_preload_restore(outer)
        return handler()
      }
      handler()
      recorder.end(action, run: number, startedAt: start)
      chronoscope_preload_restore(outer)
    }
  }

  /// The timer sources the program made while recording, by address.
  private let timers = Mutex<[UInt: RecordedTimer]>([:])

  private func timer(_ source: OpaquePointer?) -> RecordedTimer? {
    guard let source, Preload.isRecording else { return nil }
    return timers.withLock { $0[UInt(bitPattern: source)] }
  }

  @_cdecl("dispatch_source_create")
  package func interposedSourceCreate(
    _ type: OpaquePointer?, _ handle: UInt, _ mask: UInt, _ queue: OpaquePointer?
  ) -> OpaquePointer? {
    let source = realSourceCreate(type, handle, mask, queue)
    guard let source, UInt(bitPattern: type) == timerType, let recorder = enterRecorder() else {
      return source
    }
    defer { chronoscope_preload_leave() }
    // A source without a queue runs its handler on the default global queue.
    guard let target = queue ?? dispatchGlobalQueue(0, 0) else { return source }
    timers.withLock {
      $0[UInt(bitPattern: source)] = RecordedTimer(recorder: recorder, queue: target)
    }
    return source
  }

  @_silgen_name("dispatch_get_global_queue")
  private func dispatchGlobalQueue(_ identifier: Int, _ flags: UInt) -> OpaquePointer?

  @_cdecl("dispatch_source_set_timer")
  package func interposedSetTimer(
    _ source: OpaquePointer?, _ start: UInt64, _ interval: UInt64, _ leeway: UInt64
  ) {
    if let timer = timer(source), chronoscope_preload_enter() != 0 {
      var caller: UInt = 0
      let site = chronoscope_preload_call_site(&caller)
      // A timer that no frame of the program's own code sets is the libraries' housekeeping
      // (Foundation keeps one on Dispatch's manager queue): not the program's work.
      if site == 0 {
        timers.withLock { _ = $0.removeValue(forKey: UInt(bitPattern: source)) }
      }
      timer.state.withLock { state in
        guard site != 0 else { return }
        timer.endAction(&state)
        state.firstDeadline =
          start == ~0
          ? nil : monotonicNow().addingReportingOverflow(nanoseconds(until: start)).partialValue
        state.interval =
          interval == ~0 || interval == 0 ? nil : Int64(min(interval, UInt64(Int64.max)))
        state.site = site
        state.caller = caller
        timer.scheduleIfArmed(&state)
      }
      chronoscope_preload_leave()
    }
    realSetTimer(source, start, interval, leeway)
  }

  @_cdecl("dispatch_source_set_event_handler")
  package func interposedSetHandler(_ source: OpaquePointer?, _ handler: UnsafeRawPointer?) {
    guard let handler, let timer = timer(source),
      DispatchBlocks.isRecordable(unsafeBitCast(handler, to: Block.self))
    else { return realSetHandlerAsGiven(source, handler) }
    let block = unsafeBitCast(handler, to: Block.self)
    realSetHandler(source, DispatchBlocks.wrap(block) { work in timer.fire(work) })
  }

  @_cdecl("dispatch_source_set_event_handler_f")
  package func interposedSetHandlerF(_ source: OpaquePointer?, _ handler: UnsafeRawPointer?) {
    guard let handler, let timer = timer(source) else { return realSetHandlerF(source, handler) }
    let function = unsafeBitCast(handler, to: WorkFunction.self)
    // A function handler takes the source's context, which Dispatch reads at each firing.
    realSetHandler(source) { timer.fire { function(realGetContext(source)) } }
  }

  private func start(_ object: OpaquePointer?) {
    guard let timer = timer(object), chronoscope_preload_enter() != 0 else { return }
    defer { chronoscope_preload_leave() }
    timer.state.withLock { state in
      state.isRunning = true
      timer.scheduleIfArmed(&state)
    }
  }

  @_cdecl("dispatch_resume")
  package func interposedResume(_ object: OpaquePointer?) {
    start(object)
    realResume(object)
  }

  @_cdecl("dispatch_activate")
  package func interposedActivate(_ object: OpaquePointer?) {
    start(object)
    realActivate(object)
  }

  @_cdecl("dispatch_source_cancel")
  package func interposedSourceCancel(_ source: OpaquePointer?) {
    if let timer = timer(source), chronoscope_preload_enter() != 0 {
      timer.state.withLock { state in
        timer.endAction(&state)
        state.isCancelled = true
      }
      timers.withLock { _ = $0.removeValue(forKey: UInt(bitPattern: source)) }
      chronoscope_preload_leave()
    }
    realSourceCancel(source)
  }
#endif
