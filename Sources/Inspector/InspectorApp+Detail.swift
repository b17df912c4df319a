import Replay
import Screen
import TraceFormat

extension InspectorApp {
  /// The selected action's whole life.
  func drawDetail(_ grid: inout ScreenGrid, _ theme: Theme, action: Int) {
    let info = replay.actions[action]
    let life = replay.life(of: action)
    let queueLabel =
      replay.schedulers[info.scheduler].map { "\($0.label) (\($0.kind), \($0.family))" }
      ?? "queue \(info.scheduler)"
    var lines: [(String, String)] = []
    lines.append(("queue", queueLabel))
    let by = info.parent.map { " by #\(replay.actions[Int($0)].id)" } ?? ""
    lines.append(
      ("scheduled", "at \(TimeText.seconds(info.scheduledAt))\(by) on \(threadName(info.thread))"))
    if let site = replay.callSites[info.site] {
      lines.append(("call site", "\(site.file):\(site.line) in \(site.function)"))
    }
    switch info.mode {
    case .after:
      lines.append(("delay", "\(TimeText.duration(info.delay)), due \(TimeText.seconds(info.due))"))
    case .repeating:
      lines.append(
        ("interval", "\(TimeText.duration(info.delay)), first due \(TimeText.seconds(info.due))"))
    case .async, .sync: lines.append(("due", TimeText.seconds(info.due)))
    }
    if life.runs.isEmpty { lines.append(("runs", "never ran")) }
    for run in life.runs.prefix(12) {
      let due = info.isRepeating ? info.due + Int64(run.number - 1) * info.delay : info.due
      let late = run.began - due
      var text =
        "fired \(TimeText.seconds(run.began)) (\(late >= 0 ? "late \(TimeText.duration(late))" : "early \(TimeText.duration(-late))"))"
      if let ended = run.ended {
        text += ", took \(TimeText.duration(ended - run.began))"
      } else {
        text += ", did not end"
      }
      text += ", on \(threadName(run.thread))"
      if let from = run.hoppedFrom { text += " ← hop from \(threadName(from))" }
      lines.append(("run \(run.number)", text))
    }
    if life.runs.count > 12 { lines.append(("", "… \(life.runs.count - 12) more runs")) }
    if let cancelledAt = life.cancelledAt {
      let by = life.cancelledBy.map { " by #\(replay.actions[$0].id)" } ?? ""
      lines.append(
        (
          "cancelled",
          "at \(TimeText.seconds(cancelledAt))\(by) (\(life.cancelledAfterStart ? "after it started" : "before it started"))"
        ))
    }
    if !life.children.isEmpty {
      lines.append(
        (
          "scheduled",
          life.children.prefix(20).map { "#\(replay.actions[$0].id)" }.joined(separator: ", ")
            + (life.children.count > 20 ? " …" : "")
        ))
    }
    lines.append(("now", "\(replay.state(of: action)) at \(TimeText.seconds(state.clock))"))

    grid.write(" Action #\(info.id) · \(info.mode.name)", row: 2, column: 1, style: theme.title)
    for (offset, line) in lines.enumerated() where 4 + offset < grid.height - 1 {
      grid.write(line.0, row: 4 + offset, column: 3, style: theme.dim)
      grid.write(line.1, row: 4 + offset, column: 16)
    }
  }

  private func threadName(_ id: UInt32) -> String {
    if let name = replay.threadNames[id], !name.isEmpty { return "thread \(id) (\(name))" }
    return "thread \(id)"
  }

  /// The keys.
  func drawHelp(_ grid: inout ScreenGrid, _ theme: Theme) {
    let keys: [(String, String)] = [
      ("space", "play / pause (virtual time runs at speed × wall time)"),
      ("n  →", "next event"), ("p  ←", "previous event"),
      ("]  [", "next / previous event on the selected lane"),
      ("+  -", "faster / slower playback"),
      ("t  T", "step time forward / back by \(TimeText.duration(state.timeStep))"),
      ("g  G", "start / end of the trace"),
      ("@", "seek to a time (1.25s, 300ms, 40us) or an event (#120)"),
      ("/", "search labels, call sites and marks; then n / N for next / previous match"),
      ("f", "filter lanes by name"), ("v", "lanes by queue / by thread"),
      ("j k ↑ ↓", "move the selection"), ("tab", "next panel"),
      ("enter", "details of the selected action"), ("esc", "back; clear the search"),
      ("?", "this help"), ("q", "quit"),
    ]
    grid.write(" Keys", row: 2, column: 1, style: theme.title)
    for (offset, key) in keys.enumerated() where 4 + offset < grid.height - 1 {
      grid.write(key.0, row: 4 + offset, column: 3, style: theme.title)
      grid.write(key.1, row: 4 + offset, column: 14)
    }
  }
}
