@_spi(Benchmarks) import ChronoscopeAnalysis
import ChronoscopeCore

/// A process's findings as the export draws them: one instant each while they are few, and
/// beyond ``instantLimit`` one window per stretch of findings of one kind close together.
///
/// A viewer takes in a few thousand instants at once, but a busy trace can have hundreds of
/// thousands of findings (233,000 on a million events), which took Perfetto seconds to load
/// and draw as one crowded track anyway. Windowed, a kind's findings within a
/// 1/``spanFraction`` of the trace from the first of them are one window: at most about
/// ``spanFraction`` windows a kind, each saying how many findings it holds, so that where the
/// findings are dense still shows.
struct FindingWindows {
  /// Findings one after another in time, of one kind.
  struct Window {
    var kind: Finding.Kind
    var first: Finding
    var last: Finding
    var count: Int
    /// The most severe of its findings.
    var severity: Finding.Severity
  }

  /// The most findings a process exports one instant each.
  static let instantLimit = 10_000
  /// A window lasts at most the trace's length divided by this.
  static let spanFraction: Int64 = 2_000

  /// The windows, each kind's in time order, kinds in their order; nil when the findings are
  /// few enough to be instants.
  ///
  /// - Parameter end: The trace's end, from which the windows' span is made.
  /// - Complexity: O(n log n) for n findings.
  static func windows(of findings: [Finding], end: Int64) -> [Window]? {
    guard findings.count > instantLimit else { return nil }
    let span = max(end / spanFraction, 1)
    let ordered = findings.sorted { ($0.kind, $0.time) < ($1.kind, $1.time) }
    var windows: [Window] = []
    for finding in ordered {
      if var window = windows.last, window.kind == finding.kind,
        finding.time.subtracting(saturating: window.first.time) <= span
      {
        window.last = finding
        window.count += 1
        window.severity = max(window.severity, finding.severity)
        windows[windows.count - 1] = window
      } else {
        windows.append(
          Window(
            kind: finding.kind, first: finding, last: finding, count: 1,
            severity: finding.severity))
      }
    }
    return windows
  }
}
