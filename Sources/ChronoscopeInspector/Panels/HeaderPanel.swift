import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

/// The header, the top row of every view: the trace's name, what kind of clock it has, how a
/// followed recording stands, how many findings, how it ended, then the cursor's time and event
/// and the playback.
///
/// ```swift
/// var header = HeaderPanel(name: "busy-app.trace", end: 2_000_000_000, eventCount: 9)
/// header.findingCount = 3  // the header says `⚑ 3 findings`
/// header.draw(into: &grid, theme: Theme(colors: false))
/// ```
struct HeaderPanel: Equatable {
  /// How a followed recording stands.
  enum Following: Equatable {
    /// The recording has closed: nothing more will come.
    case ended
    /// The cursor is at the end, and moves with new events.
    case live
    /// The cursor stays where it is while new events come.
    case behind
  }

  /// How a recording that did not close ended.
  enum Ending: Equatable {
    /// The process crashed on `signal`.
    case crashed(signal: String)
    /// Ctrl-C or `kill` stopped the process with `signal`; it did not crash.
    case stopped(signal: String)
    /// The recording has no close line, and no crash or stop is known.
    case notClosed
  }

  /// The trace's name, cut in its middle to the room left.
  var name: String
  /// The cursor's time.
  var clock: Int64 = 0
  /// The trace's end.
  var end: Int64
  /// The events before the cursor.
  var position = 0
  /// The trace's events.
  var eventCount: Int
  /// Whether the replay plays.
  var playing = false
  /// The playback's speed.
  var speed: Double = 1
  /// Whether the trace's clock is virtual, else the host's.
  var isVirtualClock = true
  /// How the recording being followed stands; nil when it is not followed.
  var following: Following?
  /// The warnings and errors found; nil while they are still being looked for.
  var findingCount: Int? = 0
  /// How the recording ended, when it did not close; nil when it did, or is still written.
  var ending: Ending?

  /// What the header says of the findings: nothing when there are none.
  private var found: String? {
    guard let count = findingCount else { return "⚑ finding…" }
    return count == 0 ? nil : "⚑ \(count) finding\(count == 1 ? "" : "s")"
  }

  /// Draws the header on `grid`'s top row.
  func draw(into grid: inout ScreenGrid, theme: Theme) {
    grid.fill(row: 0, from: 0, to: grid.width, style: theme.header)
    let play = playing ? "▶ playing" : "❚❚ paused"
    let speed = speed >= 1 ? "×\(Int(speed))" : "×1/\(Int((1 / speed).rounded()))"
    var parts = HeaderParts(
      time: "\(TimeText.seconds(clock)) / \(TimeText.seconds(end))",
      event: "event \(position)/\(eventCount)", playing: "\(play) \(speed)",
      brand: "chronoscope",
      clock: isVirtualClock ? "virtual clock" : "host clock",
      followed: following.map {
        switch $0 {
        case .ended: "■ recording ended"
        case .live: "● live"
        case .behind: "◌ following · G live end"
        }
      },
      found: found,
      ending: ending.map {
        switch $0 {
        case .crashed(let signal): "⚠ crashed: \(signal)"
        case .stopped(let signal): "⚠ stopped: \(signal)"
        case .notClosed: "⚠ not closed"
        }
      }
    )
    // Whole parts give way, least telling first: the brand, the clock's kind and a paused state
    // while the name does not fit, the rest while it cannot keep 16 columns. Then the name is cut
    // in its middle to the room left.
    let nameWidth = TextWidth.columns(of: name)
    let first: [WritableKeyPath<HeaderParts, String?>] =
      playing ? [\.brand, \.clock] : [\.brand, \.clock, \.playing]
    for drop in first where parts.otherColumns + nameWidth > grid.width {
      parts[keyPath: drop] = nil
    }
    let then: [WritableKeyPath<HeaderParts, String?>] = [
      \.event, \.playing, \.found, \.ending, \.followed,
    ]
    for drop in then where parts.otherColumns + min(nameWidth, 16) > grid.width {
      parts[keyPath: drop] = nil
    }
    var column = grid.write(
      parts.brand.map { " \($0)  " } ?? " ", row: 0, column: 0, style: theme.header)
    column = grid.write(
      TextWidth.truncatedInMiddle(name, to: max(grid.width - parts.otherColumns, 0)), row: 0,
      column: column, style: theme.header)
    if let clock = parts.clock {
      column = grid.write("  " + clock, row: 0, column: column, style: theme.header)
    }
    for warning in [parts.followed, parts.found, parts.ending].compactMap({ $0 }) {
      column = grid.write("  " + warning, row: 0, column: column, style: theme.headerWarning)
    }
    let right = parts.right
    grid.write(
      right, row: 0, column: max(grid.width - TextWidth.columns(of: right) - 1, 0),
      style: theme.header)
  }
}
