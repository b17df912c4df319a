import Foundation
import TestSupport
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
}
