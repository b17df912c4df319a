/// A tiny command-line flag reader: `--name value` or `--name=value`, plus bare `--switch`es.
public struct Flags {
  /// A command line that could not be read.
  public struct UsageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
  }

  private var values: [String: String] = [:]
  private var switches: Set<String> = []

  /// Reads `arguments`. Names in `switchNames` take no value; every other `--name` needs one.
  public init(_ arguments: [String], switchNames: Set<String> = []) throws(UsageError) {
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      guard argument.hasPrefix("--"), argument.count > 2 else {
        throw UsageError("unexpected argument '\(argument)'")
      }
      let body = argument.dropFirst(2)
      if let equals = body.firstIndex(of: "=") {
        values[String(body[..<equals])] = String(body[body.index(after: equals)...])
      } else if switchNames.contains(String(body)) {
        switches.insert(String(body))
      } else if let value = remaining.popFirst() {
        values[String(body)] = value
      } else {
        throw UsageError("\(argument) needs a value")
      }
    }
  }

  /// Whether `--name` was given.
  public func isSet(_ name: String) -> Bool { switches.contains(name) || values[name] != nil }

  /// The names given that are not in `known`, for rejecting typos.
  public func unknownNames(known: Set<String>) -> [String] {
    (Set(values.keys).union(switches)).subtracting(known).sorted()
  }

  /// The value of `--name`, if given.
  public func string(_ name: String) -> String? { values[name] }

  /// The comma-separated values of `--name`, or `defaults` if it was not given.
  public func list(_ name: String, default defaults: [String]) -> [String] {
    guard let value = values[name] else { return defaults }
    return value.split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
  }

  /// The comma-separated positive counts of `--name` (underscores allowed: `100_000`), or
  /// `defaults` if it was not given.
  public func counts(_ name: String, default defaults: [Int]) throws(UsageError) -> [Int] {
    guard values[name] != nil else { return defaults }
    var result: [Int] = []
    for item in list(name, default: []) {
      guard let count = Int(item.replacingUnderscores()), count > 0 else {
        throw UsageError("--\(name): '\(item)' is not a positive whole number")
      }
      result.append(count)
    }
    return result
  }
}

extension String {
  fileprivate func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
