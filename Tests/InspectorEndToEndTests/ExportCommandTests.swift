import ChronoscopeTestSupport
import Foundation
import XCTest

/// `chronoscope export`: a file Perfetto opens, gzip on request, exit 2 for bad input.
final class ExportCommandTests: XCTestCase {
  func testExportWritesJSONAndGzipWritesTheSameCompressed() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("export-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let plain = folder.appendingPathComponent("busy.json").path
    let packed = folder.appendingPathComponent("busy.json.gz").path
    let run = try CommandRun.chronoscope([
      "export", Recordings.path("busy-app"), "--format", "chrome", "-o", plain,
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("exported 1 process(es)"), run.output)
    let json = try Data(contentsOf: URL(fileURLWithPath: plain))
    let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    XCTAssertFalse((root["traceEvents"] as? [Any] ?? []).isEmpty)

    XCTAssertEqual(
      try CommandRun.chronoscope(["export", Recordings.path("busy-app"), "-o", packed, "--gzip"])
        .status, 0)
    let gunzip = Process()
    gunzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    gunzip.arguments = ["gzip", "-dc", packed]
    let pipe = Pipe()
    gunzip.standardOutput = pipe
    try gunzip.run()
    let unpacked = pipe.fileHandleForReading.readDataToEndOfFile()
    gunzip.waitUntilExit()
    XCTAssertEqual(gunzip.terminationStatus, 0)
    XCTAssertEqual(unpacked, json, "the same JSON, compressed")
  }

  /// `-o` onto a FIFO writes into it (the reader gets the JSON) and leaves it a FIFO; onto a
  /// symbolic link, writes its target and keeps the link. Renaming over either — as `-o
  /// /dev/null` once replaced the machine's /dev/null with a regular file — changes more than the
  /// output.
  func testOutputOntoAFIFOOrALinkChangesOnlyWhatItNames() throws {
    let folder = try temporaryFolder("export")
    let fifo = folder.appendingPathComponent("pipe").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let received = DispatchSemaphore(value: 0)
    let bytes = SharedValue(Data())
    Thread {
      bytes.set(FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data())
      received.signal()
    }.start()
    let run = try CommandRun.chronoscope(["export", Recordings.path("busy-app"), "-o", fifo])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertEqual(received.wait(timeout: .now() + 30), .success)
    XCTAssertNotNil(try JSONSerialization.jsonObject(with: bytes.get()), "the reader got the JSON")
    var status = stat()
    XCTAssertEqual(lstat(fifo, &status), 0)
    XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "still a FIFO")

    let target = folder.appendingPathComponent("busy.json").path
    let link = folder.appendingPathComponent("latest.json").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "busy.json")
    XCTAssertEqual(
      try CommandRun.chronoscope(["export", Recordings.path("busy-app"), "-o", link]).status, 0)
    XCTAssertEqual(
      try FileManager.default.destinationOfSymbolicLink(atPath: link), "busy.json", "still a link")
    XCTAssertNotNil(FileManager.default.contents(atPath: target), "its target was written")
  }

  func testBadInputAndOptionsExitTwoAndHelpWorks() throws {
    let missing = try CommandRun.chronoscope(["export", "/nonexistent.trace", "-o", "/tmp/x.json"])
    XCTAssertEqual(missing.status, 2, missing.output)
    let format = try CommandRun.chronoscope([
      "export", Recordings.path("retry"), "--format", "svg", "-o", "/tmp/x.json",
    ])
    XCTAssertEqual(format.status, 2, format.output)
    let unwritable = try CommandRun.chronoscope([
      "export", Recordings.path("retry"), "-o", "/nonexistent/folder/x.json",
    ])
    XCTAssertEqual(unwritable.status, 2, unwritable.output)
    XCTAssertTrue(unwritable.output.contains("cannot write"), unwritable.output)
    let copy = FileManager.default.temporaryDirectory
      .appendingPathComponent("export-input-\(UUID().uuidString).trace").path
    try FileManager.default.copyItem(atPath: Recordings.path("retry"), toPath: copy)
    defer { try? FileManager.default.removeItem(atPath: copy) }
    let overInput = try CommandRun.chronoscope(["export", copy, "-o", copy])
    XCTAssertEqual(overInput.status, 2, overInput.output)
    XCTAssertEqual(
      try String(contentsOfFile: copy, encoding: .utf8),
      try String(contentsOfFile: Recordings.path("retry"), encoding: .utf8), "the input is intact")
    let help = try CommandRun.chronoscope(["export", "--help"])
    XCTAssertEqual(help.status, 0)
    XCTAssertTrue(help.output.contains("--gzip"), help.output)
  }

  func testExportToStandardOutputEscapesEveryTerminalControlFromTheTrace() throws {
    // C1 (0x9B is a CSI), DEL, ESC, bidi overrides and isolates, line and paragraph separators.
    let label = #"evil\u009b31m\u202e\u2066\u2028\u2029\u007f\u001b[2J"#
    let lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"\u009b","process":"x\u202e","pid":1,"metadata":{}}"#,
      #"{"t":0,"e":"scheduler","q":1,"label":""# + label + #"","kind":"serial","family":"d"}"#,
      #"{"t":0,"e":"site","site":1,"file":"F\u2067.swift","line":1,"func":"f\u0085()"}"#,
      #"{"t":0,"e":"thread","th":1,"name":"t\u202d"}"#,
      #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"async","due":1,"th":1,"site":1}"#,
      #"{"t":2,"e":"begin","a":1,"th":1,"run":1}"#,
      #"{"t":3,"e":"end","a":1,"th":1,"run":1,"dur":1}"#,
      #"{"t":4,"e":"cancel","a":1,"th":1,"started":true}"#,
      #"{"t":5,"e":"close","events":5,"dropped":0}"#,
    ]
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("evil-\(UUID().uuidString).trace").path
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = try CommandRun.chronoscope(["export", path, "-o", "-"])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertFalse(
      run.output.unicodeScalars.contains {
        $0.value < 0x0A || (0x0B..<0x20).contains($0.value) || (0x7F...0x9F).contains($0.value)
          || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
          || $0.value == 0x2028 || $0.value == 0x2029
      }, run.output)
    // The JSON (before the summary line) reads back with the label intact.
    let json = try XCTUnwrap(run.output.range(of: "]}\n")).upperBound
    let root = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(run.output[..<json].utf8)) as? [String: Any])
    let names = (root["traceEvents"] as? [[String: Any]] ?? []).filter {
      $0["name"] as? String == "thread_name"
    }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
    XCTAssertEqual(names, ["evil\u{9b}31m\u{202e}\u{2066}\u{2028}\u{2029}\u{7f}\u{1b}[2J"])
  }

  /// `--gzip` with an output named as plain JSON writes the gzip data under that name and `.gz`
  /// (what Perfetto UI and `gzip -d` take it for) and says so, rather than gzip data under a
  /// `.json` name.
  func testGzipOntoAJSONNameWritesItUnderTheGzNameAndSaysSo() throws {
    let folder = try temporaryFolder("export-gzip")
    let named = folder.appendingPathComponent("out.json").path
    let run = try CommandRun.chronoscope([
      "export", Recordings.path("retry"), "--gzip", "-o", named,
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertFalse(FileManager.default.fileExists(atPath: named), "nothing under the .json name")
    let written = try Data(contentsOf: URL(fileURLWithPath: named + ".gz"))
    XCTAssertEqual(Array(written.prefix(2)), [0x1F, 0x8B], "gzip data")
    XCTAssertTrue(run.output.contains("writing \(named).gz"), run.output)
    XCTAssertTrue(run.output.contains("to \(named).gz:"), "the summary names it: \(run.output)")
  }

  /// Events the recorder dropped are marked on the timeline (a slice over the write interval
  /// before each `dropped` line, where they were lost) and counted on standard error in one line, with the runs they cost:
  /// a begin lost (its end alone), an end lost (a run to the end of the trace), work whose
  /// schedule was lost (its runs cannot be placed on a scheduler).
  func testDroppedEventsAreMarkedOnTheTimelineAndCountedOnStandardError() throws {
    let lines = [
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"app","pid":9,"metadata":{}}"#,
      #"{"t":1,"e":"scheduler","q":1,"label":"net","kind":"concurrent","family":"d"}"#,
      #"{"t":1,"e":"thread","th":1,"name":"main"}"#,
      #"{"t":1,"e":"schedule","a":1,"q":1,"mode":"async","due":1,"th":1}"#,
      #"{"t":1,"e":"schedule","a":2,"q":1,"mode":"async","due":1,"th":1}"#,
      #"{"t":2,"e":"begin","a":1,"th":1,"run":1}"#,
      #"{"t":2,"e":"dropped","count":7}"#,
      #"{"t":5,"e":"end","a":2,"th":1,"run":1,"dur":1}"#,
      #"{"t":6,"e":"begin","a":3,"th":1,"run":1}"#,
      #"{"t":7,"e":"end","a":3,"th":1,"run":1,"dur":1}"#,
      #"{"t":10,"e":"close","events":8,"dropped":7}"#,
    ]
    let path = try temporaryFolder("export-dropped").appendingPathComponent("d.trace").path
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: path, atomically: true, encoding: .utf8)
    let run = try CommandRun.chronoscope(["export", path, "-o", "-"])
    XCTAssertEqual(run.status, 0, run.output)
    let json = try XCTUnwrap(run.output.range(of: "]}\n")).upperBound
    let root = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(run.output[..<json].utf8)) as? [String: Any])
    let events = root["traceEvents"] as? [[String: Any]] ?? []
    // The write interval before the line (100 ms), from the trace's start at the earliest.
    let drops = events.filter { $0["cat"] as? String == "dropped" }
    XCTAssertEqual(drops.map { $0["ph"] as? String }, ["b", "e"], "\(drops)")
    XCTAssertEqual(drops.first?["name"] as? String, "dropped events")
    XCTAssertEqual((drops.first?["args"] as? [String: Any])?["count"] as? Int, 7)
    XCTAssertEqual(drops.map { $0["ts"] as? Double }, [0, 0.002])
    let said = run.output[json...].split(separator: "\n").filter { $0.contains("dropped") }
    XCTAssertEqual(said.count, 1, run.output)
    XCTAssertTrue(
      said.first?.contains(
        "d.trace: the recorder dropped 7 events at 1 point (marked on the timeline): not exported, 1 run whose begin was lost and 1 run of work whose schedule was lost; 1 run whose end may be lost lasts to the trace's end"
      ) ?? false, run.output)
  }

  /// A trace cut short (its last line cut off, no `close`) exports what it can, with the
  /// warnings `validate` gives about how it ended, and exit status 0.
  func testATraceCutShortExportsWhatItCanWithValidatesWarnings() throws {
    let whole = try Data(contentsOf: URL(fileURLWithPath: Recordings.path("busy-app")))
    let path = try temporaryFolder("export-cut").appendingPathComponent("cut.trace").path
    try whole.prefix(100_000).write(to: URL(fileURLWithPath: path))
    let validate = try CommandRun.chronoscope(["validate", path])
    let warnings = validate.output.split(separator: "\n").filter {
      $0.contains("did not close") || $0.contains("cut off")
    }
    XCTAssertEqual(warnings.count, 2, validate.output)
    let run = try CommandRun.chronoscope(["export", path, "-o", "/dev/null"])
    XCTAssertEqual(run.status, 0, run.output)
    for warning in warnings {
      XCTAssertTrue(run.output.contains(warning), "\(warning) in \(run.output)")
    }
    XCTAssertTrue(run.output.contains("exported 1 process(es)"), run.output)
  }
}
