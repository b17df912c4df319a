/// One JSON object written on one line, keys in the order they were added.
public struct JSONLine: CustomStringConvertible, Sendable {
  /// A JSON value this type can write.
  public enum Value: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case object(JSONLine)
    case array([Value])
  }

  private var fields: [(key: String, value: Value)] = []

  public init() {}

  /// Adds `key`; a nil value leaves the key out.
  public mutating func add(_ key: String, _ value: Value?) {
    if let value { fields.append((key, value)) }
  }

  public var description: String {
    "{" + fields.map { "\(quoted($0.key)):\(render($0.value))" }.joined(separator: ",") + "}"
  }

  private func render(_ value: Value) -> String {
    switch value {
    case .string(let string): return quoted(string)
    case .int(let int): return String(int)
    case .double(let double): return double.isFinite ? String(double) : "null"
    case .bool(let bool): return bool ? "true" : "false"
    case .object(let object): return object.description
    case .array(let values): return "[" + values.map(render).joined(separator: ",") + "]"
    }
  }

  private func quoted(_ string: String) -> String {
    var result = "\""
    for scalar in string.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\r": result += "\\r"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result + "\""
  }
}

/// `value` rounded to `places` decimal places, for readable output.
public func rounded(_ value: Double, places: Int) -> Double {
  var scale = 1.0
  for _ in 0..<places { scale *= 10 }
  return (value * scale).rounded() / scale
}

/// A duration in seconds.
public func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
