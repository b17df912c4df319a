import Foundation

/// Formats and parses trace times, for the inspector, findings and the command line.
@_spi(Benchmarks) public enum TimeText {
  /// What a figure at `Int64.min` or `Int64.max` shows: traces hold times below 2⁶², so those
  /// values only arise where saturating arithmetic stopped, and the true figure is unknown.
  package static let overflow = "overflow"

  /// `1.234567s`: seconds with microsecond precision, the unit users type back with `@`;
  /// ``overflow`` for `Int64.min` and `Int64.max`.
  package static func seconds(_ nanoseconds: Int64) -> String {
    if nanoseconds == .max || nanoseconds == .min { return overflow }
    let sign = nanoseconds < 0 ? "-" : ""
    let magnitude = nanoseconds.magnitude
    let whole = magnitude / 1_000_000_000
    let micros = (magnitude % 1_000_000_000) / 1_000
    let fraction = String(micros)
    return "\(sign)\(whole).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)s"
  }

  /// A short duration: `850ns`, `12.5µs`, `3.250ms`, `1.500s`; ``overflow`` for `Int64.min` and
  /// `Int64.max`.
  package static func duration(_ nanoseconds: Int64) -> String {
    if nanoseconds == .max || nanoseconds == .min { return overflow }
    let magnitude = Double(nanoseconds.magnitude)
    let sign = nanoseconds < 0 ? "-" : ""
    switch nanoseconds.magnitude {
    case 0..<1_000: return "\(sign)\(nanoseconds.magnitude)ns"
    case 1_000..<1_000_000: return sign + fixed(magnitude / 1e3, 1) + "µs"
    case 1_000_000..<1_000_000_000: return sign + fixed(magnitude / 1e6, 3) + "ms"
    default: return sign + fixed(magnitude / 1e9, 3) + "s"
    }
  }

  private static func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    let text = String(rounded)
    guard let dot = text.firstIndex(of: ".") else {
      return text + "." + String(repeating: "0", count: digits)
    }
    let decimals = text.distance(from: dot, to: text.endIndex) - 1
    return decimals >= digits ? text : text + String(repeating: "0", count: digits - decimals)
  }

  /// What a seek prompt or `show --at` asked for.
  @_spi(Benchmarks) public enum Target: Equatable, Sendable {
    /// A trace time in nanoseconds.
    case time(Int64)
    /// An event by number (1-based, as shown, written `e120`); `e0` is the start.
    case event(Int)
    /// The moment an action was scheduled (written `#12`, as actions are everywhere).
    case action(ActionID)
  }

  /// Why a seek target could not be read.
  package struct TargetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What to tell the user.
    package let description: String
  }

  /// Parses `1.25s`, `300ms`, `40us`/`40µs`, `500ns`, `0` (the start), `e120` (an event) or `#12`
  /// (an action).
  package static func parse(_ text: String) -> Target? {
    try? target(text).get()
  }

  /// Parses a seek target, or says what is wrong with it.
  package static func target(_ text: String) -> Result<Target, TargetError> {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    func failure(_ reason: String) -> Result<Target, TargetError> {
      .failure(TargetError(description: reason))
    }
    if trimmed.hasPrefix("#") {
      guard let id = ActionID(parsing: trimmed) else {
        return failure("\"\(text)\" is not an action id (actions are written #12)")
      }
      return .success(.action(id))
    }
    if trimmed.hasPrefix("e"), let number = Int(trimmed.dropFirst()) {
      return number >= 0
        ? .success(.event(number)) : failure("event numbers start at e0 (the start)")
    }
    if trimmed.hasPrefix("-") { return failure("times start at 0s; \"\(text)\" is before it") }
    let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
    for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
      guard let time = number(trimmed.dropLast(suffix.count), scale: scale) else {
        return failure("cannot read \"\(text)\" as a time (try 1.25s, 300ms, 40us)")
      }
      return .success(.time(time))
    }
    // Zero is the same instant in every unit: `--at 0` is the start.
    if Double(trimmed) == 0 { return .success(.time(0)) }
    if Double(trimmed) != nil {
      return failure(
        "\"\(text)\" needs a unit: \(trimmed)s, \(trimmed)ms… (or e\(trimmed) for an event)")
    }
    return failure(
      "cannot read \"\(text)\" (try 1.25s, 300ms, e120 for an event, #12 for an action)")
  }

  private static func number(_ text: Substring, scale: Double) -> Int64? {
    guard let value = Double(String(text).trimmingCharacters(in: .whitespaces)), value.isFinite,
      value >= 0,
      value * scale < 9.2e18
    else { return nil }
    return Int64((value * scale).rounded())
  }
}
