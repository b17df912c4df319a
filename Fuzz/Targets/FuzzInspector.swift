@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat

// Target `inspector`: reader → replay → InspectorApp, driven by keys, ticks and renders at sizes
// chosen by the input, into a grid (no terminal).

private let keys: [InputKey] =
  [
    .up, .down, .left, .right, .pageUp, .pageDown, .home, .end, .enter, .escape, .tab, .backTab,
    .backspace, .resize(width: 80, height: 24),
  ] + Array(" ?qnNpP[]mM+=-zZtTgG@/fvjk#e0123456789.smuµx:").map { InputKey.character($0) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInspector(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
  guard let trace = TraceReader.parse(input.trace, file: "fuzz.trace").trace else { return 0 }
  let replay = ReplayEngine(trace: trace, keyframeInterval: 1 + Int(input.byte() % 64))
  var app = InspectorApp(
    replay: replay, name: "fuzz.trace", timeStep: input.bool() ? input.int64() : nil)
  var operations = 0
  // Renders cost the most by far; a few per input at everyday sizes find what many would, and
  // the extreme sizes are the grid's own tests' job (ScreenGridTests), so they come rarely here.
  var renders = 0
  while input.hasMore, operations < 200 {
    operations += 1
    switch input.byte() % 8 {
    case 0, 1, 2, 3:
      let key = keys[Int(input.byte()) % keys.count]
      if key == .character("q") { continue }
      _ = app.handle(key)
    case 4:
      app.tick(elapsed: input.int64())
    case 5:
      guard renders < 6 else { continue }
      renders += 1
      let extreme = input.byte() % 64 == 0
      let width = extreme ? input.int(typical: 0...220) : 40 + Int(input.byte()) % 160
      let height = extreme ? input.int(typical: 0...70) : 10 + Int(input.byte()) % 50
      _ = app.render(width: width, height: height, colors: input.bool(), keyHints: input.bool())
    case 6:
      if let target = TimeText.parse(input.text(maxLength: 12)) { app.seek(to: target) }
    default:
      _ = TimeText.seconds(input.int64())
      _ = TimeText.duration(input.int64())
    }
  }
  _ = app.render(width: 100, height: 30).plainText
  return 0
}
