/// An action's first columns in a main-view panel (`#12 after  load "x"  app.db`): as wide in
/// every panel of a frame, so that a label is cut the same way everywhere.
struct ActionColumns: Equatable {
  /// The width of lane labels and thread titles (see ``PanelLayout``).
  var labelWidth: Int
  /// The width of `#12 repeating`.
  var actionWidth: Int
  /// Whether the trace names work, so that rows have a column of names.
  var hasNamedWork: Bool

  /// The label's, the work name's and the scheduler's columns, which give way in the order of
  /// their `priorities` (the highest last); the scheduler keeps `schedulerMinimum` columns.
  func columns(
    label: String, workName: String, scheduler: LaneLabel,
    priorities: (label: Int, work: Int, scheduler: Int), schedulerMinimum: Int
  ) -> [PanelColumn] {
    [
      PanelColumn(
        label, width: actionWidth, priority: priorities.label,
        fit: .name(minimum: actionWidth - 1)),
      PanelColumn(
        workName, width: hasNamedWork ? labelWidth + 1 : 0, priority: priorities.work,
        fit: .name(minimum: 9)),
      scheduler.column(
        width: labelWidth + 1, priority: priorities.scheduler, minimum: schedulerMinimum),
    ]
  }
}
