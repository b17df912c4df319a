import Foundation

extension JSONWriter {
  /// `keys` in the order `JSONSerialization`'s `.sortedKeys` writes them (a numeric,
  /// case-insensitive comparison in the system locale: `<1ms`, `>1s`, `1-10ms`, `10-100ms`), so
  /// that documents the commands wrote with it before read the same, byte for byte.
  ///
  /// - Complexity: O(n log n) comparisons of strings.
  package static func sortedKeys(_ keys: some Sequence<String>) -> [String] {
    keys.sorted(by: keyPrecedes)
  }

  /// Whether `a` comes before `b` in ``sortedKeys(_:)`` order.
  package static func keyPrecedes(_ a: String, _ b: String) -> Bool {
    a.compare(
      b, options: [.numeric, .caseInsensitive, .forcedOrdering], range: a.startIndex..<a.endIndex,
      locale: NSLocale.system as Locale) == .orderedAscending
  }

  /// `{"key":"value",…}` with the keys in ``sortedKeys(_:)`` order.
  package func object(_ pairs: [String: String]) {
    objectStart()
    for key in Self.sortedKeys(pairs.keys) {
      self.key(key)
      value(pairs[key] ?? "")
    }
    objectEnd()
  }
}
