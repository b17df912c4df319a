import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one chain of handlers for the signals a crash raises: whoever needs to act before the
/// process dies (a recorder writing its buffers, a terminal putting itself back) registers a
/// callback here, and this installs the handlers.
///
/// ```swift
/// let registration = FatalSignals.register(context: pointer) { signal, context in
///   // async-signal-safe work only: write(2), no locks, no allocation
/// }
/// defer { FatalSignals.unregister(registration) }
/// ```
///
/// Rules it keeps:
/// - **Order-independent.** The handlers are installed by the first registration and then never
///   taken down: registering and unregistering only add and remove callbacks, so a recorder
///   opened after a terminal session keeps its callback when the session ends, and the other way
///   round. Repairs alone (a trace being read) hold the handlers only while they are added: the
///   last one removed puts back the actions found before, unless another handler went in over
///   these meanwhile. There is no limit to how many callbacks are registered (slots come in
///   blocks of 64, allocated outside any handler and never freed).
/// - **Chained.** On SIGSEGV, SIGBUS, SIGILL (Swift's traps), SIGABRT and SIGTRAP the callbacks
///   run in the order they were registered, then the handler puts back the handler that was
///   there before (Swift's backtracer, or the default) and returns: a fault re-executes and reaches
///   it; a signal sent by `kill`, `raise` or `abort()` is raised again first, as it would not recur
///   by itself.
/// - **Never stuck.** The callbacks run on a thread of this type's, not on the thread the signal
///   interrupted, which may hold any lock (`malloc`'s); the handler waits for them a bounded time
///   (see ``SignalWorker``). In a forked child, which has no such thread, they run in the handler.
/// - **A stack of its own.** The handler runs on an alternate signal stack (`SA_ONSTACK`), so a
///   stack overflow still runs it. A stack is per thread: ``installAlternateStack()`` gives the
///   calling thread one (registering does it for the registering thread; a recorder does it for
///   each thread it records). A stack overflow on a thread without one cannot run any handler:
///   the kernel kills the process at once.
///
/// - Warning: A callback may run in a signal handler (in a forked child), and always while the
///   crashing thread holds any lock: it must not wait on a lock without a bound, should not
///   allocate, and must not call code it does not know.
package enum FatalSignals {
  /// A callback: the signal, and the context it was registered with.
  package typealias Callback = @convention(c) (Int32, UnsafeMutableRawPointer) -> Void

  /// The signals handled.
  package static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGTRAP]

  /// The signals that stop a process that left them at their defaults (Ctrl-C, `kill`, a closed
  /// terminal), which ``catchStops()`` also hands the callbacks.
  package static let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

  /// The signal's name, as a crash line writes it; static text, for a signal handler.
  package static func name(of signal: Int32) -> StaticString {
    switch signal {
    case SIGSEGV: "SIGSEGV"
    case SIGBUS: "SIGBUS"
    case SIGILL: "SIGILL"
    case SIGABRT: "SIGABRT"
    case SIGTRAP: "SIGTRAP"
    case SIGINT: "SIGINT"
    case SIGTERM: "SIGTERM"
    case SIGHUP: "SIGHUP"
    case SIGQUIT: "SIGQUIT"
    default: "SIGNAL"
    }
  }

  /// Tells the calling thread's tag: a number its owner gave the thread (the recorder's thread
  /// id), read from thread-local storage. Runs in a signal handler: no lock, no allocation.
  package typealias ThreadTagger = @convention(c) () -> UInt

  /// Sets how the thread a signal interrupted is told, for the callbacks (which may run on
  /// another thread): ``interruptedThreadTag``. The first call wins.
  package static func tagThreads(with tagger: ThreadTagger) {
    _ = threadTagger.compareExchange(
      expected: 0, desired: unsafeBitCast(tagger, to: UInt.self), ordering: .acquiringAndReleasing)
  }

  /// The tag (see ``tagThreads(with:)``) of the thread the signal being handled interrupted, for
  /// a callback; 0 when there is no tagger or outside a signal.
  package static var interruptedThreadTag: UInt { interruptedTag.load(ordering: .acquiring) }

  /// From a handler, on the interrupted thread: notes its tag.
  fileprivate static func noteInterruptedThread() {
    let tagger = threadTagger.load(ordering: .acquiring)
    guard tagger != 0 else { return }
    interruptedTag.store(unsafeBitCast(tagger, to: ThreadTagger.self)(), ordering: .releasing)
  }

  private static let threadTagger = Atomic<UInt>(0)
  private static let interruptedTag = Atomic<UInt>(0)

  /// A registered callback, for ``unregister(_:)``.
  package struct Registration: Sendable {
    fileprivate let slot: UInt
    fileprivate let context: UInt
  }

  /// Who holds the handlers: how many repairs are added, and whether a callback was ever
  /// registered (then they stay). Taken outside any handler only.
  private struct Holders {
    var repairs = 0
    var callbacks = false
    var installed = false
  }

  private static let holders = Mutex(Holders())

  /// Mends a fault, from the handler: the signal and its `siginfo_t`; true when the faulting
  /// instruction may run again (it will not fault twice), false when the fault is not its own.
  /// Same rules as a callback: no lock, no allocation.
  package typealias Repair = @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?) -> Bool

  /// How many repairs can be added; each module that mends faults adds one, once.
  static let repairSlots = 8

  /// Adds `repair`, asked first about every signal handled until ``removeRepair(_:)``; installs
  /// the handlers if they are not. False when every repair slot is taken.
  package static func addRepair(_ repair: Repair) -> Bool {
    holders.withLock { holders in
      let value = unsafeBitCast(repair, to: UInt.self)
      for slot in 0..<repairSlots
      where (repairs + slot).pointee.compareExchange(
        expected: 0, desired: value, ordering: .acquiringAndReleasing
      ).exchanged {
        holders.repairs += 1
        if !holders.installed {
          installHandlers()
          holders.installed = true
        }
        return true
      }
      return false
    }
  }

  /// Removes `repair`; when it was the last and no callback was ever registered, puts back the
  /// actions the handlers replaced (those still this type's).
  package static func removeRepair(_ repair: Repair) {
    holders.withLock { holders in
      let value = unsafeBitCast(repair, to: UInt.self)
      for slot in 0..<repairSlots
      where (repairs + slot).pointee.compareExchange(
        expected: value, desired: 0, ordering: .acquiringAndReleasing
      ).exchanged {
        holders.repairs -= 1
        break
      }
      if holders.repairs == 0, !holders.callbacks, holders.installed {
        holders.installed = !uninstallHandlers()
      }
    }
  }

  /// Whether a repair mended the fault (from the handler).
  fileprivate static func repaired(
    _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?
  ) -> Bool {
    for slot in 0..<repairSlots {
      let value = (repairs + slot).pointee.load(ordering: .acquiring)
      guard value != 0 else { continue }
      if unsafeBitCast(value, to: Repair.self)(signal, info) { return true }
    }
    return false
  }

  /// Adds `callback`, called with `context` when the process crashes; installs the handlers the
  /// first time, and an alternate signal stack for the calling thread.
  ///
  /// - Complexity: O(callbacks registered).
  package static func register(
    context: UnsafeMutableRawPointer, _ callback: Callback
  ) -> Registration {
    holders.withLock { holders in
      holders.callbacks = true
      if !holders.installed {
        installHandlers()
        holders.installed = true
      }
    }
    SignalWorker.start()
    installAlternateStack()
    let address = UInt(bitPattern: context)
    var block = firstBlock
    while true {
      for index in 0..<SlotBlock.slots {
        let state = block.state(index)
        guard
          state.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
        else { continue }
        block.callback(index).pointee.store(
          unsafeBitCast(callback, to: UInt.self), ordering: .relaxed)
        state.pointee.store(address, ordering: .releasing)
        return Registration(slot: UInt(bitPattern: state), context: address)
      }
      block = block.nextOrMake()
    }
  }

  /// Removes a callback; the handlers stay installed for the others.
  package static func unregister(_ registration: Registration) {
    guard let slot = UnsafeMutablePointer<Atomic<UInt>>(bitPattern: registration.slot) else {
      return
    }
    _ = slot.pointee.compareExchange(
      expected: registration.context, desired: 0, ordering: .acquiringAndReleasing)
  }

  /// Gives the calling thread an alternate signal stack, unless it has one, so that the crash
  /// handler runs even when the thread overflowed its stack. The stack is freed when the thread
  /// ends.
  package static func installAlternateStack() {
    var current = stack_t()
    guard sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) != 0 else {
      return
    }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    guard
      let base = mmap(
        nil, page + alternateStackSize, PROT_READ | PROT_WRITE,
        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), base != MAP_FAILED
    else { return }
    // A guard page below: a handler that overflows the alternate stack faults instead of
    // writing over other memory.
    _ = mprotect(base, page, PROT_NONE)
    var stack = stack_t()
    stack.ss_sp = base + page
    stack.ss_size = alternateStackSize
    guard sigaltstack(&stack, nil) == 0 else {
      munmap(base, page + alternateStackSize)
      return
    }
    pthread_setspecific(stackKey, base)
  }

  /// Room for the callbacks and the handler that follows them (Swift's backtracer, say).
  static let alternateStackSize = 256 << 10

  /// Hands the callbacks the ``stopSignals`` too, those the process left at their defaults (a
  /// handler or an ignore it set is kept): the process still ends by the signal, as it would
  /// have, once they have run. For a program that is recorded without knowing it
  /// (`chronoscope record`), whose trace would otherwise end without what was buffered when
  /// Ctrl-C stopped it. Call before the program's threads start (a preload's constructor).
  ///
  /// The callbacks run on a thread of their own, not in the handler, and the program runs on
  /// meanwhile (see ``SignalWorker``); a second stop signal then takes the default action at once.
  package static func catchStops() {
    _ = repairs
    SignalWorker.start()
    for signal in stopSignals {
      var current = sigaction()
      guard sigaction(signal, nil, &current) == 0, isDefault(current) else { continue }
      handle(signal, with: stopSignalHandler)
    }
  }

  private static func isDefault(_ action: sigaction) -> Bool {
    #if canImport(Glibc)
      let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    #else
      let handler = unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
    #endif
    return action.sa_flags & SA_SIGINFO == 0 && handler == Int(bitPattern: 0)
  }

  /// Installs the handler for every crash signal. The worker thread is started by the first
  /// callback's registration, not here: repairs run in the handler and need none.
  private static func installHandlers() {
    _ = repairs  // made before the handler can need it: a handler must not run a lazy initializer
    for signal in signals { handle(signal, with: fatalSignalHandler) }
  }

  /// Puts back the actions the handlers replaced, when every crash signal's action is still
  /// this type's handler; true when it did. When another handler went in over one (it may chain
  /// to this one), all stay: half a chain would leave signals unguarded at the next install.
  private static func uninstallHandlers() -> Bool {
    let ours = unsafeBitCast(fatalSignalHandler as Handler, to: Int.self)
    for signal in signals {
      var current = sigaction()
      guard sigaction(signal, nil, &current) == 0 else { return false }
      #if canImport(Glibc)
        let handler = unsafeBitCast(current.__sigaction_handler.sa_sigaction, to: Int.self)
      #else
        let handler = unsafeBitCast(current.__sigaction_u.__sa_sigaction, to: Int.self)
      #endif
      guard handler == ours else { return false }
    }
    for signal in signals { sigaction(signal, previousActions + Int(signal), nil) }
    return true
  }

  /// What ``handle(_:with:)`` installs.
  private typealias Handler =
    @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void

  /// Installs `handler` for `signal` on the alternate stack, keeping the action it replaces for
  /// the handler to put back.
  private static func handle(
    _ signal: Int32,
    with handler:
      @escaping @convention(c) (
        Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?
      ) -> Void
  ) {
    var action = sigaction()
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_SIGINFO | SA_ONSTACK
    #if canImport(Glibc)
      action.__sigaction_handler.sa_sigaction = handler
    #else
      action.__sigaction_u.__sa_sigaction = handler
    #endif
    sigaction(signal, &action, previousActions + Int(signal))
  }

  /// Calls every registered callback (from the handler).
  fileprivate static func callAll(_ signal: Int32) {
    var block: SlotBlock? = firstBlock
    while let current = block {
      for index in 0..<SlotBlock.slots {
        let context = current.state(index).pointee.load(ordering: .acquiring)
        guard context > 1, let pointer = UnsafeMutableRawPointer(bitPattern: context) else {
          continue
        }
        let callback = unsafeBitCast(
          current.callback(index).pointee.load(ordering: .relaxed), to: Callback.self)
        callback(signal, pointer)
      }
      block = current.next
    }
  }
}

