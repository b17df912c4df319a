@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import Dispatch
import Synchronization

extension InspectorApp {
  /// Makes an inspector whose first frame needs only the replay and the lanes' indexes: the
  /// keyframes (which only seeks use) and the findings are made on other threads, and
  /// ``takePreparedWork()`` takes them when they are done. On ten million events that is a
  /// second and more sooner.
  ///
  /// Until then everything shown is still true: seeks land exactly (stepping from the cursor,
  /// slower on a large trace), the title says `⚑ finding…`, and the findings list and `x`/`X`
  /// say the pass is not done.
  @_spi(Benchmarks) public static func opening(
    replay: ReplayEngine, name: String, timeStep: Int64? = nil
  )
    -> InspectorApp
  {
    InspectorApp(replay: replay, name: name, timeStep: timeStep, inTheBackground: true)
  }

  /// Whether keyframes or findings are still being made on other threads.
  package var isPreparing: Bool { preparation != nil }

  /// Takes what the other threads have finished since the last call; returns whether the
  /// screen changes (new findings). Cheap: a loop calls it between keys.
  package mutating func takePreparedWork() -> Bool {
    guard let preparation else { return false }
    if let copy = preparation.takeKeyframed() { replay.adoptKeyframes(from: copy) }
    if let indexes = preparation.takeStripIndexes() {
      // One the lanes needed sooner was made on this thread already: the same, kept.
      cache.stripIndexes.merge(indexes) { made, _ in made }
    }
    var changed = false
    if let found = preparation.takeFindings() {
      cache.setFindings(found, showingInfo: state.showsInfoFindings)
      hasFindings = true
      changed = true
      if state.laneOrder == .findings { reorderLanes() }
    }
    if preparation.isFinished { self.preparation = nil }
    return changed
  }

  /// Waits until the other threads are done, then takes what they made.
  @_spi(Benchmarks) public mutating func finishPreparing() {
    preparation?.wait()
    _ = takePreparedWork()
  }
}

/// The keyframes and the findings of a replay, made on two threads of their own, and then, on
/// the findings' thread, the lanes' indexes for groupings not shown yet. The keyframes are made
/// on a copy of the replay, which shares its prepared tables (so nothing large is copied); the
/// inspector adopts them (``ReplayEngine/adoptKeyframes(from:)``). The indexes come after the
/// findings, not beside them: an index takes about 2 bytes an event and the findings' pass 9
/// bytes an action, and made one after the other they never add up at the peak of opening a
/// large trace.
final class BackgroundPreparation: Sendable {
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

  /// Whether both have been taken.
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
