import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

/// The Pending or the Running panel: a title, then a row an action, its columns lined up and
/// giving way whole where the screen is narrow.
struct ActionRowsPanel {
  /// An action of either panel, by what its row shows.
  struct Row {
    /// `#12 after`.
    var label: String
    /// What the app named it; empty when it did not.
    var workName: String
    /// Its scheduler's lane.
    var scheduler: LaneLabel
    /// What the panel says of it beyond those.
    var state: State
    /// Whether it is the selected row.
    var isSelected = false
  }

  /// What a row says of its action after its label, name and scheduler.
  enum State {
    /// Pending: when it is due, how late its last run began (for work that ran before), and
    /// where it was scheduled.
    case pending(due: Int64, lastLateness: Int64?, site: String)
    /// Running: on which thread since when (nil when no run is known), which run of repeating
    /// work, and whether it was cancelled meanwhile.
    case running(thread: String?, began: Int64?, run: Int?, cancelled: Bool)
  }

  /// The panel's title row.
  var title: PanelTitle
  /// The rows on screen.
  var rows: [Row]
  /// What the panel says when it has no rows: `nothing pending`.
  var empty: String
  /// The cursor's time, from which dues and run times are counted.
  var clock: Int64
  /// The widths of an action's first columns.
  var actionColumns: ActionColumns

  /// Draws the title at `titleRow` and the rows from `top`.
  func draw(into grid: inout ScreenGrid, theme: Theme, titleRow: Int, top: Int) {
    title.draw(into: &grid, theme: theme, row: titleRow)
    guard !rows.isEmpty else {
      grid.write("  " + empty, row: top, column: 0, style: theme.dim)
      return
    }
    let lines = rows.map { row in
      (columns: columns(of: row, theme: theme), selected: row.isSelected)
    }
    let widths = PanelColumn.widths(of: lines.map(\.columns), in: grid.width - 3)
    for (offset, line) in lines.enumerated() {
      var x = 2
      for (column, width) in zip(line.columns, widths) where width > 0 {
        grid.write(column.text(in: width), row: top + offset, column: x, style: column.style)
        x += width
      }
      if line.selected {
        grid.paint(row: top + offset, from: 1, to: grid.width - 1, style: theme.selected)
      }
    }
  }

  /// A row's columns: the first ones, which give way last (`#12 after  app.db`), then its state.
  private func columns(of row: Row, theme: Theme) -> [PanelColumn] {
    let first = actionColumns.columns(
      label: row.label, workName: row.workName, scheduler: row.scheduler,
      priorities: (label: 100, work: 75, scheduler: 90), schedulerMinimum: 9)
    switch row.state {
    case .pending(let due, let lastLateness, let site):
      let dueIn = due.subtracting(saturating: clock)
      let countdown =
        dueIn >= 0
        ? "in \(TimeText.duration(dueIn))" : "late \(TimeText.duration(dueIn.magnitudeSaturated))"
      let rhythm = lastLateness.map { "last run \(Self.signed($0)) late" } ?? ""
      return first + [
        PanelColumn("due \(TimeText.seconds(due))", width: 16, priority: 70),
        PanelColumn(
          countdown, width: 15, style: dueIn < 0 ? theme.warning : .plain, priority: 80),
        PanelColumn(rhythm, width: rhythm.isEmpty ? 0 : 26, priority: 40),
        PanelColumn(site, width: 60, style: theme.dim, priority: 60, fit: .path),
      ]
    case .running(let thread, let began, let run, let cancelled):
      let elapsed =
        began.map { "for \(TimeText.duration(clock.subtracting(saturating: $0)))" } ?? ""
      let number = run.map { "run \($0)" } ?? ""
      return first + [
        PanelColumn(
          thread.map { "on \($0)" } ?? "", width: actionColumns.labelWidth + 4, priority: 70,
          fit: .label(ordinal: nil, minimum: 8)),
        PanelColumn(elapsed, width: 16, priority: 85),
        PanelColumn(number, width: number.isEmpty ? 0 : 10, priority: 60),
        PanelColumn(cancelled ? "cancelled" : "", width: 12, style: theme.cancel, priority: 80),
      ]
    }
  }

  /// `+3.2ms` or `-850ns`.
  static func signed(_ nanoseconds: Int64) -> String {
    nanoseconds >= 0
      ? "+" + TimeText.duration(nanoseconds)
      : "-" + TimeText.duration(nanoseconds.magnitudeSaturated)
  }
}