/// A block of slots: for each, a state (0 free, 1 being filled, else the context) and the
/// callback; then the address of the next block, or 0. Allocated outside any handler and never
/// freed, so the handler reaches every slot without reference counting.
private struct SlotBlock {
  static let slots = 64
  let words: UnsafeMutablePointer<Atomic<UInt>>

  static func make() -> SlotBlock {
    let words = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: 2 * slots + 1)
    for index in 0..<(2 * slots + 1) { (words + index).initialize(to: Atomic(0)) }
    return SlotBlock(words: words)
  }

  func state(_ index: Int) -> UnsafeMutablePointer<Atomic<UInt>> { words + 2 * index }
  func callback(_ index: Int) -> UnsafeMutablePointer<Atomic<UInt>> { words + 2 * index + 1 }

  var next: SlotBlock? {
    let address = words[2 * Self.slots].load(ordering: .acquiring)
    return UnsafeMutablePointer<Atomic<UInt>>(bitPattern: address).map(SlotBlock.init(words:))
  }

  /// The next block, made if there is none yet (outside a handler only).
  func nextOrMake() -> SlotBlock {
    if let next { return next }
    let fresh = Self.make()
    let (exchanged, original) = words[2 * Self.slots].compareExchange(
      expected: 0, desired: UInt(bitPattern: fresh.words), ordering: .acquiringAndReleasing)
    if exchanged { return fresh }
    fresh.words.deinitialize(count: 2 * Self.slots + 1)
    fresh.words.deallocate()
    return SlotBlock(words: UnsafeMutablePointer(bitPattern: original) ?? fresh.words)
  }
}

