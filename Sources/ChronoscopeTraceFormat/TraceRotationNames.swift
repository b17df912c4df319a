/// The names of a rotating recording's files (`--max-bytes`, `CHRONOSCOPE_TRACE_MAX_BYTES`): the
/// newest has the recording's path, older ones a generation number before its extension —
/// `app.trace`, `app.1.trace`, `app.2.trace`…, or `app`, `app.1`… without one. The recorder
/// names them and `chronoscope record` finds them by the same rule.
package enum TraceRotationNames {
  /// The path of the `generation`th older file of the recording at `path` (`app.2.trace` for
  /// `app.trace` and 2); `path` itself for generation 0.
  package static func rotatedPath(_ path: String, generation: Int) -> String {
    guard generation > 0 else { return path }
    let (stem, suffix) = split(path)
    return "\(stem).\(generation)\(suffix)"
  }

  /// The generation of the file named `name` in a recording whose newest file is named `base`
  /// (both file names, no folder): 0 for `base` itself, N for its Nth older file, nil for any
  /// other name.
  package static func generation(of name: String, base: String) -> Int? {
    if name == base { return 0 }
    let (stem, suffix) = split(base)
    guard name.hasPrefix(stem + "."), name.hasSuffix(suffix),
      name.utf8.count > stem.utf8.count + 1 + suffix.utf8.count
    else { return nil }
    let digits = name.utf8.dropFirst(stem.utf8.count + 1).dropLast(suffix.utf8.count)
    guard digits.first != UInt8(ascii: "0"), digits.count <= 9,
      digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
  }

  /// `path` as its part before the extension and the extension with its dot (`.trace`), or ""
  /// when the file name has none (a leading dot starts no extension).
  package static func split(_ path: String) -> (stem: String, suffix: String) {
    let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    guard let dot = path[nameStart...].lastIndex(of: "."), dot > nameStart,
      path.index(after: dot) < path.endIndex
    else { return (path, "") }
    return (String(path[..<dot]), String(path[dot...]))
  }
}
