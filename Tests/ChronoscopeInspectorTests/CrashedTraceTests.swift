@_spi(Benchmarks) import ChronoscopeInspector
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
import ChronoscopeTraceFormat
import XCTest

final class CrashedTraceTests: XCTestCase {
  func testATraceOfACrashedProcessNamesTheSignalInTheHeaderAndStatus() throws {
    let text = """
      {"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"x","pid":1,"metadata":{}}
      {"t":0,"e":"scheduler","q":1,"label":"main","kind":"main","family":"dispatch"}
      {"t":1,"e":"schedule","a":1,"q":1,"mode":"async","due":1,"th":1}
      {"t":2,"e":"begin","a":1,"th":4,"run":1}
      {"t":3,"e":"crash","signal":"SIGSEGV","th":4}
      """
    let trace = try XCTUnwrap(TraceReader.parse(Array(text.utf8), file: "crash").trace)
    let app = InspectorApp(replay: ReplayEngine(trace: trace), name: "crash.trace")
    let screen = app.render(width: 200, height: 30).plainText
    XCTAssertTrue(screen.split(separator: "\n")[0].contains("⚠ crashed: SIGSEGV"), screen)
    XCTAssertTrue(screen.contains("the process crashed (SIGSEGV on thread 4)"), screen)
  }

  func testATraceOfAProcessStoppedByCtrlCSaysStoppedNotCrashedInTheHeader() throws {
    let text = """
      {"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"x","pid":1,"metadata":{}}
      {"t":0,"e":"scheduler","q":1,"label":"main","kind":"main","family":"dispatch"}
      {"t":1,"e":"schedule","a":1,"q":1,"mode":"async","due":1,"th":1}
      {"t":3,"e":"crash","signal":"SIGINT","th":1}
      """
    let trace = try XCTUnwrap(TraceReader.parse(Array(text.utf8), file: "stop").trace)
    let app = InspectorApp(replay: ReplayEngine(trace: trace), name: "stop.trace")
    let header = String(app.render(width: 200, height: 30).plainText.split(separator: "\n")[0])
    XCTAssertTrue(header.contains("⚠ stopped: SIGINT"), header)
    XCTAssertFalse(header.contains("crashed"), header)
  }
}
