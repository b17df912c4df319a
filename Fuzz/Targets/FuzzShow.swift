@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

// Target `show`: what `chronoscope show` does with a file and its options, from load to the
// printed frame. The options come from the choices: `--at` text, `--size`, `--by-thread`,
// `--filter` and `--action`. The command's own checks live in the executable target, which a
// fuzzer cannot link, so the steps are repeated here in the same order (Sources/chronoscope/
// Show.swift); keep them in step.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShow(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
  let reading = TraceReader.parse(input.trace, file: "fuzz.trace")
  guard let trace = reading.trace, !reading.hasErrors else { return 0 }
  let at: String
  switch input.byte() % 6 {
  case 0: at = "e\(input.int(typical: 0...200))"
  case 1: at = "#\(input.int(typical: 0...20))"
  case 2: at = "\(input.int64())ns"
  case 3: at = "\(Double(input.int64()) / 1e9)s"
  default: at = input.text(maxLength: 16)
  }
  guard case .success(let target) = TimeText.target(at) else { return 0 }
  let width = max(InspectorApp.minimumWidth, min(input.int(typical: 60...300), 1000))
  let height = max(InspectorApp.minimumHeight, min(input.int(typical: 16...80), 1000))
  // As `chronoscope show` prepares it: taking the trace's events.
  var app = InspectorApp(replay: ReplayEngine(consuming: trace), name: "fuzz.trace")
  switch target {
  case .time(let time) where time > app.replay.span: return 0
  case .event(let number) where number > app.replay.eventCount: return 0
  case .action(let id) where app.replay.index(of: id) == nil: return 0
  default: break
  }
  app.seek(to: target)
  if input.bool() { app.group(by: .byThread) }
  if input.bool() { app.filterLanes(input.text(maxLength: 6)) }
  if input.bool() {
    let actions = app.replay.actionIndices
    let id =
      actions.isEmpty || input.bool()
      ? ActionID(rawValue: UInt32(truncatingIfNeeded: input.int64()))
      : app.replay.action(actions[input.index(actions.count)]).id
    guard app.showDetail(of: id) else { return 0 }
  }
  _ = app.render(width: width, height: height, colors: false, keyHints: false).plainText
  return 0
}
