/// What ended a ``waitUntil(timeout:_:)``.
public enum WaitOutcome: Sendable, Equatable {
  /// The condition held.
  case satisfied
  /// The deadline passed first.
  case timedOut
}
