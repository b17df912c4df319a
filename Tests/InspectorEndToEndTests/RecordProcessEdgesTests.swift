import ChronoscopeTestSupport
import ChronoscopeTraceFormat
import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `chronoscope record -- PROGRAM` at the edges of the program's processes (issue 40): a program
/// that changes its working directory, starts children, or replaces itself with `exec`, and what
/// `record` says when it cannot write at all. Linux only, as `record` is.
final class RecordProcessEdgesTests: XCTestCase {
  #if os(Linux)
    /// Runs `record ARGUMENTS -- chronoscope-examples PROGRAM…` in `folder`.
    private func record(
      _ arguments: [String], program: [String], in folder: URL
    ) throws -> (status: Int32, output: String) {
      try CommandRun.chronoscope(
        ["record"] + arguments + [
          "--", try ProductsDirectory.executable("chronoscope-examples").path,
        ] + program, in: folder)
    }

    /// The names in `folder`, sorted.
    private func names(in folder: URL) throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    func testARelativeOutputIsWhereRecordRanNotWhereTheProgramWent() throws {
      let folder = try temporaryFolder("record-relative")
      let elsewhere = try temporaryFolder("record-relative-elsewhere")
      // The file opened before main, a flight recording written at exit, files a rotation
      // opens as the program goes: all after the program's `chdir` but the first.
      for options in [
        ["-o", "rel.trace"], ["-o", "rel-%p.trace"], ["--flight", "30s", "-o", "rel.trace"],
        ["--max-bytes", "8K", "--keep", "100", "-o", "rel.trace"],
      ] {
        let run = try record(
          options, program: ["chdir-work", "--into", elsewhere.path, "--items", "400"],
          in: folder)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("worked in \(elsewhere.path)"), run.output)
        XCTAssertEqual(try names(in: elsewhere), [], "\(options): nothing where the program went")
        let written = try names(in: folder)
        XCTAssertFalse(written.isEmpty, "\(options): \(run.output)")
        XCTAssertFalse(run.output.contains("no trace was written"), run.output)
        for name in written {
          XCTAssertTrue(run.output.contains("trace written to \(name)"), "\(name): \(run.output)")
          let validation = try CommandRun.chronoscope(["validate", name], in: folder)
          XCTAssertEqual(validation.status, 0, "\(options) \(name): \(validation.output)")
          try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
      }
    }

    /// `record` spools plain files while the program runs and converts them when it ends
    /// (issue 40, section 1); a spool left behind (recorded without `record`, or a process that
    /// was killed) is read by every command, and `convert` writes its trace in its place.
    func testASpoolIsConvertedByRecordAndReadByEveryCommandWhenLeftBehind() throws {
      let folder = try temporaryFolder("record-spool")
      let recorded = try record(["-o", "r.trace"], program: ["dispatch-work"], in: folder)
      XCTAssertEqual(recorded.status, 0, recorded.output)
      let converted = try Data(contentsOf: folder.appendingPathComponent("r.trace"))
      XCTAssertTrue(converted.starts(with: Array("{\"format\"".utf8)), "record converted it")

      let library = try ProductsDirectory.executable("chronoscope").deletingLastPathComponent()
        .appendingPathComponent("libChronoscopePreload.so")
      let killed = try CommandRun.program(
        URL(fileURLWithPath: "/bin/sh"),
        [
          "-c", "\"$0\" busy-dispatch & sleep 1; kill -KILL $!; wait",
          try ProductsDirectory.executable("chronoscope-examples").path,
        ],
        in: folder,
        environment: [
          "LD_PRELOAD": library.path,
          "CHRONOSCOPE_TRACE": folder.appendingPathComponent("k.trace").path,
          "CHRONOSCOPE_TRACE_SPOOL": "1",
        ])
      XCTAssertEqual(killed.status, 0, killed.output)
      let spool = try Data(contentsOf: folder.appendingPathComponent("k.trace"))
      XCTAssertTrue(spool.starts(with: Array("CHRONOSCOPE-SPOOL 1\n".utf8)), "left a spool")

      let validation = try CommandRun.chronoscope(["validate", "k.trace"], in: folder)
      XCTAssertEqual(validation.status, 1, validation.output)
      XCTAssertTrue(
        validation.output.contains("k.trace (converted from its spool):"), validation.output)
      XCTAssertTrue(validation.output.contains("the recording did not close"), validation.output)
      let stats = try CommandRun.chronoscope(["stats", "k.trace"], in: folder)
      XCTAssertEqual(stats.status, 0, stats.output)

      let conversion = try CommandRun.chronoscope(["convert", "k.trace", "r.trace"], in: folder)
      // 1 when the kill cut a flush short (what it held is converted and the rest counted), 0
      // when it landed between flushes: where SIGKILL lands is the machine's choice (a clean-clone
      // CI run under load saw 0).
      XCTAssertTrue([0, 1].contains(conversion.status), "cut short: " + conversion.output)
      XCTAssertTrue(conversion.output.contains("k.trace: converted"), conversion.output)
      XCTAssertTrue(conversion.output.contains("r.trace: already a trace"), conversion.output)
      let after = try Data(contentsOf: folder.appendingPathComponent("k.trace"))
      XCTAssertTrue(after.starts(with: Array("{\"format\"".utf8)), "converted in place")
      let again = try CommandRun.chronoscope(["validate", "k.trace"], in: folder)
      XCTAssertEqual(again.status, 1, again.output)
      XCTAssertFalse(again.output.contains("converted from its spool"), again.output)
    }

