import ChronoscopeFatalSignals
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
/// The mending is a ``FatalSignals`` repair: the process's one chain of crash handlers asks it
/// first, so a recorder or terminal in the same process keeps its crash path, and a `SIGBUS`
/// anywhere else goes on to them and then to the handler that was there before (Swift's
/// backtracer, or the default). The repair is added while a mapping is guarded, and removed
/// with the last: a tool that reads a trace keeps no crash handler after the read (unless a
/// recorder or terminal in it holds them).
///
/// - Complexity: registering and unregistering take a lock; the handler scans ``slotCount``
///   slots with atomic loads.
enum MappedFileFaults {
  /// How many mappings can be guarded at once; more are read unguarded (as before).
  static let slotCount = 32

  /// Guards `region` until ``unregister(_:)``; returns its slot, or nil when every slot is taken.
  static func register(_ region: UnsafeRawBufferPointer) -> Int? {
    guard let base = region.baseAddress, region.count > 0 else { return nil }
    return registration.withLock { guarded -> Int? in
      if guarded == 0 {
        _ = slots  // made before the handler can need it: it must not run a lazy initializer
        _ = pageSize
        guard FatalSignals.addRepair(mendTruncatedMapping) else { return nil }
      }
      for slot in 0..<slotCount where slots.start(slot).pointee.load(ordering: .acquiring) == 0 {
        slots.faulted(slot).pointee.store(false, ordering: .releasing)
        slots.end(slot).pointee.store(
          UInt(bitPattern: base) + UInt(region.count), ordering: .releasing)
        slots.start(slot).pointee.store(UInt(bitPattern: base), ordering: .releasing)
        guarded += 1
        return slot
      }
      if guarded == 0 { FatalSignals.removeRepair(mendTruncatedMapping) }
      return nil
    }
  }

  /// Stops guarding the slot's region; returns whether a fault was turned into zeros in it.
  @discardableResult
  static func unregister(_ slot: Int) -> Bool {
    registration.withLock { guarded in
      slots.start(slot).pointee.store(0, ordering: .releasing)
      guarded -= 1
      if guarded == 0 { FatalSignals.removeRepair(mendTruncatedMapping) }
      return slots.faulted(slot).pointee.load(ordering: .acquiring)
    }
  }

  /// Whether a fault was turned into zeros in the slot's region since it was registered.
  static func faulted(_ slot: Int) -> Bool {
    slots.faulted(slot).pointee.load(ordering: .acquiring)
  }

  /// How many mappings are guarded now: the repair is added while any is.
  private static let registration = Mutex(0)
}

/// The page size, read before the handler is installed.
private let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))

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

/// Mends a `SIGBUS` inside a guarded mapping (from the crash handler); false for any other fault.
private func mendTruncatedMapping(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?)
  -> Bool
{
  guard signal == SIGBUS else { return false }
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
    return true
  }
  return false
}
