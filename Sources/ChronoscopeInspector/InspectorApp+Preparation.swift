@_spi(Benchmarks) import ChronoscopeReplay

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
  package var isPreparing: Bool { preparation.isPreparing }

  /// Whether ``findings`` holds every finding of the trace; false while an inspector made by
  /// ``opening(replay:name:timeStep:)`` is still looking for them.
  package var hasFindings: Bool { preparation.hasFindings }

  /// Takes what the other threads have finished since the last call; returns whether the
  /// screen changes (new findings). Cheap: a loop calls it between keys.
  package mutating func takePreparedWork() -> Bool {
    let finished = preparation.takeFinished()
    if let copy = finished.keyframed { replay.adoptKeyframes(from: copy) }
    if let indexes = finished.stripIndexes {
      // One the lanes needed sooner was made on this thread already: the same, kept.
      cache.stripIndexes.merge(indexes) { made, _ in made }
    }
    guard let found = finished.findings else { return false }
    cache.setFindings(found, showingInfo: state.showsInfoFindings)
    if state.laneOrder == .findings { reorderLanes() }
    return true
  }

  /// Waits until the other threads are done, then takes what they made.
  @_spi(Benchmarks) public mutating func finishPreparing() {
    preparation.wait()
    _ = takePreparedWork()
  }
}
