import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

/// One action's whole life: what it is, where and when it was scheduled, its runs, whether it
/// was cancelled, where it stands now, then the actions it is related to.
struct DetailPanel {
  /// One run of the action, its threads by title.
  struct Run: Equatable {
    /// Which run, from 1.
    var number: Int
    /// When it was due.
    var due: Int64
    /// When it began.
    var began: Int64
    /// When it ended, if it did.
    var ended: Int64?
    /// The thread it ran on.
    var thread: String
    /// The thread it hopped from, if it did.
    var hoppedFrom: String?
  }

  /// Where the action was scheduled in the source.
  struct CallSite: Equatable {
    var file: String
    var line: Int
    var function: String
  }

  /// The action's id in the trace: `#12`.
  var id: String
  /// How it was scheduled: `after`, `repeating`…
  var mode: TraceEvent.ScheduleMode
  /// The name the app gave its work and the fields it named; nil when it named none.
  var work: (name: String, fields: [String: String])?
  /// The ids of the actions followed to reach this one, oldest first; empty when none were.
  var trail: [String] = []
  /// Its scheduler: `app.db ·2 (serial, dispatch)`.
  var scheduler: String
  /// Its Swift task and how much work that has: `task 3, whose work is 2 actions`.
  var task: String?
  /// When and where it was scheduled: `at 1.2s on main`.
  var scheduled: String
  /// Where in the source it was scheduled.
  var callSite: CallSite?
  /// Its delay (or interval), and when it was due first.
  var delay: Int64 = 0
  var due: Int64
  /// How many times it ran.
  var runCount: Int
  /// The runs shown, each with its place among the ``runCount`` (see ``shownRuns(of:)``).
  var runs: [(index: Int, run: Run)] = []
  /// When it was cancelled, and whether it had started then.
  var cancelled: (at: Int64, afterStart: Bool)?
  /// Where it stands at the cursor.
  var status: ActionStatus
  /// The cursor's time, from which a pending action's due time is counted.
  var clock: Int64
  /// The actions it is related to.
  var links: ActionLinksPanel

  /// The places among `count` runs of the runs the page may show: the first four and the last
  /// four (fewer where the screen is short).
  static func shownRuns(of count: Int) -> [Int] {
    count > 8 ? Array((0..<4)) + Array((count - 4)..<count) : Array(0..<count)
  }

  /// Draws the page from row 2 down to the status bar.
  func draw(into grid: inout ScreenGrid, theme: Theme) {
    var lines: [(String, String)] = []
    if let work {
      if !work.name.isEmpty { lines.append(("name", work.name)) }
      for (key, value) in work.fields.sorted(by: { $0.key < $1.key }) {
        lines.append((key, value))
      }
    }
    lines.append(("scheduler", scheduler))
    if let task { lines.append(("task", task)) }
    lines.append(("scheduled", scheduled))
    if let callSite {
      // The file name and line stay whole: the function gives way at its end, then the path at
      // its front.
      let place = CallSiteRecord.place(file: callSite.file, line: callSite.line)
      let whole = "\(place) in \(callSite.function)"
      let room = grid.width - 17
      lines.append(
        (
          "call site",
          TextWidth.columns(of: whole) <= room
            ? whole
            : TextWidth.columns(of: place) + 6 <= room
              ? TextWidth.truncatedName(whole, to: room) : TextWidth.truncatedPath(place, to: room)
        ))
    }
    switch mode {
    case .after:
      lines.append(("delay", "\(TimeText.duration(delay)), due \(TimeText.seconds(due))"))
    case .repeating:
      lines.append(
        (
          "interval",
          "\(TimeText.duration(delay)), first due \(TimeText.seconds(due)); run k is due first due + (k−1) × interval"
        ))
    case .async, .sync: lines.append(("due", TimeText.seconds(due)))
    }
    if runCount == 0 { lines.append(("runs", "never ran")) }
    let runs = runs.map { shown -> (index: Int, line: (String, String)) in
      (shown.index, ("run \(shown.run.number)", Self.text(of: shown.run)))
    }
    var after: [(String, String)] = []
    if let cancelled {
      after.append(
        (
          "cancelled",
          "at \(TimeText.seconds(cancelled.at)) (\(cancelled.afterStart ? "after it started" : "before it started"))"
        ))
    }
    after.append(("now", nowText))
    grid.write(
      " Action \(id) · \(mode.name)"
        + (work.map { $0.name.isEmpty ? "" : " · \($0.name)" } ?? "")
        + (trail.isEmpty ? "" : "   (\((trail + [id]).suffix(6).joined(separator: " → ")))"),
      row: 2, column: 1, style: theme.title)
    let bottom = Self.drawLines(
      &grid, theme, lines, runs: runs, of: runCount, after: after, from: 4)
    links.draw(into: &grid, theme: theme, from: bottom + 1)
  }

