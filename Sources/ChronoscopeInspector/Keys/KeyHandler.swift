@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen

/// What a key does: a new UI state and the effect the inspector carries out, from the state
/// and what the key needs to know of the replay and the screen (``Context``), without either.
///
/// ```swift
/// let (state, effect) = KeyHandler.handle(.character("j"), in: state, context: context)
/// ```
///
/// While the screen is too small to draw (see ``InspectorApp/minimumWidth``), only `q` and a
/// resize do anything: keys typed at a screen that says "terminal too small" must not move the
/// replay.
struct KeyHandler {
  /// What a key needs to know of the replay, the cache and the screen.
  struct Context: Equatable {
    /// Whether the screen is below the smallest size.
    var isTooSmall = false
    /// The trace's end, where `G` goes and playback stops.
    var end: Int64 = 0
    /// The strips' span that shows the whole trace (see ``InspectorApp/fittingSpan``).
    var fittingSpan: Int64 = 1_000
    /// The rows of the focused panel of the main view.
    var rowCount = 0
    /// The actions the page showing (a detail, a finding, a blame) links to, one a row: nil
    /// for a row with no action.
    var links: [ActionIndex?] = []
    /// The findings listed.
    var findingCount = 0
    /// The most the help scrolls at the screen's size.
    var helpScrollLimit = 0
    /// Whether the trace names Swift tasks, so that `v` reaches the lanes by task.
    var hasTasks = false
  }

  /// Speeds `+`/`-` step through.
  static let speeds: ClosedRange<Double> = (1.0 / 64)...1024
  /// How far `z`/`Z` zoom the lane strips.
  static let laneSpans: ClosedRange<Int64> = 1_000...(Int64.max / 4)

  /// The state as the key leaves it.
  private(set) var state: InspectorState
  private let context: Context

  /// The state after `key`, and what the inspector must do beyond it.
  static func handle(_ key: InputKey, in state: InspectorState, context: Context) -> (
    state: InspectorState, effect: KeyEffect
  ) {
    var handler = KeyHandler(state: state, context: context)
    let effect = handler.handle(key)
    return (handler.state, effect)
  }

  private mutating func handle(_ key: InputKey) -> KeyEffect {
    if case .resize(let width, let height) = key {
      // Keeps the message: the first resize, with the size at the start, comes before any key.
      return .resize(width: width, height: height)
    }
    if context.isTooSmall { return key == .character("q") ? .quit : .none }
    state.message = nil
    if case .mouse(let event) = key { return .mouse(event) }
    if let prompt = state.prompt { return handlePrompt(prompt, key) }
    switch state.mode {
    case .detail(_, let link), .finding(_, let link), .blame(_, let link):
      if let effect = handleLinks(key, link: link) { return effect }
    case .findings(let selected):
      if let effect = handleFindingsList(key, selected: selected) { return effect }
    case .help:
      if handleHelp(key) { return .none }
    case .main:
      break
    }
    if key == .character("w") {
      // Why the action shown, or the finding's, was late.
      switch state.mode {
      case .detail(let action, _): return .showBlame(of: action)
      case .finding(let index, _): return .showBlameOfFinding(index)
      default: break
      }
    }
    return handleMain(key)
  }

  /// The keys of every view, after the view's own.
  private mutating func handleMain(_ key: InputKey) -> KeyEffect {
    switch key {
    case .character("q"): return .quit
    case .character("?"):
      state.mode = state.mode == .help ? .main : .help
      state.helpScroll = 0
    case .escape, .backspace:
      if state.mode != .main {
        state.mode = .main
      } else if key == .escape, state.search != nil {
        state.search = nil
        return .clearMatches
      }
    case .character(" "):
      state.playing.toggle()
      // Play runs to the trace's end, which may be after its last event (its close line).
      if state.clock >= context.end, state.playing { state.playing = false }
    case .character("n") where state.search != nil: return .jumpToMatch(forward: true)
    case .character("N") where state.search != nil: return .jumpToMatch(forward: false)
    case .character("n"), .right: return .step(forward: true)
    case .character("p"), .left: return .step(forward: false)
    case .character("]"): return .stepOnLane(forward: true)
    case .character("["): return .stepOnLane(forward: false)
    case .character("x"): return .jumpToFinding(forward: true)
    case .character("X"): return .jumpToFinding(forward: false)
    case .character("!"):
      state.history = []
      state.mode = .findings(selected: 0)
    case .character("m"): return .jumpToMark(forward: true)
    case .character("M"): return .jumpToMark(forward: false)
    case .character("+"), .character("="): setSpeed(state.speed * 2)
    case .character("-"): setSpeed(state.speed / 2)
    case .character("z"): zoom(in: true)
    case .character("Z"): zoom(in: false)
    case .character("0"): state.laneSpan = context.fittingSpan
    case .character("t"): return .seekToTime(state.clock.adding(saturating: state.timeStep))
    case .character("T"): return .seekToTime(state.clock.subtracting(saturating: state.timeStep))
    case .character("g"), .home: return .seekToEvent(0)
    case .character("G"), .end: return .seekToTime(context.end)
    case .character("@"): state.prompt = .seek("")
    case .character("/"): state.prompt = .search("")
    case .character("f"): state.prompt = .filter(state.laneFilter)
    case .character("v"): return .group(nextGrouping)
    case .character("o"): return .order(nextLaneOrder)
    case .character("h"): return .hideIdleLanes(!state.hidesIdleLanes)
    case .character("j"), .down: return moveSelection(by: 1)
    case .character("k"), .up: return moveSelection(by: -1)
    case .pageDown: return moveSelection(by: 10)
    case .pageUp: return moveSelection(by: -10)
    case .tab: cycleFocus(by: 1)
    case .backTab: cycleFocus(by: -1)
    case .enter: return state.mode == .main ? .openDetail : .none
    case .resize, .mouse, .character: break
    }
    return .none
  }

