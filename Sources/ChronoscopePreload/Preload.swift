// Linux only, as `chronoscope record` is: interposing through LD_PRELOAD on glibc and ELF. On
// other systems the library is empty (README, "What builds where").
#if os(Linux)
  import CChronoscopePreload
  import ChronoscopeFatalSignals
  import ChronoscopeRecording
  import ChronoscopeScheduling
  import ChronoscopeTraceFormat
  import Foundation
  import Glibc
  import Synchronization

  /// The library the dynamic linker preloads into a program that `chronoscope record` runs (see
  /// docs/RecordAnyProgram.md). Its constructor opens the recorder the `CHRONOSCOPE_TRACE*`
  /// variables ask for; from then on the interposers of libdispatch's entry points (in this
  /// module's other files) record each schedule, run and cancel, and pass every call on to
  /// libdispatch unchanged.
  ///
  /// In a process that is not a Swift or Dispatch program (a shell the program starts), or one
  /// where the recorder cannot start, the interposers only pass calls on.
  enum Preload {
    /// The recorder, once started; nil while inert. Written once, by the constructor, before the
    /// program's main runs and before any thread of the program exists.
    nonisolated(unsafe) static var recorder: ForeignWorkRecorder?
    /// Whether this process records: the recorder started, and this is not a forked child.
    static var isRecording: Bool { recorder != nil && chronoscope_preload_is_disabled() == 0 }
    /// The queues seen so far, by address.
    static let queues = QueueRegistry()
  }

  /// Called once by the constructor in CChronoscopePreload, before the program's main.
  @_cdecl("chronoscope_preload_start")
  package func chronoscopePreloadStart() {
    guard chronoscope_preload_main_program_uses_dispatch() != 0 else { return }
    // Whatever the recorder's own start schedules is its own work, not the program's.
    guard chronoscope_preload_enter() != 0 else { return }
    defer { chronoscope_preload_leave() }
    chronoscope_preload_note_system_modules()
    var environment = ProcessInfo.processInfo.environment
    let variable = RecordingSchedulerFactory.environmentVariable
    guard let template = environment[variable], !template.isEmpty else { return }
    // Each image of each process its own file (see `TraceProcessNames`): a child of a recorded
    // process, or what a recorded process `exec`ed into, finds the name of that one inherited.
    let image = TraceProcessNames.image(
      pid: getpid(), inherited: environment[RecordingSchedulerFactory.preloadedVariable])
    // A device, FIFO or socket is written in place by every process, as it always was.
    let inPlace = !template.contains("%p") && TraceReader.streamKind(of: template) != nil
    environment[variable] = TraceProcessNames.path(
      template, image: image.name, isFirst: image.isFirst || inPlace)
    environment[RecordingSchedulerFactory.preloadedVariable] = nil
    guard
      let recorder = RecordingSchedulerFactory.recorderIfRequested(
        environment: environment, metadata: metadata())
    else { return }
    Preload.recorder = ForeignWorkRecorder(recorder: recorder, describeCode: describe(address:))
    if chronoscope_preload_task_names_unknown() != 0 {
      // Said once, where the program's own output goes, as the library's other failures are.
      let message =
        "chronoscope: process \(getpid()): the names of Swift tasks are not recorded: this Swift runtime does not keep them as the one the preload library reads (Swift 6.3 on x86_64) does\n"
      _ = message.withCString { write(2, $0, strlen($0)) }
    }
    // The app may open a recorder from the same variables (`recordingIfRequested`): this
    // process's trace is taken. Before main, with no other thread yet, setenv is safe.
    setenv(RecordingSchedulerFactory.preloadedVariable, image.name, 1)
    chronoscope_preload_note_owner()
    // Ctrl-C or `kill` ends a hung program: what the recorder holds then, and a line saying what
    // stopped it, are written first (the program still ends by the signal).
    FatalSignals.catchStops()
  }

  /// Called by the `exec` family's interposers (CChronoscopePreload) in the process that opened
  /// the recorder, before the real call: `exec` runs no exit handlers, so what is buffered is
  /// written now and the trace ends with its end marker, in the calling thread.
  @_cdecl("chronoscope_preload_before_exec")
  package func chronoscopePreloadBeforeExec() {
    guard Preload.isRecording, chronoscope_preload_enter() != 0 else { return }
    defer { chronoscope_preload_leave() }
    ExecHandoff.writeBeforeExec()
  }

  /// Called by the `exec` family's interposers when the call failed: the recording goes on.
  @_cdecl("chronoscope_preload_after_failed_exec")
  package func chronoscopePreloadAfterFailedExec() {
    guard Preload.isRecording, chronoscope_preload_enter() != 0 else { return }
    defer { chronoscope_preload_leave() }
    ExecHandoff.resumeAfterFailedExec()
  }

  /// The header's metadata: who recorded, and the `chronoscope record` run the trace belongs to,
  /// which tells its traces from other runs' in the same folder.
  private func metadata() -> [String: String] {
    var metadata = ["recorded-by": "chronoscope record"]
    if let session = getenv(RecordSession.variable).map({ String(cString: $0) }), !session.isEmpty {
      metadata[RecordSession.metadataKey] = session
    }
    return metadata
  }

  /// The module, offset and build id of a code address, from the dynamic linker's list.
  private func describe(address: UInt) -> CodeLocation? {
    var path = [CChar](repeating: 0, count: 4096)
    var buildID = [CChar](repeating: 0, count: 129)
    var offset: UInt64 = 0
    let found = chronoscope_preload_describe(
      address, &path, path.count, &offset, &buildID, buildID.count)
    guard found != 0 else { return nil }
    return CodeLocation(
      module: String(
        decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
      offset: offset,
      buildID: String(
        decoding: buildID.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
  }

  /// The recorder, when the calling thread may record now: recording is on and the thread is not
  /// inside the recorder already (its own calls, or an interposer's, pass straight through). A
  /// caller that gets one calls `chronoscope_preload_leave()` when done.
  @inline(__always)
  func enterRecorder() -> ForeignWorkRecorder? {
    guard let recorder = Preload.recorder, chronoscope_preload_enter() != 0 else { return nil }
    return recorder
  }

  /// Looks up a C function the next library in the search order (libdispatch) defines, or stops
  /// the process with a message naming it: an interposer whose real function is missing cannot
  /// pass its call on, and a silent drop would change what the program does.
  func nextDefinition<Function>(_ name: String, as type: Function.Type) -> Function {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -1), name) else {
      let message = "chronoscope: the preload library cannot find \(name)\n"
      _ = message.withCString { write(2, $0, strlen($0)) }
      abort()
    }
    return unsafeBitCast(symbol, to: type)
  }

  /// The queues the program has used, with their ids in the trace.
  ///
  /// A queue made after the recorder started is announced when it is made, with its kind from
  /// the attributes it was made with; one made before (the main queue, the global queues, the
  /// runtime's) when it is first used, its kind from what libdispatch says of it. A queue's
  /// address may be reused for a new queue once the old one is gone: making a queue announces it
  /// afresh, and the generation tells the threads' caches to forget what they knew.
  final class QueueRegistry: Sendable {
    private let table = Mutex<[UInt: UInt32]>([:])
    /// Attribute values that make a concurrent queue: `DISPATCH_QUEUE_CONCURRENT` and what the
    /// attribute functions made from it.
    private let concurrentAttributes = Mutex<Set<UInt>>([])
    private let generation = Atomic<UInt32>(1)
    private let mainQueue = UInt(bitPattern: dlsym(nil, "_dispatch_main_q"))

    init() {
      if let concurrent = dlsym(nil, "_dispatch_queue_attr_concurrent") {
        concurrentAttributes.withLock { _ = $0.insert(UInt(bitPattern: concurrent)) }
      }
    }

    /// The trace id of `queue`, announcing it on first use.
    @inline(__always)
    func id(of queue: OpaquePointer, in recorder: ForeignWorkRecorder) -> UInt32 {
      let address = UInt(bitPattern: queue)
      let current = generation.load(ordering: .relaxed)
      let cached = chronoscope_preload_cached_queue(address, current)
      if cached != 0 { return cached }
      let id = table.withLock { table in
        if let id = table[address] { return id }
        let id = announce(queue, kind: inferredKind(of: queue), in: recorder)
        table[address] = id
        return id
      }
      chronoscope_preload_cache_queue(address, id, current)
      return id
    }

    /// The trace id of the main queue, announcing it on first use; 0 when libdispatch has none.
    func mainQueueID(in recorder: ForeignWorkRecorder) -> UInt32 {
      guard let queue = OpaquePointer(bitPattern: mainQueue) else { return 0 }
      return id(of: queue, in: recorder)
    }

    /// Announces a queue the program just made, `concurrent` or not.
    func made(_ queue: OpaquePointer, concurrent: Bool, in recorder: ForeignWorkRecorder) {
      let id = announce(queue, kind: concurrent ? .concurrent : .serial, in: recorder)
      table.withLock { $0[UInt(bitPattern: queue)] = id }
      generation.add(1, ordering: .relaxed)
    }

    /// Whether `attribute` makes concurrent queues.
    func isConcurrent(_ attribute: OpaquePointer?) -> Bool {
      guard let attribute else { return false }
      return concurrentAttributes.withLock { $0.contains(UInt(bitPattern: attribute)) }
    }

    /// Notes that `derived`, made from `base` by an attribute function, is concurrent if `base` is.
    func derive(_ derived: OpaquePointer?, from base: OpaquePointer?) {
      guard let derived, Preload.isRecording, isConcurrent(base) else { return }
      concurrentAttributes.withLock { _ = $0.insert(UInt(bitPattern: derived)) }
    }

    private func announce(
      _ queue: OpaquePointer, kind: SchedulerKind, in recorder: ForeignWorkRecorder
    ) -> UInt32 {
      let label = distinct(realGetLabel(queue).map { String(cString: $0) } ?? "", of: queue)
      return recorder.registerScheduler(label: label, kind: kind, family: .dispatch)
    }

    /// Labels announced so far.
    private let labels = Mutex<Set<String>>([])

    /// `label`, told apart from an earlier queue's by the queue's quality of service, or by a
    /// number when that does not tell them apart. The Swift runtime's queues (one "Swift global
    /// concurrent queue" per priority) are named by their quality of service from the first:
    /// "Swift global concurrent queue (user-initiated)".
    private func distinct(_ label: String, of queue: OpaquePointer) -> String {
      labels.withLock { labels in
        var priority: Int32 = 0
        let qos = Self.qosNames[realGetQoS(queue, &priority)]
        var chosen = label
        if let qos, label == Self.runtimeQueueLabel || labels.contains(label) {
          chosen = "\(label) (\(qos))"
        }
        var number = 2
        while labels.contains(chosen) {
          chosen = "\(label) #\(number)"
          number += 1
        }
        labels.insert(chosen)
        return chosen
      }
    }

    /// The label of the Swift runtime's global executor queues.
    private static let runtimeQueueLabel = "Swift global concurrent queue"

    /// libdispatch's QoS classes by their values.
    private static let qosNames: [UInt32: String] = [
      0x21: "user-interactive", 0x19: "user-initiated", 0x15: "default", 0x11: "utility",
      0x09: "background",
    ]

    private func inferredKind(of queue: OpaquePointer) -> SchedulerKind {
      if UInt(bitPattern: queue) == mainQueue { return .main }
      // The global queues ("com.apple.root.default-qos", with their quality of service) and the
      // Swift runtime's global executor queues run work side by side.
      let label = realGetLabel(queue).map { String(cString: $0) } ?? ""
      return label.hasPrefix("com.apple.root.") ? .concurrent : .serial
    }
  }

  private let realGetQoS = nextDefinition(
    "dispatch_queue_get_qos_class",
    as: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> UInt32).self)

  private let realGetLabel = nextDefinition(
    "dispatch_queue_get_label", as: (@convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?).self)

  /// The host's monotonic clock (`CLOCK_MONOTONIC`, the trace's), in nanoseconds.
  func monotonicNow() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
  }
#endif