    /// The names of Swift tasks (`Task(name:)`, a group's `addTask(name:)`) are read where the
    /// runtime keeps them when their jobs are handed to Dispatch (issue 40, 2.8), each written
    /// once, on its task's first `task` line.
    func testTheNamesOfRecordedTasksAreWritten() throws {
      let folder = try temporaryFolder("record-task-names")
      let run = try record(["-o", "n.trace"], program: ["named-tasks"], in: folder)
      XCTAssertEqual(run.status, 0, run.output)
      XCTAssertTrue(run.output.contains("named tasks done: 6"), run.output)
      XCTAssertFalse(run.output.contains("are not recorded"), run.output)
      let reading = TraceReader.read(path: folder.appendingPathComponent("n.trace").path)
      XCTAssertEqual(reading.diagnostics, [])
      let trace = try XCTUnwrap(reading.trace)
      XCTAssertEqual(
        Set(trace.taskNames.values), ["loader", "saver ☃", "child-0", "child-1", "child-2"])
      // On the task's first line, and not on every line of a task resumed many times.
      let text = try String(
        contentsOf: folder.appendingPathComponent("n.trace"), encoding: .utf8)
      let loader = try XCTUnwrap(trace.taskNames.first { $0.value == "loader" }?.key)
      let lines = text.split(separator: "\n").filter {
        $0.contains("\"e\":\"task\"") && $0.contains("\"task\":\(loader),")
          || $0.contains("\"e\":\"task\"") && $0.hasSuffix("\"task\":\(loader)}")
      }
      XCTAssertGreaterThan(lines.count, 1, "the loader resumed after its yield")
      XCTAssertTrue(lines.first?.contains("\"name\":\"loader\"") ?? false, "\(lines)")
      XCTAssertLessThan(lines.count { $0.contains("\"name\"") }, lines.count)
    }

    /// The main thread's own code blocked on a semaphore and on a group outside any main-queue
    /// job: `record` writes each as a `wait` line, and `check` reports each as a hang, the first
    /// with the work whose signal ended it (issue 40, 2.10). A wait that took no time is not
    /// written.
    func testAMainThreadBlockedOutsideAnyJobIsAHangCheckReports() throws {
      let folder = try temporaryFolder("record-main-waits")
      let run = try record(["-o", "w.trace"], program: ["main-waits"], in: folder)
      XCTAssertEqual(run.status, 0, run.output)
      let reading = TraceReader.read(path: folder.appendingPathComponent("w.trace").path)
      XCTAssertEqual(reading.diagnostics, [])
      let waits = try XCTUnwrap(reading.trace).events.filter { $0.kind == .wait }
      XCTAssertEqual(waits.map(\.waitObject), [.semaphore, .group])
      XCTAssertTrue(waits.allSatisfy { $0.duration >= 250_000_000 }, "\(waits)")

      let check = try CommandRun.chronoscope(["check", "w.trace"], in: folder)
      XCTAssertEqual(check.status, 1, check.output)
      let hangs = check.output.split(separator: "\n").filter { $0.contains("main-thread-hang") }
      XCTAssertEqual(hangs.count, 2, check.output)
      XCTAssertTrue(hangs[0].contains(": main thread "), String(hangs[0]))
      XCTAssertTrue(hangs[0].contains("MainWaits.swift:"), String(hangs[0]))
      XCTAssertTrue(
        hangs[0].contains("on a semaphore outside any main-queue job, until #1 signalled it"),
        String(hangs[0]))
      XCTAssertTrue(hangs[1].contains("on a group outside any main-queue job"), String(hangs[1]))
    }

    func testAnOutputInAFolderThatIsNotThereSaysTheOpenErrorAloneAndFails() throws {
      let folder = try temporaryFolder("record-no-folder")
      let path = folder.appendingPathComponent("missing/x.trace").path
      let run = try record(["-o", path], program: ["chdir-work", "--into", "/"], in: folder)
      XCTAssertNotEqual(run.status, 0, run.output)
      XCTAssertEqual(
        run.output, "chronoscope: cannot open \(path) for writing: No such file or directory\n")
    }

