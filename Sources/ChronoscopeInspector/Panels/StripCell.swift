import ChronoscopeTraceFormat

/// One column of a lane strip: the most telling event in it.
struct StripCell {
  let glyph: String
  let priority: Int
  let future: Bool
  var kind: TraceEvent.Kind = .mark
  /// Whether it is a stretch of a run with no event of the lane in the column.
  var isRun = false

  init(glyph: String, priority: Int, future: Bool) {
    self.glyph = glyph
    self.priority = priority
    self.future = future
  }

  /// A column with nothing in it.
  static let empty = StripCell(glyph: "·", priority: -1, future: false)

  /// A finding's instant: shown over any event in its column.
  static let finding = StripCell(glyph: "!", priority: 6, future: false)

  /// A column that work of the lane runs through: below every event (its priority is an empty
  /// column's), and the cursor shows over it.
  static func run(future: Bool) -> StripCell {
    var cell = StripCell(glyph: "━", priority: -1, future: future)
    cell.kind = .begin
    cell.isRun = true
    return cell
  }

  var isFinding: Bool { priority == Self.finding.priority }

  /// The glyph for `kind`; where several events share a column, cancels show over begins, over
  /// ends, over marks, hops and schedules.
  init(_ kind: TraceEvent.Kind, future: Bool) {
    (glyph, priority) =
      switch kind {
      case .schedule, .task, .work: ("s", 0)
      case .hop: ("↷", 1)
      case .mark: ("◆", 2)
      case .wait: ("‖", 2)
      case .end: ("█", 3)
      case .begin: ("▶", 4)
      case .cancel: ("×", 5)
      }
    self.future = future
    self.kind = kind
  }
}

extension Int64 {
  /// The magnitude as an `Int64`, `Int64.max` for `Int64.min`.
  var magnitudeSaturated: Int64 { self == .min ? .max : Swift.abs(self) }
}
