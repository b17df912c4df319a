import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The open recorders, so that a normal process exit flushes them.
final class RecorderRegistry: Sendable {
  static let shared = RecorderRegistry()

  // Strong references: a core is removed when it closes, which releasing its recorder does.
  private let recorders = Mutex<[ObjectIdentifier: RecorderCore]>([:])
  /// Recorders that close (not only flush) when the process exits: the ones the app never sees.
  private let closing = Mutex<[ObjectIdentifier: RecorderCore]>([:])

  private init() {
    atexit { RecorderRegistry.shared.flushAll() }
  }

  func add(_ core: RecorderCore) {
    recorders.withLock { $0[ObjectIdentifier(core)] = core }
  }

  func remove(_ core: RecorderCore) {
    recorders.withLock { $0[ObjectIdentifier(core)] = nil }
  }

  /// Closes `core` at exit, so that its trace ends with a `close` line.
  func closeAtExit(_ core: RecorderCore) {
    closing.withLock { $0[ObjectIdentifier(core)] = core }
  }

  private func flushAll() {
    for core in closing.withLock({ Array($0.values) }) { core.close() }
    for core in recorders.withLock({ Array($0.values) }) {
      core.flush()
    }
  }
}