  /// Keys a view with selectable actions (a detail, a finding, a blame) takes before the main
  /// ones: moving among them, following one, and walking back; nil for a key it leaves.
  private mutating func handleLinks(_ key: InputKey, link: Int) -> KeyEffect? {
    let links = context.links
    switch key {
    case .character("j"), .down, .tab:
      if !links.isEmpty { state.mode = state.mode.selecting(min(link + 1, links.count - 1)) }
    case .character("k"), .up, .backTab:
      state.mode = state.mode.selecting(max(link - 1, 0))
    case .enter:
      guard links.indices.contains(link), let target = links[link] else {
        state.message =
          links.indices.contains(link) ? "no action ran then" : "no related action to follow"
        return .none
      }
      state.history.append(state.mode)
      state.mode = .detail(action: target, link: 0)
    case .escape, .backspace:
      goBack()
    default:
      return nil
    }
    return KeyEffect.none
  }

  /// Keys the help takes before the main ones: scrolling it. False for a key it leaves.
  private mutating func handleHelp(_ key: InputKey) -> Bool {
    let limit = context.helpScrollLimit
    let scroll: Int
    switch key {
    case .character("j"), .down: scroll = state.helpScroll + 1
    case .character("k"), .up: scroll = state.helpScroll - 1
    case .pageDown, .character(" "): scroll = state.helpScroll + 10
    case .pageUp: scroll = state.helpScroll - 10
    case .character("g"), .home: scroll = 0
    case .character("G"), .end: scroll = limit
    default: return false
    }
    state.helpScroll = min(max(scroll, 0), limit)
    return true
  }

  /// Keys the list of findings takes before the main ones; nil for a key it leaves.
  private mutating func handleFindingsList(_ key: InputKey, selected: Int) -> KeyEffect? {
    let last = max(context.findingCount - 1, 0)
    switch key {
    case .character("j"), .down: state.mode = .findings(selected: min(selected + 1, last))
    case .character("k"), .up: state.mode = .findings(selected: max(selected - 1, 0))
    case .pageDown: state.mode = .findings(selected: min(selected + 10, last))
    case .pageUp: state.mode = .findings(selected: max(selected - 10, 0))
    case .character("i"):
      state.showsInfoFindings.toggle()
      state.mode = .findings(selected: 0)
      return .listFindings
    case .enter:
      guard (0..<context.findingCount).contains(selected) else { return KeyEffect.none }
      state.history.append(state.mode)
      return .openFinding(selected)
    case .escape, .backspace:
      goBack()
    default:
      return nil
    }
    return KeyEffect.none
  }

  /// A key at a prompt: typing, Backspace, Esc to close it, Enter to submit it.
  private mutating func handlePrompt(_ prompt: InspectorState.Prompt, _ key: InputKey)
    -> KeyEffect
  {
    var text: String
    switch prompt {
    case .search(let value), .seek(let value), .filter(let value): text = value
    }
    switch key {
    case .escape:
      state.prompt = nil
      return .none
    case .enter:
      state.prompt = nil
      switch prompt {
      case .search: return .submit(.search(text))
      case .seek: return .submit(.seek(text))
      case .filter: return .submit(.filter(text))
      }
    case .backspace:
      if !text.isEmpty { text.removeLast() }
    case .character(let character):
      if text.count < 200 { text.append(character) }
    default:
      return .none
    }
    switch prompt {
    case .search: state.prompt = .search(text)
    case .seek: state.prompt = .seek(text)
    case .filter:
      state.prompt = .filter(text)
      return .filterLanes(text)  // lanes and panels filter as you type
    }
    return .none
  }

  private mutating func goBack() {
    state.mode = state.history.popLast() ?? .main
  }

  private mutating func setSpeed(_ speed: Double) {
    state.speed = min(max(speed, Self.speeds.lowerBound), Self.speeds.upperBound)
  }

  /// Halves or doubles the strips' span; zooming out stops where the whole trace fits.
  private mutating func zoom(in zoomIn: Bool) {
    let fit = context.fittingSpan
    if !zoomIn, state.laneSpan >= fit {
      state.message = "the strips show the whole trace"
      return
    }
    let span = zoomIn ? state.laneSpan / 2 : min(state.laneSpan.multiplied(saturating: 2), fit)
    state.laneSpan = min(max(span, Self.laneSpans.lowerBound), Self.laneSpans.upperBound)
  }

  /// Moves the focused panel's selection; the Events panel's is the app's to move, as its rows
  /// are the events in scope.
  private mutating func moveSelection(by delta: Int) -> KeyEffect {
    if state.focus == .events { return .moveEventSelection(by: delta) }
    let count = context.rowCount
    guard count > 0 else { return .none }
    state.selection[state.focus] = min(max(state.selected(state.focus) + delta, 0), count - 1)
    return .none
  }

  private mutating func cycleFocus(by delta: Int) {
    let panels = InspectorState.Panel.allCases
    let index = (state.focus.rawValue + delta + panels.count) % panels.count
    state.focus = panels[index]
  }

  /// What `o` turns to: the trace's order, name, activity, findings, and round again.
  private var nextLaneOrder: InspectorState.LaneOrder {
    let orders = InspectorState.LaneOrder.allCases
    return orders[((orders.firstIndex(of: state.laneOrder) ?? 0) + 1) % orders.count]
  }

  /// What `v` turns to: scheduler, thread, then task when the trace names tasks.
  private var nextGrouping: InspectorState.Grouping {
    switch state.grouping {
    case .byScheduler: .byThread
    case .byThread: context.hasTasks ? .byTask : .byScheduler
    case .byTask: .byScheduler
    }
  }
}
