import ChronoscopeCore

/// Where the lane strips are and what trace time each column covers.
struct StripGeometry {
  let start: Int
  let width: Int
  let windowStart: Int64
  let windowEnd: Int64
  let columnSpan: Int64
  /// The lanes' statuses' columns at the right, with the gap before them.
  let countsWidth: Int

  /// - Parameter statusWidth: The widest status of the lanes shown (`busy 358.604ms ×2`):
  ///   the strips end a column before it.
  init(
    width gridWidth: Int, layout: PanelLayout, clock: Int64, span: Int64, end: Int64,
    statusWidth: Int = 0
  ) {
    start = layout.label + 3
    countsWidth = max(14, statusWidth + 1)
    width = max(gridWidth - start - countsWidth - 1, 8)
    let window = Self.window(clock: clock, span: span, end: end)
    windowStart = window.lowerBound
    windowEnd = window.upperBound
    columnSpan =
      windowStart == 0 && windowEnd == end
      // The whole trace, its end in the last column.
      ? end / Int64(width) + 1
      : max(windowEnd.subtracting(saturating: windowStart) / Int64(width), 1)
  }

  /// The trace time the strips show, whatever their width: `span` centred on the cursor, but
  /// never before the trace's start; the whole trace when `span` holds it (`end`, its end).
  static func window(clock: Int64, span: Int64, end: Int64) -> ClosedRange<Int64> {
    let half = max(span / 2, 1)
    let total = half.multiplied(saturating: 2)
    // The whole trace fits (`0`, or zoomed out to its span): all of it, from its start.
    if total >= end { return 0...end }
    let start = max(clock.subtracting(saturating: half), 0)
    return start...start.adding(saturating: total)
  }

  /// The column of trace time `time`, if it is in the window.
  func column(of time: Int64) -> Int? {
    guard time >= windowStart else { return nil }
    let column = time.subtracting(saturating: windowStart) / columnSpan
    return column < Int64(width) ? Int(column) : nil
  }
}