    /// The labels of the queues in each trace `record` wrote in `folder`, by file name, each
    /// file checked by `validate` and named in `output`.
    private func queuesByFile(in folder: URL, output: String) throws -> [String: Set<String>] {
      var queues: [String: Set<String>] = [:]
      for name in try names(in: folder) {
        XCTAssertTrue(output.contains("trace written to \(name)\n"), "\(name): \(output)")
        let validation = try CommandRun.chronoscope(["validate", name], in: folder)
        XCTAssertEqual(validation.status, 0, "\(name): \(validation.output)")
        let reading = TraceReader.read(path: folder.appendingPathComponent(name).path)
        XCTAssertNotNil(reading.trace?.closing, "\(name) ends with its end marker")
        queues[name] = Set(reading.trace?.schedulers.values.map(\.label) ?? [])
      }
      return queues
    }

    func testChildrenOfAProgramGivenOnePathEachWriteAFileOfTheirOwn() throws {
      // Two copies of itself started by fork and exec, and two forked children that exit: the
      // copies' recorders found the file taken and recorded nothing.
      let folder = try temporaryFolder("record-children")
      let run = try record(
        ["-o", "one.trace"], program: ["spawn-children", "--children", "2"], in: folder)
      XCTAssertEqual(run.status, 0, run.output)
      XCTAssertFalse(run.output.contains("another process is recording"), run.output)
      let queues = try queuesByFile(in: folder, output: run.output)
      XCTAssertEqual(queues.count, 3, "\(queues.keys.sorted()): \(run.output)")
      XCTAssertEqual(queues["one.trace"]?.contains("spawner"), true, "\(queues)")
      for index in 0..<2 {
        let files = queues.filter { $0.value.contains("child-\(index)") }.map(\.key)
        XCTAssertEqual(files.count, 1, "child-\(index): \(queues)")
        let file = try XCTUnwrap(files.first)
        XCTAssertNotNil(
          file.range(of: #"^one-[0-9]+\.trace$"#, options: .regularExpression), file)
      }
    }

    func testAProgramThatExecsKeepsTheWorkOfBothImagesAndOfAFailedExec() throws {
      for output in ["ex.trace", "ex-%p.trace"] {
        let folder = try temporaryFolder("record-exec")
        let run = try record(
          ["-o", output], program: ["exec-other", "--fail-first", "dispatch-work"], in: folder)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("dispatch-work: ran 8 blocks"), run.output)
        let queues = try queuesByFile(in: folder, output: run.output)
        XCTAssertEqual(queues.count, 2, "\(output): \(queues.keys.sorted()) \(run.output)")
        let first = try XCTUnwrap(queues.first { $0.value.contains("before-exec") }, "\(queues)")
        XCTAssertTrue(first.value.contains("after-failed-exec"), "\(queues)")
        let second = try XCTUnwrap(queues.first { $0.value.contains("dispatch-work") })
        XCTAssertNotNil(
          second.key.range(of: #"^ex-[0-9]+-exec1\.trace$"#, options: .regularExpression),
          second.key)
        if output == "ex.trace" { XCTAssertEqual(first.key, "ex.trace") }
      }
    }

    func testTheRuntimesQueuesAreNamedByTheirQualityOfService() throws {
      let folder = try temporaryFolder("record-priorities")
      let run = try record(["-o", "p.trace"], program: ["task-priorities"], in: folder)
      XCTAssertEqual(run.status, 0, run.output)
      let trace = try XCTUnwrap(
        TraceReader.read(path: folder.appendingPathComponent("p.trace").path).trace)
      let runtime = trace.schedulers.values.map(\.label)
        .filter { $0.hasPrefix("Swift global concurrent queue") }
      XCTAssertEqual(
        Set(runtime),
        Set(
          ["user-initiated", "utility", "background", "default"].map {
            "Swift global concurrent queue (\($0))"
          }), run.output)
    }
  #endif

  func testACrashOrStopOnAnUnknownThreadNamesNoThread() throws {
    for (signal, words) in [
      ("SIGSEGV", "the process crashed (SIGSEGV);"),
      ("SIGINT", "the process was stopped by SIGINT;"),
    ] {
      let path = try temporaryTrace([
        TraceFixtures.header, #"{"t":5,"e":"crash","signal":"\#(signal)","th":0}"#,
      ])
      let run = try CommandRun.chronoscope(["validate", path])
      XCTAssertEqual(run.status, 1, run.output)
      XCTAssertTrue(run.output.contains(words), run.output)
      XCTAssertFalse(run.output.contains("thread 0"), run.output)
    }
  }
}
