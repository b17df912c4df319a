import ChronoscopeScheduling
import ChronoscopeTraceFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a recorder takes its timestamps from.
///
/// ```swift
/// TraceRecorder(path: "run.trace")                                   // host time
/// TraceRecorder(path: "test.trace", clock: .virtual { clock.now })  // virtual time
/// ```
public struct TraceClock: Sendable {
  enum Source: Sendable {
    case host
    case custom(@Sendable () -> Duration)
  }

  let source: Source

  /// The kind written in the trace header.
  public var kind: TraceHeader.ClockKind {
    if case .host = source { .host } else { .virtual }
  }

  /// The host's monotonic clock.
  public static let host = TraceClock(source: .host)

  /// A simulated clock, such as a `VirtualClock`'s `now`; traces of tests then replay exactly.
  /// Its readings are the trace's times — a clock at 5 s records 5 s, however late the recorder
  /// started — except that a clock reading below zero at the start is shifted up to zero.
  public static func virtual(_ now: @escaping @Sendable () -> Duration) -> TraceClock {
    TraceClock(source: .custom(now))
  }

  /// Whether this is the host's clock, which a signal handler may read.
  var isHost: Bool {
    if case .host = source { true } else { false }
  }

  /// The clock's reading in nanoseconds.
  @inline(__always)
  func nanoseconds() -> Int64 {
    switch source {
    case .host:
      var spec = timespec()
      clock_gettime(CLOCK_MONOTONIC, &spec)
      return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
    case .custom(let now):
      return now().clampedNanoseconds
    }
  }
}
