import Replay
import Screen
import TraceFormat

/// The terminal inspector without a terminal: replay state plus UI state, driven by keys and
/// clock ticks, drawn into a ``ScreenGrid``.
///
/// ```swift
/// var app = InspectorApp(replay: ReplayEngine(trace: trace), name: "busy-app.trace")
/// _ = app.handle(.character("n"))       // next event
/// print(app.render(width: 100, height: 30).plainText)
/// ```
///
/// Everything testable lives here; the terminal adapter only copies the grid and feeds keys.
public struct InspectorApp: Sendable {
  /// The replay.
  public private(set) var replay: ReplayEngine
  /// The UI state.
  public private(set) var state: InspectorState
  /// The trace's name in the header.
  public let name: String
  /// Speeds `+`/`-` step through.
  static let speeds: ClosedRange<Double> = (1.0 / 64)...1024

  /// The smallest size the main view is drawn at.
  public static let minimumWidth = 60
  /// The smallest size the main view is drawn at.
  public static let minimumHeight = 16

  /// Makes an inspector at the start of the trace.
  ///
  /// - Parameter timeStep: How far `t`/`T` move; by default a fiftieth of the trace.
  public init(replay: ReplayEngine, name: String, timeStep: Int64? = nil) {
    self.replay = replay
    self.name = name
    state = InspectorState(timeStep: timeStep ?? max(replay.span / 50, 1_000))
  }

  // MARK: - Input

  /// Handles one key; returns false when the user quits.
  public mutating func handle(_ key: InputKey) -> Bool {
    state.message = nil
    if let prompt = state.prompt { return handlePrompt(prompt, key) }
    switch key {
    case .character("q"): return false
    case .character("?"): state.mode = state.mode == .help ? .main : .help
    case .escape:
      if state.mode != .main {
        state.mode = .main
      } else if state.search != nil {
        state.search = nil
        matches = []
      }
    case .character(" "):
      state.playing.toggle()
      if replay.position == replay.eventCount, state.playing { state.playing = false }
    case .character("n") where state.search != nil: jumpToMatch(forward: true)
    case .character("N") where state.search != nil: jumpToMatch(forward: false)
    case .character("n"), .right: step(forward: true)
    case .character("p"), .left: step(forward: false)
    case .character("]"): stepOnLane(forward: true)
    case .character("["): stepOnLane(forward: false)
    case .character("+"), .character("="): setSpeed(state.speed * 2)
    case .character("-"): setSpeed(state.speed / 2)
    case .character("t"): seek(time: state.clock &+ state.timeStep)
    case .character("T"): seek(time: state.clock &- state.timeStep)
    case .character("g"), .home: seek(index: 0)
    case .character("G"), .end: seek(index: replay.eventCount)
    case .character("@"): state.prompt = .seek("")
    case .character("/"): state.prompt = .search("")
    case .character("f"): state.prompt = .filter(state.laneFilter)
    case .character("v"):
      state.grouping = state.grouping == .byQueue ? .byThread : .byQueue
      state.selection[.lanes] = 0
    case .character("j"), .down: moveSelection(by: 1)
    case .character("k"), .up: moveSelection(by: -1)
    case .pageDown: moveSelection(by: 10)
    case .pageUp: moveSelection(by: -10)
    case .tab: cycleFocus(by: 1)
    case .backTab: cycleFocus(by: -1)
    case .enter: openDetail()
    case .resize, .character, .backspace: break
    }
    return true
  }

  /// Advances playback by `elapsed` nanoseconds of wall time.
  public mutating func tick(elapsed: Int64) {
    guard state.playing else { return }
    state.clock = min(state.clock &+ Int64(Double(elapsed) * state.speed), replay.span)
    replay.seek(toTime: state.clock)
    if replay.position == replay.eventCount {
      state.playing = false
      state.message = "end of trace"
    }
  }

  private mutating func handlePrompt(_ prompt: InspectorState.Prompt, _ key: InputKey) -> Bool {
    var text: String
    switch prompt {
    case .search(let value), .seek(let value), .filter(let value): text = value
    }
    switch key {
    case .escape:
      state.prompt = nil
      return true
    case .enter:
      state.prompt = nil
      submit(prompt, text)
      return true
    case .backspace:
      if !text.isEmpty { text.removeLast() }
    case .character(let character):
      if text.count < 200 { text.append(character) }
    default:
      return true
    }
    switch prompt {
    case .search: state.prompt = .search(text)
    case .seek: state.prompt = .seek(text)
    case .filter:
      state.prompt = .filter(text)
      state.laneFilter = text  // lanes filter as you type
      state.selection[.lanes] = 0
    }
    return true
  }

