import ChronoscopeTraceFormat
import Foundation

/// Several processes' traces on one timeline: how far each one's time 0 lies after the earliest.
///
/// Each trace counts time from its own start. A header's `start_ns` (the wall-clock instant of
/// time 0, in nanoseconds) lines traces up to the nanosecond; an older trace has only its ISO 8601
/// `start`, which lines it up to the second; a trace with neither (a reproducible recording)
/// starts with the earliest.
///
/// ```swift
/// let timeline = ProcessTimeline(headers: [client.header, server.header])
/// let serverTime = event.time + timeline.offsets[1]   // on the shared timeline
/// ```
package struct ProcessTimeline: Sendable, Equatable {
  /// How each trace is lined up.
  package enum Alignment: Sendable, Equatable {
    /// By `start_ns`: exact.
    case nanoseconds
    /// By the ISO 8601 `start`: to the second.
    case seconds
    /// Not at all: the header says nothing usable, so the trace starts at the earliest start.
    case unaligned
  }

  /// Nanoseconds to add to each trace's times, in the order of the headers; the earliest is 0.
  package let offsets: [Int64]
  /// How each trace was lined up, in the same order.
  package let alignments: [Alignment]

  package init(headers: [TraceHeader]) {
    let starts: [(Int64?, Alignment)] = headers.map { header in
      if let exact = header.startNanoseconds { return (exact, .nanoseconds) }
      if let seconds = Self.seconds(iso8601: header.start) {
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if !overflow, nanoseconds >= 0 { return (nanoseconds, .seconds) }
      }
      return (nil, .unaligned)
    }
    let earliest = starts.compactMap(\.0).min() ?? 0
    // Both are in 0 … 2^63 - 1 and `earliest` is the smaller, so the difference cannot overflow.
    offsets = starts.map { start, _ in start.map { $0 - earliest } ?? 0 }
    alignments = starts.map(\.1)
  }

  /// Seconds since 1970 of an ISO 8601 instant such as `2026-11-22T10:46:27Z`, if it is one.
  static func seconds(iso8601 text: String) -> Int64? {
    guard !text.isEmpty, text.utf8.count <= 64,
      let date = try? Date(text, strategy: .iso8601), date.timeIntervalSince1970.isFinite
    else { return nil }
    let seconds = date.timeIntervalSince1970.rounded(.down)
    guard seconds >= 0, seconds < 9.2e9 else { return nil }
    return Int64(seconds)
  }
}
