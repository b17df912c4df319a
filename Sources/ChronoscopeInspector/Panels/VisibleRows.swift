/// Which rows of a list a panel shows: scrolled so that the selected one is on screen.
enum VisibleRows {
  /// The rows of `count` that `rows` rows show, `selected` among them, as near their middle as
  /// the list's ends allow.
  static func around(_ selected: Int, count: Int, rows: Int) -> Range<Int> {
    guard count > rows else { return 0..<count }
    let start = min(max(selected - rows / 2, 0), count - rows)
    return start..<(start + rows)
  }
}