  private mutating func submit(_ prompt: InspectorState.Prompt, _ text: String) {
    switch prompt {
    case .search:
      guard !text.isEmpty else {
        state.search = nil
        matches = []
        return
      }
      state.search = text
      matches = findMatches()
      if matches.isEmpty {
        state.message = "no match for \"\(text)\""
      } else {
        jumpToMatch(forward: true)
      }
    case .seek:
      if let target = TimeText.parse(text) {
        seek(to: target)
      } else {
        state.message = "cannot read \"\(text)\" (try 1.25s, 300ms or #120)"
      }
    case .filter:
      state.laneFilter = text
    }
  }

  /// Moves the cursor to a parsed seek target (`#0` is the start).
  public mutating func seek(to target: TimeText.Target) {
    switch target {
    case .time(let time): seek(time: time)
    case .event(let number): seek(index: number)
    }
  }

  // MARK: - Moving

  private mutating func step(forward: Bool) {
    state.playing = false
    if forward { replay.stepForward() } else { replay.stepBackward() }
    state.clock = replay.now
  }

  private mutating func seek(index: Int) {
    state.playing = false
    replay.seek(to: index)
    state.clock = replay.now
  }

  private mutating func seek(time: Int64) {
    state.playing = false
    state.clock = min(max(time, 0), replay.span)
    replay.seek(toTime: state.clock)
  }

  private mutating func setSpeed(_ speed: Double) {
    state.speed = min(max(speed, Self.speeds.lowerBound), Self.speeds.upperBound)
  }

  private mutating func stepOnLane(forward: Bool) {
    let lanes = self.lanes
    guard !lanes.isEmpty else { return }
    let lane = lanes[min(state.selected(.lanes), lanes.count - 1)]
    state.playing = false
    if forward {
      var index = replay.position
      while index < replay.eventCount, !lane.contains(replay.events[index], replay) { index += 1 }
      if index < replay.eventCount {
        seek(index: index + 1)
      } else {
        state.message = "no later event on \(lane.title)"
      }
    } else {
      var index = replay.position - 2
      while index >= 0, !lane.contains(replay.events[index], replay) { index -= 1 }
      if index >= 0 {
        seek(index: index + 1)
      } else {
        state.message = "no earlier event on \(lane.title)"
      }
    }
  }

  /// Event indices matching the search, in order; found once when the search is submitted.
  private(set) var matches: [Int] = []

  private func findMatches() -> [Int] {
    guard let search = state.search?.lowercased(), !search.isEmpty else { return [] }
    var labels: [UInt32: Bool] = [:]
    for (id, scheduler) in replay.schedulers {
      labels[id] = scheduler.label.lowercased().contains(search)
    }
    var sites: [UInt32: Bool] = [:]
    for (id, site) in replay.callSites {
      sites[id] = "\(site.file):\(site.line) \(site.function)".lowercased().contains(search)
    }
    return replay.events.indices.filter { index in
      let event = replay.events[index]
      if event.kind == .mark {
        return replay.marks.indices.contains(Int(event.detail))
          && replay.marks[Int(event.detail)].name.lowercased().contains(search)
      }
      guard event.kind == .schedule || event.kind == .begin else { return false }
      let action = replay.actions[Int(event.action)]
      return labels[action.scheduler] == true || sites[action.site] == true
    }
  }

  private mutating func jumpToMatch(forward: Bool) {
    guard !matches.isEmpty else {
      state.message = "no match for \"\(state.search ?? "")\""
      return
    }
    let current = replay.position - 1
    let target =
      forward
      ? matches.first { $0 > current } ?? matches[0]
      : matches.last { $0 < current } ?? matches[matches.count - 1]
    seek(index: target + 1)
  }

  // MARK: - Selection

  private mutating func moveSelection(by delta: Int) {
    if case .detail = state.mode { return }
    let count = rowCount(state.focus)
    guard count > 0 else { return }
    state.selection[state.focus] = min(max(state.selected(state.focus) + delta, 0), count - 1)
  }

  private mutating func cycleFocus(by delta: Int) {
    let panels = InspectorState.Panel.allCases
    let index = (state.focus.rawValue + delta + panels.count) % panels.count
    state.focus = panels[index]
  }

  private func rowCount(_ panel: InspectorState.Panel) -> Int {
    switch panel {
    case .lanes: lanes.count
    case .pending: replay.pendingCount
    case .running: replay.running.count
    case .events: replay.eventCount
    }
  }

  /// The action the focused panel's selection points at.
  var selectedAction: Int? {
    switch state.focus {
    case .pending:
      let count = replay.pendingCount
      guard count > 0 else { return nil }
      return replay.pending(first: min(state.selected(.pending), count - 1) + 1).last
    case .running:
      let running = replay.running
      return running.isEmpty ? nil : running[min(state.selected(.running), running.count - 1)]
    case .events, .lanes:
      guard let event = replay.currentEvent, event.action != ReplayEvent.noAction else {
        return nil
      }
      return Int(event.action)
    }
  }

  private mutating func openDetail() {
    guard state.mode == .main else { return }
    if let action = selectedAction {
      state.mode = .detail(action: action)
    } else {
      state.message = "no action selected"
    }
  }
}