nonisolated(unsafe) private let firstBlock = SlotBlock.make()

// Written once by `install()`, before any handler can run; read by the handler. Indexed by signal
// number (all five are below 32).
nonisolated(unsafe) private let previousActions = UnsafeMutablePointer<sigaction>.allocate(
  capacity: 32)

// Each thread's alternate stack (its mapping's base, guard page included), freed as it ends.
private let stackKey: pthread_key_t = {
  var key = pthread_key_t()
  #if canImport(Darwin)
    pthread_key_create(&key) { freeAlternateStack($0) }
  #else
    pthread_key_create(&key) { base in
      if let base { freeAlternateStack(base) }
    }
  #endif
  return key
}()

/// Takes down and frees an ending thread's alternate stack (`base` is its mapping's start).
private func freeAlternateStack(_ base: UnsafeMutableRawPointer) {
  let page = Int(sysconf(Int32(_SC_PAGESIZE)))
  var current = stack_t()
  // Only a stack that is still this thread's is taken down.
  if sigaltstack(nil, &current) == 0, current.ss_sp == base + page {
    var disable = stack_t()
    disable.ss_flags = Int32(SS_DISABLE)
    sigaltstack(&disable, nil)
  }
  munmap(base, page + FatalSignals.alternateStackSize)
}

