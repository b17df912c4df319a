/// How strictly a ``ReplayingSchedulerFactory`` holds the code under test to its trace.
///
/// ```swift
/// let replay = try ReplayingSchedulerFactory(
///   replaying: schedule, options: ReplayOptions(allowsExtraWork: true))
/// ```
public struct ReplayOptions: Sendable, Equatable {
  /// Whether the code may schedule work the trace does not have. When it may, that work runs on
  /// the replay's virtual clock at the time the code asks for (logging, metrics…), between the
  /// recorded runs; when it may not (the default), the first such action stops the replay with
  /// a ``ReplayDivergence``.
  public var allowsExtraWork: Bool
  /// The most runs of extra work between two recorded runs, so that an endless timer the trace
  /// does not have stops the replay (``ReplayError/extraWorkLimitExceeded(limit:position:)``)
  /// instead of hanging it.
  public var extraWorkLimit: Int

  /// Options; by default no extra work is allowed.
  ///
  /// - Parameters:
  ///   - allowsExtraWork: Whether work the trace does not have may run.
  ///   - extraWorkLimit: The most runs of extra work between two recorded runs (at least 1).
  public init(allowsExtraWork: Bool = false, extraWorkLimit: Int = 100_000) {
    self.allowsExtraWork = allowsExtraWork
    self.extraWorkLimit = max(extraWorkLimit, 1)
  }
}