  /// A run in words: `due 1s, began 1.2s (late 200ms), took 3ms, on main`.
  private static func text(of run: Run) -> String {
    let late = run.began.subtracting(saturating: run.due)
    var text =
      "due \(TimeText.seconds(run.due)), began \(TimeText.seconds(run.began)) (\(late >= 0 ? "late \(TimeText.duration(late))" : "early \(TimeText.duration(late.magnitudeSaturated))"))"
    if let ended = run.ended {
      text += ", took \(TimeText.duration(ended.subtracting(saturating: run.began)))"
    } else {
      text += ", did not end"
    }
    text += ", on \(run.thread)"
    if let from = run.hoppedFrom { text += " ← hop from \(from)" }
    return text
  }

  /// The page's labelled lines from row `top`: `lines`, the runs, then `after` (the state
  /// now), each value in words over up to three rows, so that no time is cut short. `after`
  /// always shows; where the screen is short the runs give way first, the first and the last
  /// longest, a row saying how many are left out; then the lines before them, from the last.
  /// Returns the row after them.
  ///
  /// - Parameters:
  ///   - runs: The runs that may show, each with its place among the action's `total` runs.
  private static func drawLines(
    _ grid: inout ScreenGrid, _ theme: Theme, _ lines: [(String, String)],
    runs: [(index: Int, line: (String, String))], of total: Int, after: [(String, String)],
    from top: Int
  ) -> Int {
    typealias Shown = (label: String, rows: [String])
    let width = grid.width - 17
    func shown(_ line: (String, String)) -> Shown {
      (line.0, TextWidth.wrapped(line.1, to: width, rows: 3))
    }
    func height(_ lines: [Shown]) -> Int { lines.reduce(0) { $0 + max($1.rows.count, 1) } }
    let room = grid.height - 1 - top
    let afterLines = after.map(shown)
    var before = lines.map(shown)
    while !before.isEmpty, height(before) + height(afterLines) > room { before.removeLast() }
    let runRoom = room - height(before) - height(afterLines)
    // Runs give way from the middle out: those nearest the gap first, the first and the last
    // last of all.
    let runLines = runs.map { shown($0.line) }
    var kept = Set(runs.indices)
    func runHeight() -> Int {
      height(kept.sorted().map { runLines[$0] }) + (kept.count < total ? 1 : 0)
    }
    let order = runs.indices.sorted {
      (-min($0, runs.count - 1 - $0), $0) < (-min($1, runs.count - 1 - $1), $1)
    }
    for index in order where runHeight() > runRoom { kept.remove(index) }
    var middle: [Shown] = []
    var next = 0
    for position in kept.sorted() {
      if runs[position].index > next {
        middle.append(("", ["… \(total - kept.count) more runs"]))
      }
      middle.append(runLines[position])
      next = runs[position].index + 1
    }
    if next < total, kept.count < total, runHeight() <= runRoom {
      middle.append(("", ["… \(total - kept.count) more runs"]))
    }
    var row = top
    for line in before + middle + afterLines where row < grid.height - 1 {
      grid.write(line.label, row: row, column: 3, style: theme.dim)
      for text in line.rows where row < grid.height - 1 {
        grid.write(text, row: row, column: 16)
        row += 1
      }
      if line.rows.isEmpty { row += 1 }
    }
    return row
  }

  /// Where the action stands at the cursor, dated by its own events (never by the cursor's
  /// time).
  var nowText: String {
    func runs(_ count: Int) -> String { count == 1 ? "once" : "\(count) times" }
    switch status {
    case .notScheduledYet(let at):
      return "not scheduled yet (scheduled at \(TimeText.seconds(at)))"
    case .pending(let due, let count):
      let dueIn = due.subtracting(saturating: clock)
      let when =
        dueIn >= 0
        ? "in \(TimeText.duration(dueIn))" : "late \(TimeText.duration(dueIn.magnitudeSaturated))"
      return (count == 0 ? "pending" : "pending after running \(runs(count))")
        + ", next due \(TimeText.seconds(due)) (\(when))"
    case .running(let run, let began, let cancelledAt):
      let text = "running run \(run) since \(TimeText.seconds(began))"
      guard let cancelledAt else { return text }
      return text + ", cancelled at \(TimeText.seconds(cancelledAt)): it will not run again"
    case .cancelledBeforeItRan(let at):
      return "cancelled before it ran, at \(TimeText.seconds(at))"
    case .finished(let at, let count):
      return count > 1
        ? "ran \(runs(count)), finished at \(TimeText.seconds(at))"
        : "finished at \(TimeText.seconds(at))"
    case .cancelledAfterRuns(let count, let cancelledAt, let lastEnded):
      let ended = lastEnded.map { ", last run ended at \(TimeText.seconds($0))" } ?? ""
      return "ran \(runs(count)), cancelled at \(TimeText.seconds(cancelledAt))\(ended)"
    }
  }
}