/// The repairs, in the order added (0: none yet). Allocated once and never freed; only atomics
/// are reached through the pointer.
nonisolated(unsafe) private let repairs: UnsafeMutablePointer<Atomic<UInt>> = {
  let words = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: FatalSignals.repairSlots)
  for slot in 0..<FatalSignals.repairSlots { (words + slot).initialize(to: Atomic(0)) }
  return words
}()

/// A stop signal's handler: hands the signal to the worker (see ``SignalWorker``) and returns, the
/// worker ending the process once the callbacks have run. In a forked child (no worker) the
/// callbacks run here; for a second stop signal while the first is handled, not at all. Then the
/// action is put back and the signal raised again (it is blocked while this runs, so it is
/// delivered as the handler returns). Only async-signal-safe calls.
private func stopSignalHandler(
  _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?
) {
  switch SignalWorker.handOff(signal) {
  case .handedOff: return
  case .none:
    FatalSignals.noteInterruptedThread()
    FatalSignals.callAll(signal)
  case .busy, .isTheWorker: break
  }
  sigaction(signal, previousActions + Int(signal), nil)
  raise(signal)
}

/// The thread that runs the callbacks, outside any signal handler.
///
/// A signal lands on a thread at any instruction — inside `malloc`, holding its arena lock, say.
/// Callbacks run in that handler would wait for ever on a lock the interrupted thread holds,
/// directly (the Swift runtime's metadata cache allocates the first time it meets a type) or
/// through another thread that waits for it (the recorder's writer, part way through a flush
/// that allocates). So a handler hands the signal to this thread and:
/// - for a stop signal, returns: the interrupted thread goes on and lets go of its locks, and the
///   worker, once the callbacks have run, ends the process by the signal with the action the
///   process had before (the program runs on for that moment);
/// - for a crash, waits for the worker at most ``crashWaitNanoseconds``, then lets the crash go on
///   as before: callbacks stuck behind a lock the crashed thread holds cost a bounded delay, never
///   a process that never ends.
///
/// Made once per process, outside any handler, with every signal but the crash signals blocked. A
/// forked child has no worker (threads do not survive `fork`): its handlers run the callbacks
/// themselves, as they must not wake the parent's worker through the inherited pipe.
private enum SignalWorker {
  /// The process that made the worker, 0 before.
  static let owner = Atomic<Int32>(0)
  /// The process that began making it.
  private static let claimed = Atomic<Int32>(0)
  /// The worker's thread (`pthread_t`), for a handler running on it.
  static let thread = Atomic<UInt>(0)
  /// The signal handed off, 0 before the first: the worker takes one, for the process's life.
  static let request = Atomic<Int32>(0)
  /// Whether the worker has run the callbacks.
  static let finished = Atomic<Bool>(false)
  /// The pipe's write end, which a handler writes one byte to; -1 before it is made.
  static let wakeUp = Atomic<Int32>(-1)
  /// The pipe's read end, which the worker waits on.
  private static let readEnd = Atomic<Int32>(-1)

