import ChronoscopeCore

/// An instant on a scheduler's clock, for work due at an absolute time (swift-nio's
/// `scheduleTask(deadline:)`, Combine's `schedule(after:)` with a date).
///
/// Live and immediate schedulers count the host's monotonic time (as `DispatchTime` does:
/// nanoseconds since boot, not counting sleep on Apple platforms); virtual schedulers count their
/// clock's time since it started. Take instants from the scheduler that will run the work:
///
/// ```swift
/// let deadline = scheduler.now + .seconds(5)
/// scheduler.at(deadline) { giveUp() }
/// ```
public struct SchedulerInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Nanoseconds since the clock's origin.
  public var nanoseconds: Int64

  /// The instant `nanoseconds` after the scheduler's start.
  public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

  /// The instant `duration` later (saturating at the ends of the range).
  public static func + (instant: SchedulerInstant, duration: Duration) -> SchedulerInstant {
    SchedulerInstant(
      nanoseconds: instant.nanoseconds.adding(saturating: duration.clampedNanoseconds))
  }

  /// The instant `duration` earlier (saturating at the ends of the range).
  public static func - (instant: SchedulerInstant, duration: Duration) -> SchedulerInstant {
    instant + (.zero - duration)
  }

  /// How long from `earlier` to `later` (saturating).
  public static func - (later: SchedulerInstant, earlier: SchedulerInstant) -> Duration {
    .nanoseconds(later.nanoseconds.subtracting(saturating: earlier.nanoseconds))
  }

  public static func < (lhs: SchedulerInstant, rhs: SchedulerInstant) -> Bool {
    lhs.nanoseconds < rhs.nanoseconds
  }

  public var description: String { "\(Duration.nanoseconds(nanoseconds))" }
}
