import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Keeps a mapped trace file that another process truncates from killing the reader.
///
/// Touching a page of a mapping that lies past the file's end raises `SIGBUS`: an app restarting
/// on the same `CHRONOSCOPE_TRACE` path truncates the file `validate`, `check` or `stats` is
/// reading. While a ``MappedTraceFile`` is registered here, a `SIGBUS` inside it puts anonymous
/// zero pages over the rest of the mapping (`mmap` with `MAP_FIXED`, a system call) and marks the
/// file as changed; the faulting read is then retried by the processor and reads zeros, the pass
/// goes on to its end, and the reader reports "the file changed while it was read" instead of
/// what it parsed. No `setjmp`, no C shim, no cost on the reading path: the handler runs only on
/// a fault.
///
/// A `SIGBUS` anywhere else is not ours: the handler puts back the action that was there when it
/// was installed and returns, so the fault happens again under that action (a crash handler's, or
/// the default one). A handler installed later for `SIGBUS` that does not chain to the previous
/// one takes precedence: the reader then crashes as before, under that handler.
///
/// - Complexity: registering and unregistering take a lock; the handler scans ``slotCount``
///   slots with atomic loads.
enum MappedFileFaults {
  /// How many mappings can be guarded at once; more are read unguarded (as before).
  static let slotCount = 32

  /// Guards `region` until ``unregister(_:)``; returns its slot, or nil when every slot is taken.
  static func register(_ region: UnsafeRawBufferPointer) -> Int? {
    guard let base = region.baseAddress, region.count > 0 else { return nil }
    return registration.withLock { installed -> Int? in
      if !installed {
        install()
        installed = true
      }
      for slot in 0..<slotCount where slots.start(slot).pointee.load(ordering: .acquiring) == 0 {
        slots.faulted(slot).pointee.store(false, ordering: .releasing)
        slots.end(slot).pointee.store(
          UInt(bitPattern: base) + UInt(region.count), ordering: .releasing)
        slots.start(slot).pointee.store(UInt(bitPattern: base), ordering: .releasing)
        return slot
      }
      return nil
    }
  }

  /// Stops guarding the slot's region; returns whether a fault was turned into zeros in it.
  @discardableResult
  static func unregister(_ slot: Int) -> Bool {
    registration.withLock { _ in
      slots.start(slot).pointee.store(0, ordering: .releasing)
      return slots.faulted(slot).pointee.load(ordering: .acquiring)
    }
  }

  /// Whether a fault was turned into zeros in the slot's region since it was registered.
  static func faulted(_ slot: Int) -> Bool {
    slots.faulted(slot).pointee.load(ordering: .acquiring)
  }

  private static func install() {
    _ = slots  // made before the handler can need it: the handler must not run a lazy initializer
    _ = pageSize
    var action = sigaction()
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_SIGINFO
    #if canImport(Glibc)
      action.__sigaction_handler.sa_sigaction = busHandler
    #else
      action.__sigaction_u.__sa_sigaction = busHandler
    #endif
    sigaction(SIGBUS, &action, previous)
  }

  /// Whether the handler is installed (it stays for the process's life once it is).
  private static let registration = Mutex(false)
}

/// The page size, read before the handler is installed.
private let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))

/// The action in place before ours, put back for a fault that is not in a guarded mapping.
/// Written once by `install()` under the registration lock, before the handler can run; read only
/// by the handler. Allocated once and never freed.
nonisolated(unsafe) private let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 1)

/// Each slot's region (`start` 0: free) and whether it faulted: lock-free, so the handler may
/// read and write them. Allocated once and never freed.
private struct Slots: @unchecked Sendable {
  // Only atomics are reached through these pointers.
  private let words: UnsafeMutablePointer<Atomic<UInt>>
  private let flags: UnsafeMutablePointer<Atomic<Bool>>

  init(count: Int) {
    words = .allocate(capacity: count * 2)
    flags = .allocate(capacity: count)
    for index in 0..<count * 2 { (words + index).initialize(to: Atomic(0)) }
    for index in 0..<count { (flags + index).initialize(to: Atomic(false)) }
  }

  func start(_ slot: Int) -> UnsafeMutablePointer<Atomic<UInt>> { words + slot * 2 }
  func end(_ slot: Int) -> UnsafeMutablePointer<Atomic<UInt>> { words + slot * 2 + 1 }
  func faulted(_ slot: Int) -> UnsafeMutablePointer<Atomic<Bool>> { flags + slot }
}

private let slots = Slots(count: MappedFileFaults.slotCount)

private func busHandler(
  _ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?
) {
  #if canImport(Glibc)
    let address = info.map { UInt(bitPattern: $0.pointee._sifields._sigfault.si_addr) } ?? 0
  #else
    let address = info.map { UInt(bitPattern: $0.pointee.si_addr) } ?? 0
  #endif
  for slot in 0..<MappedFileFaults.slotCount {
    let start = slots.start(slot).pointee.load(ordering: .acquiring)
    let end = slots.end(slot).pointee.load(ordering: .acquiring)
    guard start != 0, address >= start, address < end else { continue }
    // Zeros from the faulting page to the end: the file is gone past here. errno is the
    // interrupted code's, so it is kept.
    let saved = errno
    let page = address & ~(pageSize - 1)
    _ = mmap(
      UnsafeMutableRawPointer(bitPattern: page), Int(end - page), PROT_READ,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
    errno = saved
    slots.faulted(slot).pointee.store(true, ordering: .releasing)
    return
  }
  // Not a guarded mapping: the fault repeats under the action that was there before.
  sigaction(SIGBUS, previous, nil)
}
