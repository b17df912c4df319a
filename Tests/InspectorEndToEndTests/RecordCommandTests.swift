import ChronoscopeTestSupport
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `chronoscope record -- PROGRAM`: the program runs as it would, its status passes through, and
/// recording is switched on for it (issue 30). What it records: RecordUnmodifiedProgramTests.
final class RecordCommandTests: XCTestCase {
  func testTheProgramsExitStatusAndSignalPassThrough() throws {
    let folder = try temporaryFolder("record")
    let template = folder.appendingPathComponent("t-%p.trace").path
    XCTAssertEqual(
      try CommandRun.chronoscope(["record", "-o", template, "--", "sh", "-c", "exit 3"]).status, 3)
    XCTAssertEqual(
      try CommandRun.chronoscope(["record", "-o", template, "--", "sh", "-c", "kill -TERM $$"])
        .status, 143)
    let missing = try CommandRun.chronoscope([
      "record", "-o", template, "--", "no-such-program-for-chronoscope",
    ])
    XCTAssertEqual(missing.status, 127, missing.output)
  }

  func testRecordingIsSwitchedOnThroughThePreloadLibrary() throws {
    let folder = try temporaryFolder("record")
    let template = folder.appendingPathComponent("t-%p.trace").path
    let run = try CommandRun.chronoscope([
      "record", "-o", template, "--flight", "30s", "--", "sh", "-c",
      "echo \"trace=$CHRONOSCOPE_TRACE flight=$CHRONOSCOPE_TRACE_FLIGHT preload=$LD_PRELOAD\"",
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("trace=\(template) flight=30 "), run.output)
    XCTAssertTrue(run.output.contains("libChronoscopePreload.so"), run.output)
  }

  /// Record preloads a library into glibc programs: its help says it needs Linux, and what it
  /// does elsewhere (`Record.needsLinux`; PlatformGuardTests checks that the rest of it is
  /// compiled only on Linux).
  func testItsHelpSaysItNeedsLinuxAndWhatItDoesElsewhere() throws {
    let help = try CommandRun.chronoscope(["record", "--help"])
    XCTAssertEqual(help.status, 0, help.output)
    let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    XCTAssertTrue(
      words.contains("Linux only (the library is preloaded with LD_PRELOAD into glibc programs)"),
      help.output)
    XCTAssertTrue(
      words.contains("on other systems record says so and exits with 2"), help.output)
  }

  func testBadSettingsAreUsageErrors() throws {
    for (arguments, message) in [
      (["--max-bytes", "lots"], "--max-bytes must be a size"),
      (["--max-bytes", "0"], "--max-bytes must be a size"),
      (["--keep=-1"], "--keep must be 0 or more"),
      (["--flight", "soon"], "--flight must be a duration"),
    ] {
      let run = try CommandRun.chronoscope(["record"] + arguments + ["--", "true"])
      XCTAssertEqual(run.status, 2, run.output)
      XCTAssertTrue(run.output.contains(message), run.output)
    }
  }

  func testWithoutAProgramItSaysHowToNameOne() throws {
    let run = try CommandRun.chronoscope(["record"])
    XCTAssertEqual(run.status, 2, run.output)
    XCTAssertTrue(run.output.contains("chronoscope record -- ./MyApp"), run.output)
  }

  func testTheLibraryCanBeNamedInTheEnvironment() throws {
    // An installation that keeps the library elsewhere names it in CHRONOSCOPE_PRELOAD.
    let folder = try temporaryFolder("record-preload")
    let copy = folder.appendingPathComponent("libChronoscopePreload.so")
    try FileManager.default.copyItem(
      at: try ProductsDirectory.executable("chronoscope").deletingLastPathComponent()
        .appendingPathComponent("libChronoscopePreload.so"),
      to: copy)
    let run = try CommandRun.chronoscope(
      [
        "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--", "sh", "-c",
        "echo \"preload=$LD_PRELOAD\"",
      ],
      environment: ["CHRONOSCOPE_PRELOAD": copy.path])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("preload=\(copy.path)"), run.output)
  }

  func testAProcessThatIsNotSwiftCrashesAsItWouldHave() throws {
    // The library loads the Swift runtime, whose crash handler would take a shell's SIGSEGV
    // (a Swift crash report, and the shell going on): its defaults are put back.
    let folder = try temporaryFolder("record-shell-crash")
    let run = try CommandRun.chronoscope([
      "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--", "sh", "-c",
      "kill -SEGV $$; echo survived",
    ])
    XCTAssertEqual(run.status, 128 + SIGSEGV, run.output)
    XCTAssertFalse(run.output.contains("survived"), run.output)
    XCTAssertFalse(run.output.contains("Backtracing"), run.output)
  }

