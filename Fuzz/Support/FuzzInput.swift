// Shared by every fuzz target: splits one libFuzzer input into trace bytes and a stream of
// choices, and reads numbers from the choices with a bias towards the edges of their range.

/// One fuzz input: the trace is everything before the first NUL byte, the choices everything
/// after it. An input without a NUL (a plain recording from the seed corpus) uses its own bytes
/// as choices, so every seed drives some steps.
struct FuzzInput {
  let trace: [UInt8]
  private let choices: [UInt8]
  private var next = 0

  init(_ data: UnsafeRawBufferPointer) {
    let bytes = [UInt8](data)
    if let split = bytes.firstIndex(of: 0) {
      trace = Array(bytes[..<split])
      choices = Array(bytes[(split + 1)...])
    } else {
      trace = bytes
      choices = bytes
    }
  }

  /// Whether choices remain.
  var hasMore: Bool { next < choices.count }

  mutating func byte() -> UInt8 {
    guard next < choices.count else { return 0 }
    defer { next += 1 }
    return choices[next]
  }

  mutating func bool() -> Bool { byte() & 1 == 1 }

  /// A value in `0..<count` (0 when `count` is not positive).
  mutating func index(_ count: Int) -> Int {
    guard count > 0 else { return 0 }
    return Int(UInt16(byte()) << 8 | UInt16(byte())) % count
  }

  /// Eight bytes as an `Int64`, or one of the values arithmetic breaks on.
  mutating func int64() -> Int64 {
    switch byte() % 8 {
    case 0: return [.min, .max, .min + 1, .max - 1, 0, -1, 1, 1 << 62][Int(byte() % 8)]
    case 1: return Int64(byte()) - 128
    case 2: return Int64(UInt16(byte()) << 8 | UInt16(byte())) * 1_000_000
    default:
      var value: UInt64 = 0
      for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
      return Int64(bitPattern: value)
    }
  }

  /// An `Int` near `typical` most of the time, sometimes anywhere.
  mutating func int(typical: ClosedRange<Int>) -> Int {
    if byte() % 16 == 0 { return Int(truncatingIfNeeded: int64()) }
    let width = typical.upperBound - typical.lowerBound + 1
    return typical.lowerBound + index(width)
  }

  /// A short string of printable and awkward characters.
  mutating func text(maxLength: Int) -> String {
    let alphabet: [Character] = [
      "a", "e", "q", "m", "i", "n", "#", "1", "2", "0", "9", "s", "u", "µ", ".", " ", "-", ":",
      "x", "t", "h", "r", "é", "界", "\u{1B}", "\u{0}", "\u{7F}", "e", "w", "o", "k", "/",
    ]
    var out = ""
    for _ in 0..<index(maxLength + 1) { out.append(alphabet[Int(byte()) % alphabet.count]) }
    return out
  }
}
