import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
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

  /// An ELF file of a 64-byte header and one program header, a `PT_NOTE` at `noteOffset` of
  /// `noteSize` bytes, then `notes`; the header says where the program headers are, how large
  /// each is and how many.
  private func elf(
    programHeaders: UInt64 = 64, entrySize: UInt16 = 56, count: UInt16 = 1,
    noteOffset: UInt64 = 120, noteSize: UInt64 = 0, notes: [UInt8] = []
  ) -> [UInt8] {
    func put(_ value: UInt64, _ size: Int, at offset: Int, in bytes: inout [UInt8]) {
      for index in 0..<size {
        bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
      }
    }
    var bytes = [UInt8](repeating: 0, count: 120)
    bytes[0...5] = [0x7F, 0x45, 0x4C, 0x46, 2, 1]
    put(programHeaders, 8, at: 0x20, in: &bytes)
    put(UInt64(entrySize), 2, at: 0x36, in: &bytes)
    put(UInt64(count), 2, at: 0x38, in: &bytes)
    put(4, 4, at: 64, in: &bytes)  // PT_NOTE
    put(noteOffset, 8, at: 64 + 8, in: &bytes)
    put(noteSize, 8, at: 64 + 32, in: &bytes)
    return bytes + notes
  }

  func testAModuleWithHostileOffsetsSizesAndCountsIsNotReadAndNothingTraps() throws {
    // Every number in a module file is hostile: a note at 2^63 trapped in FileHandle.seek.
    let max = UInt64.max
    let brokenNote: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 3, 0, 0, 0]
    let cases: [(String, [UInt8])] = [
      ("a note at 2^63", elf(noteOffset: 1 << 63, noteSize: 16)),
      ("a note at the last offset, of every size", elf(noteOffset: max, noteSize: max)),
      ("a note whose end overflows", elf(noteOffset: max - 7, noteSize: 16)),
      ("a note larger than the file", elf(noteOffset: 64, noteSize: 1 << 62)),
      ("program headers at the last offset", elf(programHeaders: max)),
      ("program headers at 2^63", elf(programHeaders: 1 << 63)),
      ("program headers whose end overflows", elf(programHeaders: max - 10)),
      ("the largest table", elf(entrySize: .max, count: .max)),
      ("more program headers than the file holds", elf(count: .max)),
      ("program headers too small", elf(entrySize: 8)),
      ("a note whose sizes are the largest", elf(noteSize: 12, notes: brokenNote)),
    ]
    let folder = try temporaryFolder("symbolize-hostile")
    for (index, (name, bytes)) in cases.enumerated() {
      let module = folder.appendingPathComponent("module-\(index)").path
      try Data(bytes).write(to: URL(fileURLWithPath: module))
      let outcome = try SiteSymbolization.symbolize(
        path: try trace(module: module, buildID: "ab"), tools: tools, relativeTo: nil)
      XCTAssertEqual(outcome.unresolved, 1, name)
      XCTAssertTrue(
        outcome.notes.first?.contains("cannot read it") ?? false, "\(name): \(outcome.notes)")
    }
  }

  func testARealModuleWithItsHeadersMutatedAtRandomNeverTraps() throws {
    // This test's own executable: its ELF header, program headers and notes lie in its first
    // pages. Its offsets, sizes and counts are set to edge values, other bytes at random, the
    // file sometimes cut short; whatever is read, nothing may trap.
    let module = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    let real = try XCTUnwrap(FileHandle(forReadingAtPath: module)?.read(upToCount: 16 << 10))
    let copy = try temporaryFolder("symbolize-mutated").appendingPathComponent("module").path
    try real.write(to: URL(fileURLWithPath: copy))
    let id = try XCTUnwrap(ELFBuildID.read(path: module))
    XCTAssertFalse(id.isEmpty, "the test's executable has a build id")
    XCTAssertEqual(ELFBuildID.read(path: copy), id, "read from its first pages")
    let programHeaders = Int(real[0x20]) | Int(real[0x21]) << 8
    let count = Int(real[0x38])
    // Where the numbers are: the header's table offset, entry size and count; each entry's
    // type, offset and size.
    var fields = [(0x20, 8), (0x36, 2), (0x38, 2)]
    for entry in 0..<count {
      let base = programHeaders + entry * 56
      fields += [(base, 4), (base + 8, 8), (base + 32, 8)]
    }
    let size = UInt64(real.count)
    let edges: [UInt64] = [0, 1, 4, 56, size - 1, size, 1 << 31, 1 << 62, 1 << 63, .max - 7, .max]
    var random = SplitMix64(seed: 37)
    var unread = 0
    for _ in 0..<600 {
      var bytes = [UInt8](real)
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        if Bool.random(using: &random) {
          let (at, width) = fields[Int.random(in: 0..<fields.count, using: &random)]
          let value =
            Bool.random(using: &random)
            ? edges[Int.random(in: 0..<edges.count, using: &random)] : random.next()
          for index in 0..<width {
            bytes[at + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
          }
        } else {
          bytes[Int.random(in: 0..<bytes.count, using: &random)] = .random(
            in: 0...255, using: &random)
        }
      }
      if Int.random(in: 0..<8, using: &random) == 0 {
        bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random))
      }
      try Data(bytes).write(to: URL(fileURLWithPath: copy))
      if ELFBuildID.read(path: copy) == nil { unread += 1 }
    }
    XCTAssertGreaterThan(unread, 0, "some mutations make the file unreadable as ELF")
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

  /// Of the two frames a site was recorded with, the one shown is the best the program owns.
  func testASiteIsShownAsTheBestFrameTheProgramOwns() {
    typealias Frame = SiteSymbolization.Frame
    let program = Frame(file: "Sources/App/Feed.swift", line: 42, function: "run()")
    let thunk = Frame(file: "<compiler-generated>", line: 0, function: "reabstraction thunk")
    let specialized = Frame(
      file: "", line: 0, function: "specialized Task.init(name:priority:operation:)")
    let noDebugInfo = Frame(file: "", line: 0, function: "main")
    let library = Frame(file: "Swift/Sequence.swift", line: 0, function: "forEach(_:)")
    XCTAssertEqual(SiteSymbolization.bestFrame(own: program, caller: thunk), program)
    XCTAssertEqual(SiteSymbolization.bestFrame(own: thunk, caller: program), program)
    XCTAssertEqual(SiteSymbolization.bestFrame(own: specialized, caller: program), program)
    XCTAssertEqual(
      SiteSymbolization.bestFrame(own: noDebugInfo, caller: nil), noDebugInfo,
      "no line anywhere: the site's function names it")
    XCTAssertEqual(SiteSymbolization.bestFrame(own: thunk, caller: library), thunk)
    XCTAssertEqual(
      SiteSymbolization.bestFrame(
        own: thunk, caller: Frame(file: "<compiler-generated>", line: 7, function: "t")),
      Frame(file: "<compiler-generated>", line: 7, function: "t"), "a line beats none")
    XCTAssertEqual(SiteSymbolization.bestFrame(own: nil, caller: program), program)
  }
}
