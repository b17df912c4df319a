@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

/// Named work on screen: the detail page lists the name and values, and `/name:` finds them.
final class NamedWorkViewTests: XCTestCase {
  /// The busy app's virtual recording names each request (`request 12`), and what a request
  /// schedules carries the name on.
  private func app() throws -> InspectorApp { try GoldenScreenTests.app("busy-app-virtual") }

  func testTheDetailPageShowsTheWorksNameInItsTitleAndLines() throws {
    var app = try app()
    app.seek(to: .time(300_000_000))
    // #16 is the request that arrives at 0.3 s (see the golden busy-app-500ms).
    XCTAssertTrue(app.showDetail(of: ActionID(rawValue: 16)))
    let text = app.render(width: 120, height: 30).plainText
    XCTAssertTrue(text.contains("Action #16 · after · request 12"), text)
    XCTAssertTrue(text.contains("   name         request 12"), text)
  }

  func testSearchingByNameFindsEveryActionOfThatRequestAcrossSchedulers() throws {
    var app = try app()
    for key in [InputKey.character("/")] + "name:request 12".map({ .character($0) }) + [.enter] {
      _ = app.handle(key)
    }
    let replay = app.replay
    let actions = Set(
      replay.eventIndices.compactMap { index -> ActionIndex? in
        let event = replay.event(index)
        guard event.kind == .schedule, let action = event.action,
          replay.work(of: action)?.name == "request 12"
        else { return nil }
        return action
      })
    let schedulers = Set(actions.map { replay.action($0).scheduler })
    XCTAssertGreaterThan(schedulers.count, 2, "the request's work spans schedulers: \(schedulers)")
    // The first match is a schedule or begin of one of them; n walks on to the others.
    var found = Set<ActionIndex>()
    for _ in 0..<40 {
      if let action = replay.event(EventIndex(app.replay.position - 1)).action {
        found.insert(action)
      }
      _ = app.handle(.character("n"))
    }
    XCTAssertEqual(found, actions, "every action named request 12, and no other")
  }

  func testSearchingByNameStepsThroughEveryEventOfTheRequestCancelsIncluded() throws {
    var app = try app()
    for key in [InputKey.character("/")] + "name:request 12".map({ .character($0) }) + [.enter] {
      _ = app.handle(key)
    }
    let replay = app.replay
    let events = replay.eventIndices.filter { index in
      replay.event(index).action.map { replay.work(of: $0)?.name == "request 12" } ?? false
    }
    XCTAssertTrue(events.contains { replay.event($0).kind == .cancel }, "the request cancels")
    let status = app.render(width: 200, height: 30).plainText.split(separator: "\n").last ?? ""
    XCTAssertTrue(status.contains("1/\(events.count) matching events"), String(status))
    var stepped: [EventIndex] = []
    for _ in events {
      stepped.append(EventIndex(app.replay.position - 1))
      _ = app.handle(.character("n"))
    }
    XCTAssertEqual(stepped, events, "n steps through each of the request's events in order")
  }
}
