import Foundation
import Sharing
import TestSupport
import TraceFormat
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `SiteSymbolization`, which `chronoscope record` runs over each trace it made: what it leaves
/// alone, and why. (That it resolves a real program's sites to its source lines is tested end to
/// end, in RecordUnmodifiedProgramTests.)
final class SiteSymbolizationTests: XCTestCase {
  /// Tools that must not be run: the cases here are decided before any tool would be.
  private let tools = SiteSymbolization.Tools(
    symbolizer: "/nonexistent/llvm-symbolizer", demangler: nil)

  /// A trace with one code-address site in `module` recorded with `buildID`.
  private func trace(module: String, buildID: String) throws -> String {
    var encoder = TraceEncoder()
    encoder.header(TraceHeader(clock: .host, start: "", process: "app", pid: 1, metadata: [:]))
    encoder.callSite(
      CallSiteRecord(
        id: 1, file: "app", line: 0, function: "0x10",
        code: CodeLocation(module: module, offset: 16, buildID: buildID)),
      time: 0)
    let path = try temporaryFolder("symbolize").appendingPathComponent("t.trace").path
    try Data(encoder.bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  func testAModuleThatCannotBeReadLeavesItsSitesAsAddresses() throws {
    let path = try trace(module: "/nonexistent/app", buildID: "abcd")
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let outcome = try SiteSymbolization.symbolize(path: path, tools: tools, relativeTo: nil)
    XCTAssertEqual(outcome.resolved, 0)
    XCTAssertEqual(outcome.unresolved, 1)
    XCTAssertEqual(outcome.notes, ["/nonexistent/app: cannot read it; 1 site(s) left as addresses"])
    XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
  }

  func testAModuleRebuiltSinceItRanIsNotTrusted() throws {
    // This test's own executable has a build id, and it is not "0123".
    let module = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    let path = try trace(module: module, buildID: "0123")
    let outcome = try SiteSymbolization.symbolize(path: path, tools: tools, relativeTo: nil)
    XCTAssertEqual(outcome.unresolved, 1)
    XCTAssertTrue(
      outcome.notes.first?.contains("rebuilt since it ran") ?? false, "\(outcome.notes)")
  }

  func testAFileThatIsNotELFOrIsCutShortIsNoModule() throws {
    let folder = try temporaryFolder("symbolize-elf")
    let text = folder.appendingPathComponent("text").path
    try Data("not an ELF file".utf8).write(to: URL(fileURLWithPath: text))
    // An ELF header that promises program headers past the end of the file.
    var header = [UInt8](repeating: 0, count: 64)
    header[0...5] = [0x7F, 0x45, 0x4C, 0x46, 2, 1]
    header[0x20] = 0xFF
    header[0x36] = 56
    header[0x38] = 9
    let cut = folder.appendingPathComponent("cut").path
    try Data(header).write(to: URL(fileURLWithPath: cut))
    // A FIFO nobody writes: opening it to read would wait for ever.
    let fifo = folder.appendingPathComponent("fifo").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    for module in [text, cut, fifo, "/dev/zero"] {
      let outcome = try SiteSymbolization.symbolize(
        path: try trace(module: module, buildID: "ab"), tools: tools, relativeTo: nil)
      XCTAssertEqual(outcome.unresolved, 1, module)
      XCTAssertTrue(outcome.notes.first?.contains("cannot read it") ?? false, "\(outcome.notes)")
    }
  }

  func testATraceWithoutCodeAddressSitesIsLeftAlone() throws {
    var encoder = TraceEncoder()
    encoder.header(TraceHeader(clock: .host, start: "", process: "app", pid: 1, metadata: [:]))
    encoder.callSite(CallSiteRecord(id: 1, file: "App/A.swift", line: 3, function: "f()"), time: 0)
    let path = try temporaryFolder("symbolize-plain").appendingPathComponent("t.trace").path
    try Data(encoder.bytes).write(to: URL(fileURLWithPath: path))
    let outcome = try SiteSymbolization.symbolize(path: path, tools: tools, relativeTo: nil)
    XCTAssertEqual(outcome, SiteSymbolization.Outcome())
  }

  func testASiteWithoutALineStillGetsItsFunctionsName() throws {
    // Code without a line table (no debug information there) still has its function's name:
    // the site shows it, its module as its file, instead of a hex offset (found recording real
    // programs). A stand-in symbolizer answers as llvm-symbolizer does for such an address.
    let folder = try temporaryFolder("symbolize-no-line")
    let symbolizer = folder.appendingPathComponent("llvm-symbolizer").path
    try Data(
      """
      #!/bin/sh
      echo '[{"Address":"0x10","Symbol":[{"FileName":"","FunctionName":"app_main","Line":0}]}]'

      """.utf8
    ).write(to: URL(fileURLWithPath: symbolizer))
    chmod(symbolizer, 0o755)
    // A readable ELF file, its build id not recorded: this test's own executable.
    let module = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    let path = try trace(module: module, buildID: "")
    let outcome = try SiteSymbolization.symbolize(
      path: path, tools: SiteSymbolization.Tools(symbolizer: symbolizer, demangler: nil),
      relativeTo: nil)
    XCTAssertEqual(outcome.resolved, 1, "\(outcome)")
    let site = try XCTUnwrap(TraceReader.read(path: path).trace?.callSites[1])
    XCTAssertEqual(site.function, "app_main")
    XCTAssertEqual(site.file, "app", "the module's name, as recorded")
    XCTAssertEqual(site.line, 0)
  }
}