  func testATracePathThatIsAFIFOIsRefusedWithoutHanging() throws {
    // The recorder refuses a FIFO nobody reads; `record` must not wait on it either.
    let folder = try temporaryFolder("record-fifo")
    let fifo = folder.appendingPathComponent("t.trace").path
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let run = try CommandRun.chronoscope([
      "record", "-o", fifo, "--", try ProductsDirectory.executable("feed-refresher").path,
    ])
    XCTAssertEqual(run.status, 0, run.output)
    XCTAssertTrue(run.output.contains("it is a FIFO nobody reads"), run.output)
    // Not "no trace was written": a stream is not looked for in the folder.
    XCTAssertTrue(run.output.contains("is a FIFO: what the recorder wrote there"), run.output)
  }

  func testWithoutItsLibraryRecordSaysWhereItLookedAndHowToGetIt() throws {
    // A copy of the command alone, as `swift run chronoscope` leaves it in a fresh checkout.
    let folder = try temporaryFolder("record-no-library")
    let copy = folder.appendingPathComponent("chronoscope")
    try FileManager.default.copyItem(at: try ProductsDirectory.executable("chronoscope"), to: copy)
    let run = try CommandRun.program(copy, ["record", "--", "true"])
    XCTAssertEqual(run.status, 2, run.output)
    XCTAssertTrue(
      run.output.contains(folder.appendingPathComponent("libChronoscopePreload.so").path))
    XCTAssertTrue(run.output.contains("swift build builds it"), run.output)
  }

  // MARK: - The program's edges (issue 37)

  /// Writes an executable shell script at `path`.
  private func script(_ path: URL, _ text: String) throws {
    try Data(text.utf8).write(to: path)
    XCTAssertEqual(chmod(path.path, 0o755), 0)
  }

  func testAProgramUnderAFolderWhoseNameHasAnEqualsSignRunsAndItsStatusPassesThrough() throws {
    // `env` took `build=debug/app` for a variable to set: the program never ran.
    let folder = try temporaryFolder("record-equals")
    let build = folder.appendingPathComponent("build=debug")
    try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
    try script(build.appendingPathComponent("app"), "#!/bin/sh\necho \"ran with $1\"\nexit 7\n")
    let template = folder.appendingPathComponent("t-%p.trace").path
    for program in [build.appendingPathComponent("app").path, "./build=debug/app"] {
      let run = try CommandRun.chronoscope(
        ["record", "-o", template, "--", program, "x=1"], in: folder)
      XCTAssertEqual(run.status, 7, "\(program): \(run.output)")
      XCTAssertTrue(run.output.contains("ran with x=1"), "\(program): \(run.output)")
    }
  }

  func testAProgramThatCannotRunExits126AndOneNotFound127AsFromAShell() throws {
    let folder = try temporaryFolder("record-cannot-run")
    let template = folder.appendingPathComponent("t-%p.trace").path
    let notExecutable = folder.appendingPathComponent("data")
    try Data("exit 0\n".utf8).write(to: notExecutable)
    for (program, status, reason) in [
      (notExecutable.path, Int32(126), "Permission denied"),
      (folder.path, 126, "Permission denied"),
      (folder.appendingPathComponent("missing").path, 127, "No such file or directory"),
      ("no-such-program-for-chronoscope", 127, "No such file or directory"),
    ] {
      let run = try CommandRun.chronoscope(["record", "-o", template, "--", program])
      XCTAssertEqual(run.status, status, "\(program): \(run.output)")
      XCTAssertTrue(run.output.contains(reason), "\(program): \(run.output)")
      XCTAssertTrue(run.output.contains(program), "\(program): \(run.output)")
    }
  }

  func testAScriptWithoutAnInterpreterLineRunsAsAShellWouldRunIt() throws {
    let folder = try temporaryFolder("record-no-shebang")
    try script(folder.appendingPathComponent("plain"), "echo \"plain ran\"\nexit 4\n")
    let run = try CommandRun.chronoscope(
      ["record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--", "./plain"],
      in: folder)
    XCTAssertEqual(run.status, 4, run.output)
    XCTAssertTrue(run.output.contains("plain ran"), run.output)
  }

