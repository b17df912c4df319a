@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

extension InspectorApp {
  /// A click selects the lane or row under it (and focuses its panel); the wheel moves the
  /// focused list's selection, or zooms the strips when turned over them or with a modifier
  /// held. Every one has a key too: the mouse is a shortcut, never the only way.
  mutating func handleMouse(_ event: MouseEvent) -> Bool {
    guard state.prompt == nil else { return true }
    switch (state.mode, event.action) {
    case (.main, .press):
      select(at: event)
    case (.main, .wheelUp), (.main, .wheelDown):
      let up = event.action == .wheelUp
      if event.hasModifier || isOverTheStrips(event) {
        return handle(.character(up ? "z" : "Z"))
      }
      return handle(up ? .up : .down)
    case (.detail, .wheelUp), (.finding, .wheelUp), (.findings, .wheelUp), (.blame, .wheelUp):
      return handle(.up)
    case (.detail, .wheelDown), (.finding, .wheelDown), (.findings, .wheelDown),
      (.blame, .wheelDown):
      return handle(.down)
    case (.help, _), (.detail, .press), (.finding, .press), (.findings, .press), (.blame, .press):
      break
    }
    return true
  }

  /// The main view's rows at the screen's size, or nil when it is not known.
  private var screenRows: MainRows? {
    guard let screenSize else { return nil }
    return mainRows(
      height: screenSize.height, pendingCount: pendingCount, runningCount: runningActions.count)
  }

  /// Whether the pointer is on the lanes' title, the strips or the axis beneath them.
  private func isOverTheStrips(_ event: MouseEvent) -> Bool {
    guard let rows = screenRows else { return false }
    return (rows.title(of: .lanes)...rows.axis).contains(event.row)
  }

  /// Focuses the panel under a click and selects the row under it, if any.
  private mutating func select(at event: MouseEvent) {
    guard let rows = screenRows else { return }
    let row = event.row
    for panel in InspectorState.Panel.allCases where row == rows.title(of: panel) {
      state.focus = panel
      return
    }
    if rows.lanes.contains(row) {
      let visible = visibleLanes(rows: rows.lanes.count)
      let index = visible.lowerBound + row - rows.lanes.lowerBound
      guard visible.contains(index) else { return }
      state.focus = .lanes
      state.selection[.lanes] = index
    } else if rows.pending.contains(row) {
      let visible = visiblePending(count: pendingCount, rows: rows.pending.count).rows
      let index = visible.lowerBound + row - rows.pending.lowerBound
      guard visible.contains(index) else { return }
      state.focus = .pending
      state.selection[.pending] = index
    } else if rows.running.contains(row) {
      let running = runningActions.count
      let visible = VisibleRows.around(
        min(state.selected(.running), running - 1), count: running, rows: rows.running.count)
      let index = visible.lowerBound + row - rows.running.lowerBound
      guard visible.contains(index) else { return }
      state.focus = .running
      state.selection[.running] = index
    } else if rows.events.contains(row) {
      let visible = visibleEvents(rows: rows.events.count)
      let index = visible.lowerBound + row - rows.events.lowerBound
      guard visible.contains(index) else { return }
      state.focus = .events
      state.selectedEvent = scopedEvent(atRow: index)
    }
  }
}
