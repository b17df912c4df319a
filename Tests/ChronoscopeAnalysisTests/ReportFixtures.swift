@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation
import XCTest

/// A small trace whose strings carry everything a JSON writer must get right: quotes,
/// backslashes, controls, C1 and bidi characters, non-ASCII, and work values whose keys
/// `JSONSerialization` sorts with numbers and case folded (`b10` after `B2`, `<` before digits).
enum ReportFixtures {
  static let hostile = "q\"\\\n\u{1}\u{8}\u{C}\u{7F}\u{85}\u{202E}é🦆/"

  static func replay() throws -> ReplayEngine {
    var lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"2026-01-01T00:00:00Z","process":"t","pid":1,"cores":1,"metadata":{}}"#,
      #"{"t":0,"e":"thread","th":1,"name":"main"}"#,
      #"{"t":0,"e":"scheduler","q":1,"label":"main","kind":"main","family":"dispatch"}"#,
      #"{"t":0,"e":"scheduler","q":2,"label":\#(json(hostile)),"kind":"serial","family":"dispatch"}"#,
      #"{"t":0,"e":"site","site":1,"file":\#(json("App/\(hostile).swift")),"line":40,"func":"load()"}"#,
    ]
    // A long run on the main thread, and work on scheduler 2 that waits behind it: late, blamed.
    lines += [
      #"{"t":0,"e":"schedule","a":1,"q":1,"mode":"async","due":0,"th":1}"#,
      #"{"t":10,"e":"begin","a":1,"th":1,"run":1}"#,
      #"{"t":20,"e":"schedule","a":2,"q":2,"mode":"after","delay":1000,"due":1020,"th":1,"site":1}"#,
      #"{"t":20,"e":"work","a":2,"name":\#(json(hostile)),"fields":{"B2":"x","b10":\#(json(hostile)),"<1":"y","10":"z","a":"w"}}"#,
      #"{"t":400000000,"e":"end","a":1,"th":1,"run":1,"dur":399999990}"#,
      #"{"t":400000100,"e":"begin","a":2,"th":1,"run":1}"#,
      #"{"t":400000200,"e":"end","a":2,"th":1,"run":1,"dur":100}"#,
      #"{"t":400000300,"e":"schedule","a":3,"q":2,"mode":"async","due":400000300,"th":1}"#,
      #"{"t":400000400,"e":"close","events":8,"dropped":0}"#,
    ]
    let reading = TraceReader.parse(Array((lines.joined(separator: "\n") + "\n").utf8), file: "t")
    let trace = try XCTUnwrap(reading.trace, "\(reading.diagnostics)")
    return ReplayEngine(trace: trace)
  }

  /// `text` as a JSON string.
  static func json(_ text: String) -> String {
    String(decoding: JSONWriter.encoded(text), as: UTF8.self)
  }

  /// What the commands wrote before the reports were library types: `JSONSerialization` with
  /// sorted keys and unescaped slashes, then the shared escapes. A report's bytes read back and
  /// written that way must come out the same.
  static func serializationBytes(of bytes: [UInt8]) throws -> [UInt8] {
    let object = try JSONSerialization.jsonObject(with: Data(bytes))
    let data = try JSONSerialization.data(
      withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return Array(JSONEscaping.escapingControls(inJSON: String(decoding: data, as: UTF8.self)).utf8)
  }
}
