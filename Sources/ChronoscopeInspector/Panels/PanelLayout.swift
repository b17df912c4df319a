/// Column widths shared by every panel of a frame, so a label is cut the same way everywhere.
struct PanelLayout {
  /// Scheduler labels and thread titles.
  let label: Int
  /// `#12 repeating`.
  let action = 16

  init(width: Int) { label = min(max(width / 6, 14), 28) }
}
