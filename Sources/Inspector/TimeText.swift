import Foundation

/// Formats and parses virtual times for the inspector.
public enum TimeText {
  /// `1.234567s`: seconds with microsecond precision, the unit users type back with `@`.
  public static func seconds(_ nanoseconds: Int64) -> String {
    let sign = nanoseconds < 0 ? "-" : ""
    let magnitude = nanoseconds.magnitude
    let whole = magnitude / 1_000_000_000
    let micros = (magnitude % 1_000_000_000) / 1_000
    let fraction = String(micros)
    return "\(sign)\(whole).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)s"
  }

  /// A short duration: `850ns`, `12.5µs`, `3.250ms`, `1.500s`.
  public static func duration(_ nanoseconds: Int64) -> String {
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

  /// What a seek prompt asked for.
  public enum Target: Equatable, Sendable {
    /// A virtual time in nanoseconds.
    case time(Int64)
    /// An event number, 1-based as shown in the header.
    case event(Int)
  }

  /// Parses `1.25s`, `300ms`, `40us`/`40µs`, `500ns`, a bare number of seconds, or `#123`.
  public static func parse(_ text: String) -> Target? {
    let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
    if trimmed.hasPrefix("#") {
      return Int(trimmed.dropFirst()).flatMap { $0 >= 0 ? .event($0) : nil }
    }
    let units: [(String, Double)] = [("ns", 1), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
    for (suffix, scale) in units where trimmed.hasSuffix(suffix) {
      return number(trimmed.dropLast(suffix.count), scale: scale)
    }
    return number(trimmed[...], scale: 1e9)
  }

  private static func number(_ text: Substring, scale: Double) -> Target? {
    guard let value = Double(String(text).trimmingCharacters(in: .whitespaces)), value.isFinite,
      value >= 0,
      value * scale < 9.2e18
    else { return nil }
    return .time(Int64((value * scale).rounded()))
  }
}
