@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import XCTest

@testable import ChronoscopeInspector

/// Key handling alone, on hand-made state: no replay, no inspector.
final class KeyHandlerTests: XCTestCase {
  private let start = InspectorState(timeStep: 1_000_000)

  /// The state and the effects after each of `keys` in turn.
  private func press(
    _ keys: [InputKey], in state: InspectorState? = nil,
    context: KeyHandler.Context = KeyHandler.Context()
  ) -> (state: InspectorState, effects: [KeyEffect]) {
    var state = state ?? start
    var effects: [KeyEffect] = []
    for key in keys {
      let handled = KeyHandler.handle(key, in: state, context: context)
      state = handled.state
      effects.append(handled.effect)
    }
    return (state, effects)
  }

  private func typed(_ text: String) -> [InputKey] { text.map { .character($0) } }

  func testJMovesTheSelectionDownAndStopsAtTheLastRow() {
    var state = start
    state.focus = .pending
    let context = KeyHandler.Context(rowCount: 3)
    let once = press([.character("j")], in: state, context: context)
    XCTAssertEqual(once.state.selected(.pending), 1)
    XCTAssertEqual(once.effects, [.none])
    let often = press(Array(repeating: .character("j"), count: 5), in: state, context: context)
    XCTAssertEqual(often.state.selected(.pending), 2, "stops at the last of 3 rows")
    XCTAssertEqual(
      press([.character("k")], in: state, context: context).state.selected(.pending), 0)
  }

  func testJInTheEventsPanelAsksTheAppToMoveItsSelection() {
    var state = start
    state.focus = .events
    XCTAssertEqual(press([.character("j")], in: state).effects, [.moveEventSelection(by: 1)])
  }

  func testSlashThenTextThenEnterSearches() {
    let result = press([.character("/")] + typed("app") + [.backspace, .enter])
    XCTAssertEqual(result.effects.last, .submit(.search("ap")))
    XCTAssertNil(result.state.prompt, "Enter closes the prompt")
    XCTAssertEqual(Array(result.effects.dropLast()), Array(repeating: .none, count: 5))
  }

  func testTheFilterPromptFiltersAsYouTypeAndEscClosesIt() {
    let result = press([.character("f")] + typed("db") + [.escape])
    XCTAssertEqual(result.effects, [.none, .filterLanes("d"), .filterLanes("db"), .none])
    XCTAssertNil(result.state.prompt)
  }

  func testEscLeavesDetailBackToMainWithTheSelectionKept() {
    var state = start
    state.focus = .running
    state.selection[.running] = 2
    state.mode = .detail(action: ActionIndex(4), link: 0)
    let result = press([.escape], in: state)
    XCTAssertEqual(result.state.mode, .main)
    XCTAssertEqual(result.state.focus, .running)
    XCTAssertEqual(result.state.selected(.running), 2)
  }

  func testEnterOnARelatedActionFollowsItAndEscWalksBack() {
    var state = start
    state.mode = .detail(action: ActionIndex(4), link: 0)
    let context = KeyHandler.Context(links: [ActionIndex(1), ActionIndex(7)])
    let followed = press([.character("j"), .enter], in: state, context: context)
    XCTAssertEqual(followed.state.mode, .detail(action: ActionIndex(7), link: 0))
    let back = press([.escape], in: followed.state, context: context)
    XCTAssertEqual(back.state.mode, .detail(action: ActionIndex(4), link: 1))
  }

  func testQInTheTooSmallScreenQuitsAndOtherKeysDoNothing() {
    let context = KeyHandler.Context(isTooSmall: true)
    XCTAssertEqual(press([.character("q")], context: context).effects, [.quit])
    var state = start
    state.message = "kept"
    let other = press([.character("n"), .character("/"), .enter], in: state, context: context)
    XCTAssertEqual(other.effects, [.none, .none, .none])
    XCTAssertEqual(other.state, state, "nothing moves, and the message stays")
  }

  func testZoomingOutStopsWhereTheWholeTraceFits() {
    var state = start
    state.laneSpan = 4_000
    let context = KeyHandler.Context(fittingSpan: 10_000)
    let result = press([.character("Z"), .character("Z")], in: state, context: context)
    XCTAssertEqual(result.state.laneSpan, 10_000)
    XCTAssertNil(result.state.message)
    let again = press([.character("Z")], in: result.state, context: context)
    XCTAssertEqual(again.state.message, "the strips show the whole trace")
  }

  func testVGoesToTheTaskLanesOnlyWhenTheTraceNamesTasks() {
    var state = start
    state.grouping = .byThread
    XCTAssertEqual(press([.character("v")], in: state).effects, [.group(.byScheduler)])
    XCTAssertEqual(
      press([.character("v")], in: state, context: .init(hasTasks: true)).effects,
      [.group(.byTask)])
  }

  func testTheHelpScrollsNoFurtherThanItsLimit() {
    var state = start
    state.mode = .help
    let context = KeyHandler.Context(helpScrollLimit: 4)
    let result = press([.pageDown, .character("j")], in: state, context: context)
    XCTAssertEqual(result.state.helpScroll, 4)
    XCTAssertEqual(press([.character("?")], in: result.state).state.mode, .main)
  }
}
