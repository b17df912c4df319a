import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

/// An action the detail view links to, and how it is related.
struct DetailLink: Equatable {
  /// `scheduled by`, `cancelled by`, `scheduled`, `cancelled`.
  let role: String
  let action: ActionIndex
}

extension InspectorApp {
  /// The actions related to `action`, in the order the detail view lists them: the one that
  /// scheduled it, the one that cancelled it, what it scheduled, what it cancelled.
  func detailLinks(of action: ActionIndex) -> [DetailLink] {
    let life = replay.life(of: action)
    var links: [DetailLink] = []
    if let parent = replay.action(action).parent {
      links.append(DetailLink(role: "scheduled by", action: parent))
    }
    if let canceller = life.cancelledBy {
      links.append(DetailLink(role: "cancelled by", action: canceller))
    }
    links += life.children.map { DetailLink(role: "scheduled", action: $0) }
    links += life.cancelled.map { DetailLink(role: "cancelled", action: $0) }
    return links
  }

  /// The selected action's whole life, then the actions it is related to.
  func drawDetail(_ grid: inout ScreenGrid, _ theme: Theme, action: ActionIndex, link: Int) {
    let info = replay.action(action)
    let life = replay.life(of: action)
    let scheduler =
      replay.scheduler(info.scheduler).map {
        "\(schedulerLabel(of: action)) (\($0.kind), \($0.family))"
      }
      ?? "scheduler \(info.scheduler.rawValue)"
    var lines: [(String, String)] = []
    if let work = replay.work(of: action) {
      if !work.name.isEmpty { lines.append(("name", work.name)) }
      for (key, value) in work.fields.sorted(by: { $0.key < $1.key }) {
        lines.append((key, value))
      }
    }
    lines.append(("scheduler", scheduler))
    if let task = replay.task(of: action), let work = replay.task(task)?.actionCount {
      lines.append(("task", "\(task), whose work is \(work == 1 ? "1 action" : "\(work) actions")"))
    }
    lines.append(
      ("scheduled", "at \(TimeText.seconds(info.scheduledAt)) on \(threadTitle(info.scheduledOn))"))
    if let site = replay.callSite(of: action) {
      // The file name and line stay whole: the function gives way at its end, then the path at
      // its front.
      let place = "\(site.file):\(site.line)"
      let whole = "\(place) in \(site.function)"
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
    switch info.mode {
    case .after:
      lines.append(("delay", "\(TimeText.duration(info.delay)), due \(TimeText.seconds(info.due))"))
    case .repeating:
      lines.append(
        (
          "interval",
          "\(TimeText.duration(info.delay)), first due \(TimeText.seconds(info.due)); run k is due first due + (k−1) × interval"
        ))
    case .async, .sync: lines.append(("due", TimeText.seconds(info.due)))
    }
    if life.runs.isEmpty { lines.append(("runs", "never ran")) }
    // The first four runs and the last four; fewer where the screen is short (see
    // `drawDetailLines`).
    let candidates =
      life.runs.count > 8
      ? Array(life.runs.indices.prefix(4)) + Array(life.runs.indices.suffix(4))
      : Array(life.runs.indices)
    let runs = candidates.map { index -> (index: Int, line: (String, String)) in
      let run = life.runs[index]
      let late = run.lateness
      var text =
        "due \(TimeText.seconds(run.due)), began \(TimeText.seconds(run.began)) (\(late >= 0 ? "late \(TimeText.duration(late))" : "early \(TimeText.duration(late.magnitudeSaturated))"))"
      if let ended = run.ended {
        text += ", took \(TimeText.duration(ended.subtracting(saturating: run.began)))"
      } else {
        text += ", did not end"
      }
      text += ", on \(threadTitle(run.thread))"
      if let from = run.hoppedFrom { text += " ← hop from \(threadTitle(from))" }
      return (index, ("run \(run.number)", text))
    }
    var after: [(String, String)] = []
    if let cancelledAt = life.cancelledAt {
      after.append(
        (
          "cancelled",
          "at \(TimeText.seconds(cancelledAt)) (\(life.cancelledAfterStart ? "after it started" : "before it started"))"
        ))
    }
    after.append(("now", nowText(of: action)))

    let followed = state.history.compactMap { mode -> ActionIndex? in
      if case .detail(let action, _) = mode { action } else { nil }
    }
    let trail = (followed + [action]).suffix(6).map { "\(replay.action($0).id)" }
    grid.write(
      " Action \(info.id) · \(info.mode.name)"
        + (replay.work(of: action).map { $0.name.isEmpty ? "" : " · \($0.name)" } ?? "")
        + (followed.isEmpty ? "" : "   (\(trail.joined(separator: " → ")))"),
      row: 2, column: 1, style: theme.title)
    let bottom = drawDetailLines(
      &grid, theme, lines, runs: runs, of: life.runs.count, after: after, from: 4)
    let links = detailLinks(of: action)
    drawLinks(
      &grid, theme, links.map { ($0.role, $0.action) }, selected: link,
      title: "Related (\(links.count)) · j/k select · ⏎ follow · esc back",
      from: bottom + 1)
  }

  /// The detail page's labelled lines from row `top`: `lines`, the runs, then `after` (the state
  /// now), each value in words over up to three rows, so that no time is cut short. `after`
  /// always shows; where the screen is short the runs give way first, the first and the last
  /// longest, a row saying how many are left out; then the lines before them, from the last.
  /// Returns the row after them.
  ///
  /// - Parameters:
  ///   - runs: The runs that may show, each with its place among the action's `total` runs.
  func drawDetailLines(
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

  /// Where `action` stands at the cursor, dated by its own events (never by the cursor's time).
  func nowText(of action: ActionIndex) -> String {
    func runs(_ count: Int) -> String { count == 1 ? "once" : "\(count) times" }
    switch replay.status(of: action) {
    case .notScheduledYet(let at):
      return "not scheduled yet (scheduled at \(TimeText.seconds(at)))"
    case .pending(let due, let count):
      let dueIn = due.subtracting(saturating: state.clock)
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

  /// Labelled lines (`scheduler  app.db`) from row `top`; returns the row after them.
  @discardableResult
  func drawLabelled(
    _ grid: inout ScreenGrid, _ theme: Theme, _ lines: [(String, String)], from top: Int
  )
    -> Int
  {
    var row = top
    for line in lines where row < grid.height - 1 {
      grid.write(line.0, row: row, column: 3, style: theme.dim)
      // Cut between words: a time or a count is never cut short.
      grid.write(
        TextWidth.truncatedKeepingNumbers(line.1, to: grid.width - 17), row: row, column: 16)
      row += 1
    }
    return row
  }

  /// A titled list of actions with their role, one selectable, from row `top` to the status bar.
  func drawLinks(
    _ grid: inout ScreenGrid, _ theme: Theme, _ links: [(role: String, action: ActionIndex)],
    selected link: Int, title: String, from top: Int
  ) {
    let bottom = grid.height - 1
    guard !links.isEmpty, top + 1 < bottom else { return }
    grid.write(title, row: top, column: 3, style: theme.title)
    var row = top + 1
    let selected = min(max(link, 0), links.count - 1)
    let visible = window(count: links.count, selected: selected, rows: bottom - row)
    let workWidth = replay.hasNamedWork ? 24 : 0
    // Columns that give way whole, lined up: the call site keeps its file name and line.
    let rows = visible.map { index in
      [
        PanelColumn(links[index].role, width: 13, priority: 100, fit: .name(minimum: 12)),
        PanelColumn(
          label(of: links[index].action), width: 16, priority: 90, fit: .name(minimum: 15)),
        schedulerColumn(of: links[index].action, width: 20, priority: 80, minimum: 9),
        PanelColumn(
          workName(of: links[index].action), width: workWidth, priority: 75,
          fit: .name(minimum: 9)),
        PanelColumn(site(of: links[index].action), width: 60, priority: 70, fit: .path),
      ]
    }
    let widths = PanelColumn.widths(of: rows, in: grid.width - 4)
    for (index, columns) in zip(visible, rows) {
      grid.write(index == selected ? "▸" : " ", row: row, column: 1, style: theme.title)
      var x = 3
      for (column, width) in zip(columns, widths) where width > 0 {
        grid.write(column.text(in: width), row: row, column: x)
        x += width
      }
      if index == selected {
        grid.paint(row: row, from: 3, to: grid.width - 1, style: theme.selected)
      }
      row += 1
    }
  }

  /// The help's rows at a width: the keys, the notation and what the glyphs mean, each
  /// explanation in words over as many rows as it needs (`key` empty on the rows after its
  /// first; `isTitle` for a section's title).
  func helpRows(width: Int) -> [(key: String, text: String, isTitle: Bool)] {
    let clock =
      replay.header.clock == .virtual
      ? "play / pause: virtual time runs at speed × wall time"
      : "play / pause: the recorded (host) time replays at speed × wall time"
    let keys: [(String, String)] = [
      ("space", clock),
      ("n p  → ←", "next / previous event"), ("] [", "next / previous event on the selected lane"),
      ("m M", "next / previous mark"), ("x X  !", "next / previous finding; the list of findings"),
      ("+ -", "faster / slower playback"),
      ("t T", "time forward / back by \(TimeText.duration(state.timeStep))"),
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
    var rows: [(key: String, text: String, isTitle: Bool)] = [(" Keys", "", true)]
    for (title, section) in [("", keys), (" Reading the screen", legend)] {
      if !title.isEmpty { rows += [("", "", false), (title, "", true)] }
      for (key, text) in section {
        for (offset, line) in TextWidth.wrapped(text, to: width - 17, rows: 4).enumerated() {
          rows.append((offset == 0 ? key : "", line, false))
        }
      }
    }
    return rows
  }

  /// The help from row 2 down to the status bar, from its row ``InspectorState/helpScroll``.
  func drawHelp(_ grid: inout ScreenGrid, _ theme: Theme) {
    let rows = helpRows(width: grid.width)
    let room = grid.height - 3
    let first = min(max(state.helpScroll, 0), max(rows.count - room, 0))
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

  /// The most the help scrolls at the screen's size (the smallest screen's when none is known
  /// yet): so that `k` after many `j` moves it at once.
  var helpScrollLimit: Int {
    let size = screenSize ?? (Self.minimumWidth, Self.minimumHeight)
    return max(helpRows(width: size.width).count - (size.height - 3), 0)
  }
}