  /// A program (a shell script) that writes a trace of this `record` run itself, as the preload
  /// library would — its header, then `header` lines, then `body`'s file — and exits with
  /// `status`.
  private func traceWritingProgram(
    in folder: URL, lines: [String], body: URL? = nil, status: Int32
  ) throws -> URL {
    let header =
      #"{"format":"chronoscope-trace","version":1,"clock":"host","start":"","process":"sh","pid":'"$$"',"metadata":{"record-session":"'"$CHRONOSCOPE_RECORD_SESSION"'"}}"#
    let program = folder.appendingPathComponent("writer")
    let trace = folder.appendingPathComponent("t-$$.trace").path
    let text =
      ([header] + lines).map { "echo '\($0)' >> \(trace)\n" }.joined()
      + (body.map { "cat '\($0.path)' >> \(trace)\n" } ?? "") + "exit \(status)\n"
    try script(program, "#!/bin/sh\n" + text)
    return program
  }

  func testAHostileModuleInATraceLeavesItsSitesAloneAndTheStatusAsItWas() throws {
    // A module whose note is at an offset past 2^63 trapped `record` while it symbolized.
    let folder = try temporaryFolder("record-hostile-module")
    var elf = [UInt8](repeating: 0, count: 64 + 56)
    elf[0...5] = [0x7F, 0x45, 0x4C, 0x46, 2, 1]
    elf[0x20] = 64  // program headers right after the header
    elf[0x36] = 56
    elf[0x38] = 1
    elf[64] = 4  // PT_NOTE
    elf[64 + 15] = 0x80  // its offset: 2^63
    elf[64 + 32] = 16  // its size
    let module = folder.appendingPathComponent("hostile.so")
    try Data(elf).write(to: module)
    let site =
      #"{"t":1,"e":"site","site":1,"file":"m","line":0,"func":"0x10","module":"\#(module.path)","offset":16,"build-id":"ab"}"#
    let program = try traceWritingProgram(in: folder, lines: [site], status: 5)
    let run = try CommandRun.chronoscope(
      ["record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--", program.path],
      environment: ["SWIFT_BACKTRACE": "enable=no"])
    XCTAssertEqual(run.status, 5, run.output)
    XCTAssertTrue(run.output.contains("\(module.path): cannot read it"), run.output)
  }

  /// Whether process `pid` has `path` mapped.
  private func maps(_ pid: Int32, _ path: String) -> Bool {
    guard let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) else {
      return false
    }
    return maps.contains(path)
  }

  func testATraceTruncatedWhileItIsSymbolizedLeavesTheStatusAsItWas() throws {
    #if os(Linux)
      // `record` mapped the trace to symbolize it: a truncation under it was a SIGBUS (status
      // 135), whatever the program's status.
      let folder = try temporaryFolder("record-truncated")
      let line = Array(
        (#"{"t":2,"e":"schedule","a":1,"q":1,"mode":"async","due":2,"th":1,"site":1}"# + "\n")
          .utf8)
      var bytes: [UInt8] = []
      bytes.reserveCapacity(line.count << 20)
      for _ in 0..<(1 << 20) { bytes += line }
      let body = folder.appendingPathComponent("body")
      try Data(bytes).write(to: body)
      let site =
        #"{"t":1,"e":"site","site":1,"file":"m","line":0,"func":"0x10","module":"/nonexistent/m","offset":16,"build-id":"ab"}"#
      let program = try traceWritingProgram(in: folder, lines: [site], body: body, status: 3)
      var truncatedWhileMapped = 0
      for _ in 0..<3 {
        let process = Process()
        process.executableURL = try ProductsDirectory.executable("chronoscope")
        process.arguments = [
          "record", "-o", folder.appendingPathComponent("t-%p.trace").path, "--", program.path,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging([
          "SWIFT_BACKTRACE": "enable=no"
        ]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // The trace is found once the program has ended, then mapped: it is truncated as soon
        // as `record` maps it (a wait on the child's state, not on the clock).
        var trace: String?
        while process.isRunning {
          let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
          if let name = names.first(where: { $0.hasPrefix("t-") && $0.hasSuffix(".trace") }) {
            let path = folder.appendingPathComponent(name).path
            if maps(process.processIdentifier, path) {
              trace = path
              XCTAssertEqual(truncate(path, 4096), 0)
              break
            }
          }
          sched_yield()
        }
        let text = String(
          decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "died of \(process.terminationStatus)")
        XCTAssertEqual(process.terminationStatus, 3, text)
        if trace != nil { truncatedWhileMapped += 1 }
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where name.hasPrefix("t-") {
          try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
      }
      XCTAssertGreaterThan(truncatedWhileMapped, 0, "no trace was truncated while mapped")
    #else
      throw XCTSkip("reads /proc to see when record has mapped the trace")
    #endif
  }
}
