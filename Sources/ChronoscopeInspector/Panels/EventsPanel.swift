import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

/// The Events panel: the trace's events in order around the cursor's, a row an event, the
/// current one marked, those after the cursor dim.
struct EventsPanel {
  /// One event's row.
  struct Row {
    /// Its number in the trace: `e120`.
    var number: Int
    var time: Int64
    var kind: TraceEvent.Kind
    /// The thread it happened on.
    var thread: String
    /// What it belongs to.
    var owner: Owner
    /// Whether it is the event at the cursor, or after it.
    var isCurrent = false
    var isFuture = false
    /// Whether it is the selected event.
    var isSelected = false
  }

  /// What an event belongs to.
  enum Owner {
    /// A mark, by its name and fields.
    case mark(name: String, fields: [String: String])
    /// A thread's wait outside any run, said in words (`waited 2.100s on a semaphore`).
    case wait(String)
    /// An action's event: its label, name and scheduler, and what the row adds: where a hop came
    /// from, whether a cancel came after the start, which run of repeating work began or ended.
    case action(
      label: String, workName: String, scheduler: LaneLabel, hoppedFrom: String?,
      cancelledAfterStart: Bool?, run: UInt32?)
    /// Neither.
    case none
  }

  /// The title row.
  var title: PanelTitle
  /// The rows on screen.
  var rows: [Row]
  /// The trace's events and its span, which set the widths of the number and time columns.
  var eventCount: Int
  var span: Int64
  /// The widths of an action's first columns.
  var actionColumns: ActionColumns

  /// Draws the title at `titleRow` and the rows from `top`.
  func draw(into grid: inout ScreenGrid, theme: Theme, titleRow: Int, top: Int) {
    title.draw(into: &grid, theme: theme, row: titleRow)
    guard title.count > 0 else {
      let text = eventCount == 0 ? "the trace has no events" : "no events on these lanes"
      grid.write("  " + text, row: top, column: 0, style: theme.dim)
      return
    }
    // Columns as wide as the widest number and time in the trace, the same on every row.
    let numberWidth = String(eventCount).count + 1
    let timeWidth = TimeText.seconds(span).count
    // Every row has the same seven columns, so that they line up: a mark's text takes the
    // action's and the scheduler's, which its row leaves empty.
    let lines = rows.map { row in
      columns(of: row, numberWidth: numberWidth, timeWidth: timeWidth)
    }
    // The last column may reach the screen's edge: no gap after it.
    let widths = PanelColumn.widths(of: lines, in: grid.width)
    for (offset, (line, event)) in zip(lines, rows).enumerated() {
      let row = top + offset
      let style: Style =
        event.isCurrent
        ? theme.current : event.isFuture ? theme.dim : event.kind == .cancel ? theme.cancel : .plain
      grid.write(event.isCurrent ? "▸" : " ", row: row, column: 0, style: theme.title)
      var x = 1
      let isMark = event.kind == .mark
      for (number, (column, width)) in zip(line, widths).enumerated() where width > 0 {
        // A mark's text takes the action's, the work name's and the scheduler's columns.
        let shown = isMark && number == 3 ? width + widths[4] + widths[5] : width
        grid.write(column.text(in: shown), row: row, column: x, style: style)
        x += width
      }
      if event.isCurrent { grid.paint(row: row, from: 1, to: grid.width, style: theme.current) }
      if event.isSelected {
        grid.paint(row: row, from: 1, to: grid.width, style: theme.selected)
      }
    }
  }

  private func columns(of row: Row, numberWidth: Int, timeWidth: Int) -> [PanelColumn] {
    var columns = [
      PanelColumn(
        "e\(row.number)".leftPadded(to: numberWidth), width: numberWidth + 2, priority: 100),
      PanelColumn(
        TimeText.seconds(row.time).leftPadded(to: timeWidth), width: timeWidth + 2, priority: 95),
      PanelColumn(row.kind.name, width: 9, priority: 90),
    ]
    let thread = PanelColumn(
      row.thread, width: actionColumns.labelWidth + 1, priority: 60,
      fit: .label(ordinal: nil, minimum: 8))
    switch row.owner {
    case .mark(let name, let fields):
      var text = "\"\(name)\""
      if !fields.isEmpty {
        text +=
          " "
          + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
            separator: " ")
      }
      columns += [
        PanelColumn(text, width: actionColumns.actionWidth, priority: 85, fit: .name(minimum: 10)),
        PanelColumn("", width: 0, priority: 70), PanelColumn("", width: 0, priority: 75), thread,
        PanelColumn("", width: 0, priority: 50),
      ]
    case .action(let label, let workName, let scheduler, let hoppedFrom, let afterStart, let run):
      var extra = ""
      switch row.kind {
      case .hop: extra = hoppedFrom.map { "← \($0)" } ?? ""
      case .cancel: extra = afterStart == true ? "after start" : "before start"
      case .begin, .end: extra = run.map { "run \($0)" } ?? ""
      case .schedule, .mark, .task, .work, .wait: break
      }
      columns +=
        actionColumns.columns(
          label: label, workName: workName, scheduler: scheduler,
          priorities: (label: 85, work: 70, scheduler: 75), schedulerMinimum: 8)
        + [
          thread, PanelColumn(extra, width: actionColumns.labelWidth + 4, priority: 50),
        ]
    case .wait(let text):
      columns += [
        PanelColumn(text, width: actionColumns.actionWidth, priority: 85, fit: .name(minimum: 10)),
        PanelColumn("", width: 0, priority: 70), PanelColumn("", width: 0, priority: 75), thread,
        PanelColumn("", width: 0, priority: 50),
      ]
    case .none:
      break
    }
    return columns
  }
}
