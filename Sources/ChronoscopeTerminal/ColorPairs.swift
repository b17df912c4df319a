import CChronoscopeNCursesW
@_spi(Benchmarks) import ChronoscopeScreen

/// ncurses colour pairs, allocated the first time a foreground/background combination is drawn.
///
/// Pair 0 is the terminal's default colours. When the terminal has run out of pairs (a plain
/// `xterm` has 64, fewer than the 80 combinations), further combinations draw in pair 0: the
/// attributes still show, only the colour is lost.
struct ColorPairs {
  /// Whether the terminal can draw its own default colours (`use_default_colors` worked); when it
  /// cannot, "default" means white on black.
  private let hasDefaultColors: Bool
  private let limit: Int
  private var pairs: [UInt8: Int16] = [:]

  init(hasDefaultColors: Bool, limit: Int) {
    self.hasDefaultColors = hasDefaultColors
    self.limit = min(limit, Int(Int16.max))
  }

  /// The pair for a style's colours, allocating it if needed.
  mutating func pair(foreground: Style.Color?, background: Style.Color?) -> Int16 {
    if foreground == nil, background == nil { return 0 }
    // 9 × 9 keys: 0...7 for the colours, 8 for "default".
    let key = (foreground.map(\.rawValue) ?? 8) * 9 + (background.map(\.rawValue) ?? 8)
    if let pair = pairs[key] { return pair }
    let next = pairs.count + 1
    guard next < limit else { return 0 }
    let pair = Int16(next)
    guard
      init_pair(
        pair, number(foreground, default: COLOR_WHITE), number(background, default: COLOR_BLACK))
        == OK
    else { return 0 }
    pairs[key] = pair
    return pair
  }

  private func number(_ color: Style.Color?, default fallback: Int32) -> Int16 {
    if let color { return Int16(color.rawValue) }  // Style.Color's order is the ANSI order.
    return Int16(hasDefaultColors ? -1 : fallback)
  }
}
