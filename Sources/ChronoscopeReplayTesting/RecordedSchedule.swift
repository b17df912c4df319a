@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat

/// The order a trace recorded, read once and replayed as often as a test likes: which actions
/// ran, named as `chronoscope diff` names them (scheduler label, function or call site,
/// occurrence), when each run began from the trace's first event, and in which order.
///
/// ```swift
/// let schedule = try RecordedSchedule(contentsOf: "Recordings/stale-response.trace")
/// for _ in 1...1_000 {
///   let replay = ReplayingSchedulerFactory(replaying: schedule)
///   …
/// }
/// ```
public struct RecordedSchedule: Sendable {
  /// The trace's name as given, for reports.
  public let name: String
  /// Where the trace's times count from, in its own time (ns): its first event.
  public let originNanoseconds: Int64
  /// The trace's actions with their keys and runs, and its runs in begin order: what `diff`
  /// compares.
  package let side: RecordedRuns
  /// Each recorded action's parent (the action whose run scheduled it), by index in
  /// ``side``'s actions: what tells apart two actions of one key scheduled crosswise.
  package let parents: [Int?]

  /// Reads the trace at `path` with the trace reader.
  ///
  /// - Throws: ``ReplayError/unreadable(path:reason:diagnostics:)`` with the reader's errors
  ///   (file, line, column and reason) when the file is not a trace or has errors.
  public init(contentsOf path: String) throws(ReplayError) {
    let (reading, replay) = ReplayEngine.read(path: path, makingKeyframes: false)
    guard let replay else {
      throw .unreadable(
        path: path, reason: reading.notATrace,
        diagnostics: reading.diagnostics.filter { $0.severity == .error })
    }
    self.init(replay, name: path)
  }

  /// The schedule `replay` recorded; `name` names it in reports.
  ///
  /// - Complexity: O(actions + events).
  package init(_ replay: ReplayEngine, name: String) {
    self.name = name
    originNanoseconds = replay.firstEventTime
    side = RecordedRuns(replay, origin: originNanoseconds)
    parents = replay.actionIndices.map { replay.action($0).parent?.int }
  }

  /// How many runs the trace recorded: the steps of its replay.
  public var runCount: Int { side.begins.count }
}
