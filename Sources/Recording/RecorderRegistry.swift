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

  private init() {
    atexit { RecorderRegistry.shared.flushAll() }
  }

  func add(_ core: RecorderCore) {
    recorders.withLock { $0[ObjectIdentifier(core)] = core }
  }

  func remove(_ core: RecorderCore) {
    recorders.withLock { $0[ObjectIdentifier(core)] = nil }
  }

  private func flushAll() {
    for core in recorders.withLock({ Array($0.values) }) {
      core.flush()
    }
  }
}
