@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

/// What a key asks of the inspector beyond the UI state ``KeyHandler`` changes: the work that
/// reads or moves the replay, or remakes the cache, which ``InspectorApp`` carries out.
enum KeyEffect: Equatable {
  /// Nothing more.
  case none
  /// The user quits.
  case quit
  /// The terminal has a new size.
  case resize(width: Int, height: Int)
  /// A click or the wheel, which lands where the app's last frame put things.
  case mouse(MouseEvent)
  /// To the next or previous event.
  case step(forward: Bool)
  /// To the next or previous event on the selected lane.
  case stepOnLane(forward: Bool)
  /// To the next or previous mark.
  case jumpToMark(forward: Bool)
  /// To the next or previous match of the search.
  case jumpToMatch(forward: Bool)
  /// To the next or previous listed finding, and open it.
  case jumpToFinding(forward: Bool)
  /// The cursor to an event (`0`, the start).
  case seekToEvent(Int)
  /// The cursor to an instant.
  case seekToTime(Int64)
  /// A prompt's line, entered: search for it, seek to it, or keep it as the lane filter.
  case submit(InspectorState.Prompt)
  /// The lane filter as it is typed.
  case filterLanes(String)
  /// The search is cleared: its matches go.
  case clearMatches
  /// The lanes grouped another way.
  case group(InspectorState.Grouping)
  /// The lanes in another order.
  case order(InspectorState.LaneOrder)
  /// Idle lanes hidden, or shown again.
  case hideIdleLanes(Bool)
  /// The Events panel's selection moved by rows.
  case moveEventSelection(by: Int)
  /// The detail page of the selected action.
  case openDetail
  /// Why an action was late.
  case showBlame(of: ActionIndex)
  /// Why the action of a listed finding was late.
  case showBlameOfFinding(Int)
  /// The listed finding's instant, and its page.
  case openFinding(Int)
  /// The findings listed again, with or without the info ones (``InspectorState/showsInfoFindings``).
  case listFindings
}
