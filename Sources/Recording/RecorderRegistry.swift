import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The open recorders, so that a normal process exit flushes them.
final class RecorderRegistry: Sendable {
  static let shared = RecorderRegistry()

  private struct WeakRecorder {
    weak var recorder: TraceRecorder?
  }

  private let recorders = Mutex<[ObjectIdentifier: WeakRecorder]>([:])

  private init() {
    atexit { RecorderRegistry.shared.flushAll() }
  }

  func add(_ recorder: TraceRecorder) {
    recorders.withLock { $0[ObjectIdentifier(recorder)] = WeakRecorder(recorder: recorder) }
  }

  func remove(_ recorder: TraceRecorder) {
    recorders.withLock { $0[ObjectIdentifier(recorder)] = nil }
  }

  private func flushAll() {
    for entry in recorders.withLock({ Array($0.values) }) {
      entry.recorder?.flush()
    }
  }
}
