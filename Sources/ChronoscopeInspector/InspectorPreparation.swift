@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import Dispatch
import Synchronization

/// The inspector's work in the background: the keyframes and the findings of its replay, made
/// on two threads of their own, and then, on the findings' thread, the lanes' indexes for
/// groupings not shown yet.
///
/// Its stages: ``start(replay:indexing:)`` sets the threads going; ``takeFinished()``, called
/// between keys, hands over what they have finished since the last call, each part once;
/// ``wait()`` blocks until they are all done. The inspector applies what it is handed
/// (``InspectorApp/takePreparedWork()``): this type touches neither its replay nor its cache.
///
/// The keyframes are made on a copy of the replay, which shares its prepared tables (so nothing
/// large is copied); the inspector adopts them (``ReplayEngine/adoptKeyframes(from:)``). The
/// indexes come after the findings, not beside them: an index takes about 2 bytes an event and
/// the findings' pass 9 bytes an action, and made one after the other they never add up at the
/// peak of opening a large trace.
struct InspectorPreparation: Sendable {
  /// What the other threads had finished when ``takeFinished()`` was called, and not handed
  /// over before.
  struct Finished {
    /// The replay with keyframes, whose keyframes the inspector adopts.
    var keyframed: ReplayEngine?
    /// The lanes' indexes of the groupings asked for.
    var stripIndexes: [InspectorState.Grouping: StripIndex]?
    /// Every finding of the replay, by time.
    var findings: [Finding]?
  }

  /// The threads at work, until all they made has been handed over.
  private var workers: Workers?
  /// Whether the findings have been handed over (or none were asked for): false from
  /// ``start(replay:indexing:)`` until ``takeFinished()`` hands them over.
  private(set) var hasFindings = true

  /// Whether keyframes, findings or indexes are still to be handed over.
  var isPreparing: Bool { workers != nil }

  /// Sets the threads making the keyframes, the findings, and then the indexes of `groupings`;
  /// whatever was being made before no longer applies, and is never handed over.
  mutating func start(replay: ReplayEngine, indexing groupings: [InspectorState.Grouping]) {
    workers = Workers(replay: replay, indexing: groupings)
    hasFindings = false
  }

  /// Hands over what the threads have finished since the last call. Cheap: a loop calls it
  /// between keys.
  mutating func takeFinished() -> Finished {
    guard let workers else { return Finished() }
    let finished = Finished(
      keyframed: workers.takeKeyframed(), stripIndexes: workers.takeStripIndexes(),
      findings: workers.takeFindings())
    if finished.findings != nil { hasFindings = true }
    if workers.isFinished { self.workers = nil }
    return finished
  }

  /// Waits until the threads are done.
  func wait() { workers?.wait() }
}

extension InspectorPreparation {
  /// The threads and what each has made, behind a lock each.
  private final class Workers: Sendable {
    private let keyframed = Mutex<Progress<ReplayEngine>>(.working)
    private let found = Mutex<Progress<[Finding]>>(.working)
    private let indexed = Mutex<Progress<[InspectorState.Grouping: StripIndex]>>(.working)
    private let group = DispatchGroup()

    private enum Progress<Value: Sendable>: Sendable {
      case working
      case done(Value)
      case taken
    }

    /// - Parameter indexing: The groupings whose lanes' indexes to make after the findings.
    init(replay: ReplayEngine, indexing groupings: [InspectorState.Grouping]) {
      DispatchQueue.global(qos: .userInitiated).async(group: group) { [self] in
        var copy = replay
        copy.makeKeyframes()
        keyframed.withLock { $0 = .done(copy) }
      }
      DispatchQueue.global(qos: .userInitiated).async(group: group) { [self] in
        let findings = FindingsAnalysis.findings(in: replay)
        found.withLock { $0 = .done(findings) }
        var indexes: [InspectorState.Grouping: StripIndex] = [:]
        for grouping in groupings { indexes[grouping] = StripIndex(replay, grouping: grouping) }
        indexed.withLock { $0 = .done(indexes) }
      }
    }

    /// The replay with keyframes, once, when it is done.
    func takeKeyframed() -> ReplayEngine? { Self.take(keyframed) }

    /// The findings, once, when they are done.
    func takeFindings() -> [Finding]? { Self.take(found) }

    /// The lanes' indexes, once, when they are done.
    func takeStripIndexes() -> [InspectorState.Grouping: StripIndex]? { Self.take(indexed) }

    /// Whether all three have been taken.
    var isFinished: Bool {
      keyframed.withLock { if case .taken = $0 { true } else { false } }
        && found.withLock { if case .taken = $0 { true } else { false } }
        && indexed.withLock { if case .taken = $0 { true } else { false } }
    }

    func wait() { group.wait() }

    private static func take<Value>(_ result: borrowing Mutex<Progress<Value>>) -> Value? {
      result.withLock { state in
        guard case .done(let value) = state else { return nil }
        state = .taken
        return value
      }
    }
  }
}
