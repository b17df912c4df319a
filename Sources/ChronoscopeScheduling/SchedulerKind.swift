/// How a scheduler runs the work given to it.
public enum SchedulerKind: String, Sendable, Hashable, CaseIterable {
  /// One action at a time, first in, first out.
  case serial
  /// Actions may run at the same time on different threads.
  case concurrent
  /// The main thread (or, for inline families, the caller's thread standing in for it).
  case main
}
