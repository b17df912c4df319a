/// A bound one measured figure must keep, as the project's issues state them: `ns_per_event`
/// at most 50, `ratio` at least 0.8.
///
/// A measurement checks its targets with ``outcome(_:context:)`` and writes the outcomes on its
/// JSON line (``JSONLine/add(_:)``); a driver gathers them in a ``TargetTally`` and, under
/// `--check`, exits 1 when one was missed.
public struct Target: Sendable {
  /// Which side of the limit the figure must stay on.
  public enum Bound: Sendable {
    case atMost
    case atLeast
  }

  /// The JSON field of the figure this bounds, such as `ns_per_event`.
  public let field: String
  /// The JSON field the limit is written under; `target_` + ``field`` unless a line has long
  /// used another name (`target_ms` for every replay time).
  public let key: String
  public let bound: Bound
  public let limit: Double

  /// A target `figure ≤ limit`.
  public static func atMost(_ limit: Double, _ field: String, key: String? = nil) -> Target {
    Target(field: field, key: key ?? "target_" + field, bound: .atMost, limit: limit)
  }

  /// A target `figure ≥ limit`.
  public static func atLeast(_ limit: Double, _ field: String, key: String? = nil) -> Target {
    Target(field: field, key: key ?? "target_" + field, bound: .atLeast, limit: limit)
  }

  /// Checks `measured` against the limit; a value that is not a number misses it.
  ///
  /// - Parameters:
  ///   - measured: the figure, as written on the JSON line.
  ///   - context: what was measured, for the message when the target is missed
  ///     (`recording-hot-path threads=2`).
  public func outcome(_ measured: Double, context: String) -> TargetOutcome {
    let met: Bool
    switch bound {
    case .atMost: met = measured <= limit
    case .atLeast: met = measured >= limit
    }
    return TargetOutcome(target: self, measured: measured, context: context, met: met)
  }
}

/// One target checked against one measurement.
public struct TargetOutcome: Sendable, CustomStringConvertible {
  public let target: Target
  public let measured: Double
  public let context: String
  public let met: Bool

  /// `recording-hot-path threads=1: ns_per_event 138.3, target ≤ 50`.
  public var description: String {
    let symbol = target.bound == .atMost ? "≤" : "≥"
    return "\(context): \(target.field) \(formatted(measured)), target \(symbol) "
      + formatted(target.limit)
  }
}

extension JSONLine {
  /// Writes checked targets: each target's limit under its key (once per key), then `met`, true
  /// when every one was met, and, when one was missed, `missed`: each missed target as a
  /// sentence. Writes nothing for no outcomes: no target applies.
  public mutating func add(_ outcomes: [TargetOutcome]) {
    guard !outcomes.isEmpty else { return }
    var keys: Set<String> = []
    for outcome in outcomes where keys.insert(outcome.target.key).inserted {
      add(outcome.target.key, number(outcome.target.limit))
    }
    add("met", .bool(outcomes.allSatisfy(\.met)))
    let missed = outcomes.filter { !$0.met }
    if !missed.isEmpty {
      add("missed", .array(missed.map { .string($0.description) }))
    }
  }
}

/// A whole number as an integer (`50`, not `50.0`), anything else as it is.
func number(_ value: Double) -> JSONLine.Value {
  if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return .int(Int(value)) }
  return .double(value)
}

/// `value` for a message: whole numbers without a fraction, others to four significant digits.
func formatted(_ value: Double) -> String {
  if case .int(let int) = number(value) { return String(int) }
  guard value.isFinite, abs(value) < 1e15 else { return String(value) }
  var places = 0
  var magnitude = abs(value)
  while magnitude < 1000, magnitude > 0, places < 6 {
    magnitude *= 10
    places += 1
  }
  return places == 0 ? String(Int(value.rounded())) : String(rounded(value, places: places))
}
