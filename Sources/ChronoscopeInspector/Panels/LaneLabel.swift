/// The label of a lane as a row of another panel names it: its title, and its number where
/// titles repeat (`app.request.2 ·10`).
struct LaneLabel: Equatable {
  /// The scheduler's label, the thread's or the task's title.
  var title: String
  /// The lane's place among the lanes of the same title, from 1; nil where the title is unique.
  var ordinal: Int?

  /// The whole label: `app.request.2 ·10`.
  var text: String { ordinal.map { "\(title) ·\($0)" } ?? title }

  /// A panel's column of the label, fitted as the lanes panel fits lanes: a row always says
  /// which lane it is on.
  func column(width: Int, priority: Int, minimum: Int) -> PanelColumn {
    PanelColumn(
      title, width: width, priority: priority, fit: .label(ordinal: ordinal, minimum: minimum))
  }
}

extension LaneLabel {
  /// The label in `width` columns, as ``Lane/fitted(title:ordinal:to:)`` fits it.
  func fitted(to width: Int) -> String { Lane.fitted(title: title, ordinal: ordinal, to: width) }
}
