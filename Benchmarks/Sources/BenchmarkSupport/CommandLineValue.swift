/// Reads the values benchmarks take on their command lines, for `@Option(transform:)`: counts
/// such as `100_000` and comma-separated lists such as `1000,4000,16000` or `ours,floor`.
///
/// Each function throws ``InvalidValue``, whose message swift-argument-parser prints after the
/// option's name: `The value 'x' is invalid for '--libraries <libraries>': unknown 'x' …`.
public enum CommandLineValue {
  /// A positive whole number; underscores may group its digits (`1_000_000`).
  public static func count(_ text: String) throws(InvalidValue) -> Int {
    guard let count = Int(text.filter { $0 != "_" }), count > 0 else {
      throw InvalidValue("'\(text)' is not a positive whole number")
    }
    return count
  }

  /// Comma-separated positive whole numbers (`1000,4000,16000`); empty items are skipped, so
  /// `''` is the empty list.
  public static func counts(_ text: String) throws(InvalidValue) -> [Int] {
    var result: [Int] = []
    for item in text.split(separator: ",") where !item.isEmpty {
      result.append(try count(String(item)))
    }
    return result
  }

  /// Comma-separated names of `Value`'s cases, in the order given, each once.
  public static func list<Value: RawRepresentable & CaseIterable & Equatable>(
    _ text: String
  ) throws(InvalidValue) -> [Value] where Value.RawValue == String {
    var result: [Value] = []
    for item in text.split(separator: ",") where !item.isEmpty {
      guard let value = Value(rawValue: String(item)) else {
        let known = Value.allCases.map(\.rawValue).joined(separator: ", ")
        throw InvalidValue("unknown '\(item)' (known: \(known))")
      }
      if !result.contains(value) { result.append(value) }
    }
    return result
  }
}

/// A command-line value that could not be read; its description says why.
public struct InvalidValue: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}