  /// A thread as a number to compare (`pthread_t` is a number on Linux, a pointer on Darwin).
  private static func identity(of thread: pthread_t) -> UInt {
    #if canImport(Darwin)
      UInt(bitPattern: thread)
    #else
      UInt(thread)
    #endif
  }

  /// The longest a crashing thread waits for the worker: longer than a recorder waits for its
  /// writer and then for a stalled reader together.
  static let crashWaitNanoseconds: Int64 = 6_000_000_000

  enum HandOff {
    /// The worker has the signal.
    case handedOff
    /// The worker has another signal already.
    case busy
    /// The calling thread is the worker: a callback crashed.
    case isTheWorker
    /// This process has no worker (a forked child, or it could not be made).
    case none
  }

  /// Makes the pipe and the worker, once per process; outside any handler.
  static func start() {
    let me = getpid()
    // Once per process, whoever asks first (installing the handlers, catching stops).
    let previousClaim = claimed.load(ordering: .acquiring)
    guard previousClaim != me,
      claimed.compareExchange(
        expected: previousClaim, desired: me, ordering: .acquiringAndReleasing
      ).exchanged
    else { return }
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    // A handler must never block: the pipe holds the one byte ever written.
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    // The worker takes no signal but the crash signals: a signal sent to the process must reach
    // one of the program's threads, whose handler hands it over.
    var all = sigset_t()
    sigfillset(&all)
    for crash in FatalSignals.signals { sigdelset(&all, crash) }
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &all, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    readEnd.store(ends[0], ordering: .releasing)
    // The start routine's argument differs in optionality between Glibc and Darwin; none is
    // needed (the worker reads `readEnd`, and notes its own thread).
    #if canImport(Darwin)
      var worker: pthread_t?
      let made = pthread_create(
        &worker, &attributes, { _ in SignalWorker.body() }, UnsafeMutableRawPointer(bitPattern: 1))
    #else
      var worker = pthread_t()
      let made = pthread_create(&worker, &attributes, { _ in SignalWorker.body() }, nil)
    #endif
    guard made == 0 else {
      close(ends[0])
      close(ends[1])
      return
    }
    wakeUp.store(ends[1], ordering: .releasing)
    owner.store(me, ordering: .releasing)
  }

