import Logging
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
  /// Flight recorders' dumps to write when the process exits, by core.
  private let dumps = Mutex<[ObjectIdentifier: (core: RecorderCore, path: String, logger: Logger)]>(
    [:])

  /// The process the recorders belong to. A child the program forks inherits them, their
  /// files included, but not their threads: when it exits (without `exec`), it must not write
  /// into its parent's traces.
  let owner = getpid()

  private init() {
    atexit { RecorderRegistry.shared.flushAll() }
  }

  func add(_ core: RecorderCore) {
    recorders.withLock { $0[ObjectIdentifier(core)] = core }
  }

  func remove(_ core: RecorderCore) {
    recorders.withLock { $0[ObjectIdentifier(core)] = nil }
    dumps.withLock { $0[ObjectIdentifier(core)] = nil }
  }

  /// Closes `core` at exit, so that its trace ends with a `close` line.
  func closeAtExit(_ core: RecorderCore) {
    closing.withLock { $0[ObjectIdentifier(core)] = core }
  }

  /// Dumps flight recorder `core` to `path` when the process exits normally.
  func dumpAtExit(_ core: RecorderCore, to path: String, logger: Logger) {
    dumps.withLock { $0[ObjectIdentifier(core)] = (core, path, logger) }
  }

  /// Before an `exec` (see ``ExecHandoff``): as at exit, but the recorders that close there
  /// only end their traces, keeping their files, in case the `exec` fails.
  func writeBeforeExec() {
    guard getpid() == owner else { return }
    dumpFlights()
    for core in closing.withLock({ Array($0.values) }) { core.endBeforeExec() }
    for core in recorders.withLock({ Array($0.values) }) { core.flush() }
  }

  /// After an `exec` that failed: the traces ended before it go on.
  func resumeAfterFailedExec() {
    guard getpid() == owner else { return }
    for core in closing.withLock({ Array($0.values) }) { core.resumeAfterFailedExec() }
  }

  private func dumpFlights() {
    for (core, path, logger) in dumps.withLock({ Array($0.values) }) {
      do {
        try core.dump(to: path)
      } catch {
        logger.error("flight recorder: \(error)")
      }
    }
  }

  private func flushAll() {
    guard getpid() == owner else { return }
    dumpFlights()
    for core in closing.withLock({ Array($0.values) }) { core.close() }
    for core in recorders.withLock({ Array($0.values) }) {
      core.flush()
    }
  }
}
