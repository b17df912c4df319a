import ArgumentParser
import Foundation

/// The targets a benchmark run has checked, gathered from its JSON lines, and what `--check`
/// does with them: print every missed target to standard error and exit 1.
///
/// A driver passes every line it writes through ``record(line:)`` (a child's line carries its
/// own `met` and `missed`) or records outcomes it checked itself with ``record(_:)``, then calls
/// ``finish(check:)`` once everything has run, so that one missed target never hides the
/// others.
///
///   var tally = TargetTally(benchmark: "virtual-time")
///   tally.record(outcomes)
///   try tally.finish(check: check)
public struct TargetTally: Sendable {
  private let benchmark: String
  private var checkedLines = 0
  private var missed: [String] = []

  public init(benchmark: String) { self.benchmark = benchmark }

  /// Records the outcomes written on one line.
  public mutating func record(_ outcomes: [TargetOutcome]) {
    guard !outcomes.isEmpty else { return }
    checkedLines += 1
    missed += outcomes.filter { !$0.met }.map(\.description)
  }

  /// Records the targets on a JSON line written by a child: its `met` and `missed` fields. A
  /// line with no `met` had no target.
  public mutating func record(line: String) {
    struct Checked: Decodable {
      var met: Bool?
      var missed: [String]?
    }
    guard let checked = try? JSONDecoder().decode(Checked.self, from: Data(line.utf8)),
      let met = checked.met
    else { return }
    checkedLines += 1
    if !met { missed += checked.missed ?? ["a target on \(line)"] }
  }

  /// Under `--check`, reports the targets on standard error and throws `ExitCode(1)` if any was
  /// missed; without it, does nothing.
  public func finish(check: Bool) throws {
    guard check else { return }
    if checkedLines == 0 {
      printError("[\(benchmark)] check: no target applies to what was measured")
    } else if missed.isEmpty {
      let measurements = checkedLines == 1 ? "1 measurement" : "\(checkedLines) measurements"
      printError("[\(benchmark)] check: every target met (\(measurements) checked)")
    } else {
      printError("[\(benchmark)] check: \(missed.count) target(s) missed:")
      for description in missed { printError("  missed: \(description)") }
      throw ExitCode(1)
    }
  }
}
