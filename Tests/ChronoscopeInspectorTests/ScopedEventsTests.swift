@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

@_spi(Benchmarks) @testable import ChronoscopeInspector

/// The events of some lanes read through the lanes' index (`ScopedEvents`) are those a filter
/// over every event keeps (`LaneScope.contains`), in order, however they are asked for.
final class ScopedEventsTests: XCTestCase {
  func testScopedEventsAreTheFilteredEventsOnEveryRecordingGroupingAndLaneSet() throws {
    let names = try FileManager.default.contentsOfDirectory(
      atPath: GoldenScreenTests.recordings.path
    ).filter { $0.hasSuffix(".trace") }.sorted()
    XCTAssertFalse(names.isEmpty)
    var checkedTasks = false
    for name in names {
      let path = GoldenScreenTests.recordings.appendingPathComponent(name).path
      let replay = ReplayEngine(trace: try XCTUnwrap(TraceReader.read(path: path).trace))
      for grouping: InspectorState.Grouping in [.byScheduler, .byThread, .byTask] {
        let lanes = Lane.lanes(of: replay, grouping: grouping)
        checkedTasks = checkedTasks || (grouping == .byTask && !lanes.isEmpty)
        let index = StripIndex(replay, grouping: grouping)
        // A few lanes alone (spread over the list), and all of them.
        let spread = stride(from: 0, to: lanes.count, by: max(lanes.count / 3, 1))
        let sets = spread.map { [lanes[$0]] } + [lanes]
        for lanes in sets {
          let scope = Lane.scope(of: lanes, grouping: grouping, filtered: true)
          let expected = replay.eventIndices.filter { scope.contains(replay.event($0), replay) }
          let context = "\(name) \(grouping) \(lanes.map(\.name))"
          // Searched run by run, and merged into one run, as a view over many lanes is.
          for mostRuns in [Int.max, 0] {
            let scoped = index.events(of: lanes, in: replay, mostRuns: mostRuns)
            assert(
              scoped, equals: expected, eventCount: replay.eventCount, "\(context) \(mostRuns)")
          }
        }
      }
      let marks = replay.eventIndices.filter { replay.event($0).kind == .mark }
      assert(
        StripIndex(replay, grouping: .byScheduler).marks, equals: marks,
        eventCount: replay.eventCount,
        "\(name) marks")
    }
    XCTAssertTrue(checkedTasks, "a recording names tasks")
  }

  private func assert(
    _ scoped: ScopedEvents, equals expected: [EventIndex], eventCount: Int, _ context: String,
    line: UInt = #line
  ) {
    XCTAssertEqual(scoped.count, expected.count, context, line: line)
    // Every row through `events(onRows:)`, and a spread of them one by one.
    let rows = Array(stride(from: 0, to: expected.count, by: 13)) + [expected.count - 1]
    for row in rows where row >= 0 {
      XCTAssertEqual(scoped.event(atRow: row), expected[row], context, line: line)
    }
    XCTAssertEqual(scoped.events(onRows: expected.indices), expected, context, line: line)
    // The answers change only at an event's offset and the one after it: every such position,
    // and the ends.
    let positions = Set(expected.flatMap { [$0.offset, $0.offset + 1] } + [0, eventCount]).sorted()
    // Compared whole, so that a mismatch shows where, at one assertion's cost.
    var (answers, wanted) = ([String](), [String]())
    var before = 0
    for position in positions {
      while before < expected.count, expected[before].offset < position { before += 1 }
      let first = scoped.first(atOrAfter: position).map(\.number)
      let last = scoped.last(before: position).map(\.number)
      answers.append("\(position): \(scoped.count(before: position)) \(first ?? 0) \(last ?? 0)")
      let wantedFirst = before < expected.count ? expected[before].number : 0
      let wantedLast = before > 0 ? expected[before - 1].number : 0
      wanted.append("\(position): \(before) \(wantedFirst) \(wantedLast)")
    }
    XCTAssertEqual(answers, wanted, context, line: line)
  }
}

extension ScopedEventsTests {
  private func busyApp() throws -> InspectorApp {
    let path = GoldenScreenTests.recordings.appendingPathComponent("busy-app-virtual.trace").path
    let trace = try XCTUnwrap(TraceReader.read(path: path).trace)
    return InspectorApp(replay: ReplayEngine(trace: trace), name: "busy-app-virtual.trace")
  }

  /// The events `key` moves to, pressed until it says there is no other.
  private static func visits(pressing key: Character, in app: inout InspectorApp) -> [EventIndex] {
    var visited: [EventIndex] = []
    while app.handle(.character(key)), app.state.message == nil,
      let current = app.replay.currentIndex
    {
      visited.append(current)
    }
    return visited
  }

  func testMarkKeysVisitEveryMarkInOrderThenSayThereIsNoOther() throws {
    var app = try busyApp()
    let marks = app.replay.eventIndices.filter { app.replay.event($0).kind == .mark }
    XCTAssertEqual(marks.count, 5)
    let visited = Self.visits(pressing: "m", in: &app)
    XCTAssertEqual(visited, marks)
    XCTAssertEqual(app.state.message, "no later mark")
    app.state.message = nil
    _ = app.handle(.character("M"))
    XCTAssertEqual(app.replay.currentIndex, marks[marks.count - 2])
  }

  func testLaneKeysVisitEveryEventOfTheSelectedLaneInOrder() throws {
    var app = try busyApp()
    _ = app.handle(.character("j"))  // the second lane
    let lane = app.lanes[1]
    let scope = Lane.scope(of: [lane], grouping: app.state.grouping, filtered: true)
    let events = app.replay.eventIndices.filter { scope.contains(app.replay.event($0), app.replay) }
    XCTAssertGreaterThan(events.count, 10)
    let visited = Self.visits(pressing: "]", in: &app)
    XCTAssertEqual(visited, events)
    XCTAssertEqual(app.state.message, "no later event on \(lane.name)")
  }
}
