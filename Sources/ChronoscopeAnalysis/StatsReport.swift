@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// The figures of one or more traces as `chronoscope stats` reports them: the document
/// `stats --json` prints (schema `chronoscope-stats`, docs/Stats.md), made from
/// ``TraceStatistics``; its text is ``TraceStatistics/textLines(file:)``.
///
/// Stream it with ``writeJSON(_:to:)`` (each scheduler written as it is reached, never a tree of the
/// document), or build it and read it back with `JSONDecoder`:
///
/// ```swift
/// let report = try JSONDecoder().decode(StatsReport.self, from: data)
/// let busiest = report.files.first?.schedulers.max { $0.utilisation < $1.utilisation }
/// ```
@_spi(Benchmarks) public struct StatsReport: Codable, Sendable, Equatable {
  /// `chronoscope-stats`.
  package var schema = StatsReport.schemaName
  /// The schema's version; a newer version only adds fields.
  package var version = StatsReport.currentVersion
  /// One entry per trace, in the order given.
  package var files: [File]

  /// The value of ``schema``.
  package static let schemaName = "chronoscope-stats"
  /// The value of ``version`` this library writes.
  package static let currentVersion = 1

  /// Makes a report of `files`.
  package init(files: [File]) { self.files = files }

  /// The figures of one trace (or of the processes of one run, merged).
  package struct File: Codable, Sendable, Equatable {
    /// The file's name as given.
    package var file: String
    /// The trace's end (ns): its `close` or `crash` line's time, else its last event's.
    package var spanNanoseconds: Int64
    package var schedulers: [Scheduler]
    package var threads: [Thread]
    /// Begins in each sixtieth of the trace.
    package var activity: [Int]
    /// Timer work by lateness, keyed by ``TraceStatistics/latenessBuckets``.
    package var latenessHistogram: [String: Int]

    enum CodingKeys: String, CodingKey {
      case file, schedulers, threads, activity
      case spanNanoseconds = "span_ns"
      case latenessHistogram = "lateness_histogram"
    }

    /// The entry of `statistics`, the figures of the trace `file`.
    package init(file: String, statistics: TraceStatistics) {
      self.file = file
      spanNanoseconds = statistics.span
      schedulers = statistics.schedulers.map(Scheduler.init)
      threads = statistics.threads.map(Thread.init)
      activity = statistics.activity
      latenessHistogram = Dictionary(
        zip(TraceStatistics.latenessBuckets, statistics.latenessHistogram), uniquingKeysWith: +)
    }
  }

  /// One scheduler's counts and figures.
  package struct Scheduler: Codable, Sendable, Equatable {
    package var schedulerID: Int
    package var label: String
    /// `serial`, `concurrent`, `main`…, as the trace's `scheduler` line says.
    package var kind: String
    package var scheduled: Int
    package var ran: Int
    package var cancelled: Int
    package var lost: Int
    package var runs: Int
    package var peakConcurrency: Int
    /// Run time over the trace's span (above 1 when runs overlapped).
    package var utilisation: Double
    package var latenessNanoseconds: Distribution
    package var waitNanoseconds: Distribution
    package var runNanoseconds: Distribution
    /// The 100 ms window with the most run time; absent for a scheduler that never ran.
    package var busiest100ms: Window?

    /// A 100 ms window: where it starts and how much of it the scheduler ran.
    package struct Window: Codable, Sendable, Equatable {
      package var startNanoseconds: Int64
      package var busyNanoseconds: Int64

      enum CodingKeys: String, CodingKey {
        case startNanoseconds = "start_ns"
        case busyNanoseconds = "busy_ns"
      }
    }

    enum CodingKeys: String, CodingKey {
      case label, kind, scheduled, ran, cancelled, lost, runs, utilisation
      case schedulerID = "scheduler_id"
      case peakConcurrency = "peak_concurrency"
      case latenessNanoseconds = "lateness_ns"
      case waitNanoseconds = "wait_ns"
      case runNanoseconds = "run_ns"
      case busiest100ms = "busiest_100ms"
    }

    /// The entry of `scheduler`.
    package init(_ scheduler: TraceStatistics.Scheduler) {
      schedulerID = Int(scheduler.id.rawValue)
      label = scheduler.label
      kind = scheduler.kind
      scheduled = scheduler.scheduled
      ran = scheduler.ran
      cancelled = scheduler.cancelled
      lost = scheduler.lost
      runs = scheduler.runs
      peakConcurrency = scheduler.peakConcurrency
      utilisation = scheduler.utilisation
      latenessNanoseconds = Distribution(scheduler.lateness)
      waitNanoseconds = Distribution(scheduler.wait)
      runNanoseconds = Distribution(scheduler.duration)
      busiest100ms = scheduler.busiestWindow.map {
        Window(startNanoseconds: $0.start, busyNanoseconds: $0.busy)
      }
    }
  }

  /// How many values, and their percentiles (absent when there are none).
  package struct Distribution: Codable, Sendable, Equatable {
    package var count: Int
    package var p50: Int64?
    package var p90: Int64?
    package var p99: Int64?
    package var max: Int64?

    /// The entry of `values`.
    package init(_ values: TraceStatistics.Distribution) {
      count = values.count
      p50 = values.p50
      p90 = values.p90
      p99 = values.p99
      max = values.max
    }
  }

  /// One thread's busy time.
  package struct Thread: Codable, Sendable, Equatable {
    package var threadID: Int
    package var title: String
    package var busyNanoseconds: Int64

    enum CodingKeys: String, CodingKey {
      case title
      case threadID = "thread_id"
      case busyNanoseconds = "busy_ns"
    }

    /// The entry of `thread`.
    package init(_ thread: TraceStatistics.Thread) {
      threadID = Int(thread.id.rawValue)
      title = thread.title
      busyNanoseconds = thread.busy
    }
  }
}
