/// The rows of the main view's parts at a height: what is drawn where, and where a click
/// lands.
struct MainRows {
  let lanes: Range<Int>
  /// The marks row under the lanes, when the trace has marks.
  let marks: Int?
  let axis: Int
  let pending: Range<Int>
  let running: Range<Int>
  let events: Range<Int>

  /// The title row above a panel's rows.
  func title(of panel: InspectorState.Panel) -> Int {
    switch panel {
    case .lanes: lanes.lowerBound - 1
    case .pending: pending.lowerBound - 1
    case .running: running.lowerBound - 1
    case .events: events.lowerBound - 1
    }
  }
}
