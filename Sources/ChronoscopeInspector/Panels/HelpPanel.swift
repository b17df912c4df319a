import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

/// The help: the keys, the notation and what the glyphs mean, scrolled where the screen is
/// shorter than it.
struct HelpPanel: Equatable {
  /// One row of the help.
  struct Row: Equatable {
    /// The key, on an explanation's first row; a section's title; else empty.
    var key: String
    /// The explanation's words on this row.
    var text: String
    /// Whether the row is a section's title.
    var isTitle: Bool
  }

  /// Whether the trace's clock is virtual, which `space` explains.
  var isVirtualClock: Bool
  /// How far `t`/`T` move.
  var timeStep: Int64
  /// The help's first row on screen (see ``InspectorState/helpScroll``).
  var scroll = 0

  /// The help's rows at a width, each explanation in words over as many rows as it needs.
  func rows(width: Int) -> [Row] {
    let clock =
      isVirtualClock
      ? "play / pause: virtual time runs at speed × wall time"
      : "play / pause: the recorded (host) time replays at speed × wall time"
    let keys: [(String, String)] = [
      ("space", clock),
      ("n p  → ←", "next / previous event"), ("] [", "next / previous event on the selected lane"),
      ("m M", "next / previous mark"), ("x X  !", "next / previous finding; the list of findings"),
      ("+ -", "faster / slower playback"),
      ("t T", "time forward / back by \(TimeText.duration(timeStep))"),
      ("z Z  0", "zoom the lane strips in / out around the cursor; 0 shows the whole trace"),
      ("g G Home End", "start / end of the trace"),
      ("@", "seek: a time (1.25s, 300ms, 40us), an event (e120) or an action (#12)"),
      (
        "/",
        "search labels, sites, marks, threads, named work; label: site: mark: thread: name: #12; n N"
      ),
      ("f", "filter lanes by name (Pending, Running, Events follow)"),
      ("v", "lanes by scheduler / thread / task"), ("j k tab", "move the selection / next panel"),
      ("enter", "details of the selected action (or event's); there, follow a related action"),
      (
        "mouse",
        "click selects a lane or row; the wheel scrolls, over the strips or with Ctrl zooms"
      ),
      ("w", "in details or a finding: why the action was late, and what held it up"),
      ("o h", "lanes in trace order / by name / activity / findings; hide idle lanes (see below)"),
      ("esc", "back (through followed actions); clear the search"), ("? q", "this help / quit"),
    ]
    let legend: [(String, String)] = [
      ("#12  e120", "#12 is an action (its id in the trace); e120 is the 120th event"),
      ("s ▶ ━ █", "scheduled, began, running (begin to end), ended; the most telling event wins"),
      ("× ↷ ◆ ! │", "cancelled, hopped, marked (all marks: a row under the lanes), a finding, now"),
      ("2p 1r", "a scheduler's pending and running actions now; a thread shows busy for how long"),
      (
        "·2  idle",
        "the 2nd lane of a repeated name; idle: no event in view, nothing pending/running"
      ),
      (
        "due in/late", "when pending work is due, counted from now; repeating work keeps its rhythm"
      ),
    ]
    var rows = [Row(key: " Keys", text: "", isTitle: true)]
    for (title, section) in [("", keys), (" Reading the screen", legend)] {
      if !title.isEmpty {
        rows += [
          Row(key: "", text: "", isTitle: false), Row(key: title, text: "", isTitle: true),
        ]
      }
      for (key, text) in section {
        for (offset, line) in TextWidth.wrapped(text, to: width - 17, rows: 4).enumerated() {
          rows.append(Row(key: offset == 0 ? key : "", text: line, isTitle: false))
        }
      }
    }
    return rows
  }

  /// The most the help scrolls at a screen's size: so that `k` after many `j` moves it at once.
  func scrollLimit(width: Int, height: Int) -> Int {
    max(rows(width: width).count - (height - 3), 0)
  }

  /// Draws the help from row 2 down to the status bar, from its row ``scroll``.
  func draw(into grid: inout ScreenGrid, theme: Theme) {
    let rows = rows(width: grid.width)
    let room = grid.height - 3
    let first = min(max(scroll, 0), max(rows.count - room, 0))
    for (offset, line) in rows.dropFirst(first).prefix(room).enumerated() {
      let row = 2 + offset
      if line.isTitle {
        grid.write(line.key, row: row, column: 1, style: theme.title)
        continue
      }
      grid.write(line.key, row: row, column: 3, style: theme.title)
      grid.write(line.text, row: row, column: 16)
    }
  }
}