  /// From a handler: hands `signal` to the worker. Async-signal-safe (atomics, `getpid`,
  /// `pthread_self`, `write`).
  static func handOff(_ signal: Int32) -> HandOff {
    guard owner.load(ordering: .acquiring) == getpid() else { return .none }
    if identity(of: pthread_self()) == thread.load(ordering: .acquiring) { return .isTheWorker }
    let pipe = wakeUp.load(ordering: .acquiring)
    guard pipe >= 0 else { return .none }
    guard
      request.compareExchange(expected: 0, desired: signal, ordering: .acquiringAndReleasing)
        .exchanged
    else { return .busy }
    FatalSignals.noteInterruptedThread()
    var byte: UInt8 = 1
    return write(pipe, &byte, 1) == 1 ? .handedOff : .none
  }

  /// From a crash handler: waits until the worker has run the callbacks, at most
  /// ``crashWaitNanoseconds``. Async-signal-safe (`clock_gettime`, `nanosleep`).
  static func waitUntilFinished() {
    let start = monotonicNanoseconds()
    while !finished.load(ordering: .acquiring),
      monotonicNanoseconds() &- start < crashWaitNanoseconds
    {
      var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
      nanosleep(&pause, nil)
    }
  }

  private static func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
  }

  /// The worker's body: waits for a signal, runs the callbacks; for a stop signal, ends the
  /// process by it.
  fileprivate static func body() -> UnsafeMutableRawPointer? {
    thread.store(identity(of: pthread_self()), ordering: .releasing)
    // The name `top -H` and /proc show (15 bytes at most), written where Linux keeps it: this
    // module reaches no C shim (prctl is variadic, and pthread_setname_np a GNU extension).
    #if os(Linux)
      let name = open("/proc/thread-self/comm", O_WRONLY)
      if name >= 0 {
        _ = write(name, "chrono-signals", 14)
        close(name)
      }
    #endif
    let pipe = readEnd.load(ordering: .acquiring)
    var byte: UInt8 = 0
    while read(pipe, &byte, 1) != 1 {
      if errno != EINTR { return nil }
    }
    let number = request.load(ordering: .acquiring)
    FatalSignals.callAll(number)
    finished.store(true, ordering: .releasing)
    guard FatalSignals.stopSignals.contains(number) else { return nil }
    sigaction(number, previousActions + Int(number), nil)
    var only = sigset_t()
    sigemptyset(&only)
    sigaddset(&only, number)
    pthread_sigmask(SIG_UNBLOCK, &only, nil)
    raise(number)
    // Still here: the action put back does not end the process (the program set one of its own
    // meanwhile), so the signal was the program's to handle.
    return nil
  }
}

private func fatalSignalHandler(
  _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?
) {
  if FatalSignals.repaired(signal, info) { return }
  switch SignalWorker.handOff(signal) {
  case .handedOff, .busy: SignalWorker.waitUntilFinished()
  case .none:
    FatalSignals.noteInterruptedThread()
    FatalSignals.callAll(signal)
  case .isTheWorker: break
  }
  sigaction(signal, previousActions + Int(signal), nil)
  // si_code <= 0: sent (kill, raise, abort), not caused by an instruction. It is blocked while
  // this handler runs, so raising it again delivers it to the restored handler when we return.
  if let info, info.pointee.si_code <= 0 { raise(signal) }
}
