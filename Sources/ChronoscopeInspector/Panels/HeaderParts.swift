import ChronoscopeCore

/// What the header says: ` chronoscope  NAME  virtual clock  ⚑ 3 findings` on the left, then
/// `1.2s / 2s  event 5/9  ❚❚ paused ×1 ` on the right. All but the time give way, whole, on a
/// narrow screen.
struct HeaderParts {
  let time: String
  var event, playing, brand, clock, followed, found, ending: String?

  /// The right-hand side.
  var right: String { [time, event, playing].compactMap { $0 }.joined(separator: "  ") }

  /// The columns everything but the name takes, with the space between the sides.
  var otherColumns: Int {
    func width(_ text: String?) -> Int { text.map { TextWidth.columns(of: $0) + 2 } ?? 0 }
    return 1 + width(brand) + width(clock) + width(followed) + width(found) + width(ending) + 1
      + TextWidth.columns(of: right) + 1
  }
}
