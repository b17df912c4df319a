import ArgumentParser
import BenchmarkSupport
import Foundation

/// What `chronoscope record` costs a program written without Chronoscope: DispatchHeavyProgram
/// (Foundation and Dispatch only) runs bare and under the preload library, alternating, in one
/// run; the decorator's cost is measured by the same method beside it; and what loading the
/// library adds to the start of a process that is not Swift. See Benchmarks/README.md.
///
/// Each program run is a child process; the decorator's side runs in a child of this benchmark
/// (`--child decorator-schedule-cost …`). One JSON line per measurement goes to standard output;
/// progress to standard error.
@main
struct PreloadBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "PreloadBenchmark",
    abstract:
      "What recording an unmodified Dispatch program costs (one JSON line per measurement).",
    discussion: """
      Runs DispatchHeavyProgram (built beside this benchmark; it imports only Foundation and \
      Dispatch) bare and recorded, alternating; and /bin/true and sh -c true bare and with the \
      library preloaded, alternating (startup). Recorded runs set LD_PRELOAD to the preload \
      library and CHRONOSCOPE_TRACE to a file in a temporary folder, as `chronoscope record` \
      does (or go through `chronoscope record` with --via-chronoscope). Writes one JSON line per \
      measurement to stdout; progress goes to stderr.

      Build the preload library first, from the repository root: \
      swift build -c release --product ChronoscopePreload

      Targets (--check): preload-throughput ratio (recorded / bare) <= 1.3; \
      preload-schedule-cost vs_decorator <= 2.
      """)

  /// What the driver can run, in the order it runs them.
  enum Kind: String, CaseIterable {
    case startup
    case throughput
    case scheduleCost = "schedule-cost"
  }

  static let libraryName = "libChronoscopePreload.so"
  static let buildLibrary = "swift build -c release --product ChronoscopePreload"

  @Option(
    help: ArgumentHelp(
      "async calls per program run, round-robin across 4 serial queues (default 1000000).",
      valueName: "count"),
    transform: CommandLineValue.count)
  var actions = 1_000_000

  @Option(
    name: .customLong("repeat"),
    help: ArgumentHelp(
      "Runs of each side per measurement, alternating; the best is reported (default 5).",
      valueName: "count"),
    transform: CommandLineValue.count)
  var repeats = 5

  @Option(
    help: ArgumentHelp(
      "Which to run (default: all).",
      valueName: Kind.allCases.map(\.rawValue).joined(separator: ",")),
    transform: CommandLineValue.list)
  var benchmarks = Kind.allCases

  @Option(
    name: .customLong("startup-runs"),
    help: ArgumentHelp(
      "Starts of each program on each side for startup, alternating (default 300).",
      valueName: "count"),
    transform: CommandLineValue.count)
  var startupRuns = 300

  @Option(
    name: .customLong("decorator-buffer-capacity"),
    help: ArgumentHelp(
      "The decorator's per-thread buffer, in events (default 65536: the recorder's default, "
        + "which the preload library's recorder has).",
      valueName: "count"),
    transform: CommandLineValue.count)
  var decoratorBufferCapacity = 65_536

  @Option(
    help: ArgumentHelp(
      "The preload library (default: ../.build/release/\(libraryName) from the Benchmarks "
        + "package, built by `\(buildLibrary)` at the repository root).",
      valueName: "path"))
  var preload: String?

  @Option(
    name: .customLong("via-chronoscope"),
    help: ArgumentHelp(
      "Record through `PATH record -o TRACE -- PROGRAM …` instead of setting LD_PRELOAD and "
        + "CHRONOSCOPE_TRACE directly (chronoscope finds its own preload library).",
      valueName: "path"))
  var viaChronoscope: String?

  @Option(
    help: ArgumentHelp(
      "The workload program (default: DispatchHeavyProgram beside this executable).",
      valueName: "path"))
  var program: String?

  @Option(
    help: ArgumentHelp(
      "Seconds a program run may take before it is stopped and the benchmark fails "
        + "(default 600).",
      valueName: "seconds"),
    transform: CommandLineValue.count)
  var timeout = 600

  @Flag(
    name: .customLong("lines"),
    help: ArgumentHelp(
      "With LD_PRELOAD: write the trace's JSON lines while the program runs, instead of the "
        + "spool `chronoscope record` writes and converts when the program ends."))
  var lines = false

  @Flag(
    name: .customLong("keep-traces"),
    help: "Keep the recorded runs' traces and print their folder on stderr.")
  var keepTraces = false

  @Flag(help: "Exit 1 when a target is missed, naming it on stderr (targets above).")
  var check = false

  /// `--child KIND ARGS…`: the decorator's side, in a child process.
  @OptionGroup var child: ChildCommandLine

  mutating func run() throws {
    if let words = child.words {
      guard words.first == DecoratorScheduleCostChild.configuration.commandName else {
        throw ValidationError("unknown child \(words)")
      }
      try DecoratorScheduleCostChild.parseOrExit(Array(words.dropFirst())).run()
      return
    }
    if benchmarks.contains(.startup) {
      // No program and no trace: only the library, loaded where nothing is recorded.
      let library = try resolveLibrary()
      printError("[preload-startup] runs=\(startupRuns) library=\(library) …")
      for line in try PreloadStartup.run(library: library, runs: startupRuns) { writeLine(line) }
    }
    guard benchmarks.contains(where: { $0 != .startup }) else {
      return try TargetTally(benchmark: "preload").finish(check: check)
    }
    let runner = try makeRunner()
    let tally: TargetTally
    do {
      tally = try measure(runner)
    } catch {
      // A run that failed left its trace there, named in the error.
      printError("[preload] traces kept in \(runner.directory)")
      throw error
    }
    if keepTraces {
      printError("[preload] traces kept in \(runner.directory)")
    } else {
      try? FileManager.default.removeItem(atPath: runner.directory)
    }
    try tally.finish(check: check)
  }

  /// Runs the measurements asked for, writing their lines, and returns their targets.
  private func measure(_ runner: ProgramRunner) throws -> TargetTally {
    printError(
      "[preload] program \(runner.program), recorded via \(runner.recording.description)"
        + (runner.recording.library.map { " (\($0))" } ?? ""))
    var tally = TargetTally(benchmark: "preload")
    if benchmarks.contains(.throughput) {
      printError("[preload-throughput] actions=\(actions) repeat=\(repeats) …")
      let (line, outcomes) = try PreloadThroughput.run(
        runner, actions: actions, repeats: repeats)
      writeLine(line)
      tally.record(outcomes)
    }
    if benchmarks.contains(.scheduleCost) {
      printError("[decorator-schedule-cost] actions=\(actions) repeat=\(repeats) …")
      let output = try ChildProcess.runSelf(arguments: [
        "--child", "decorator-schedule-cost", String(actions), String(repeats),
        String(decoratorBufferCapacity),
      ])
      let decoratorLine = output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init)
      if let decoratorLine { writeLine(decoratorLine) }
      let decorator = decoratorLine.flatMap(DecoratorScheduleCost.Report.init(line:))
      if decorator == nil { printError("warning: the decorator's side printed no figures") }
      printError("[preload-schedule-cost] actions=\(actions) repeat=\(repeats) …")
      let (line, outcomes) = try PreloadScheduleCost.run(
        runner, actions: actions, repeats: repeats, decorator: decorator)
      writeLine(line)
      tally.record(outcomes)
    }
    return tally
  }

  /// The program, how to record it and a fresh folder for the traces, or a clear error.
  private func makeRunner() throws -> ProgramRunner {
    let files = FileManager.default
    let executableFolder = URL(fileURLWithPath: ChildProcess.currentExecutablePath)
      .deletingLastPathComponent()
    let program = program ?? executableFolder.appendingPathComponent("DispatchHeavyProgram").path
    guard files.isExecutableFile(atPath: program) else {
      throw SetupError(
        "the workload program \(program) is missing; build it with "
          + "`swift build -c release --package-path Benchmarks --product DispatchHeavyProgram` "
          + "(or pass --program PATH)")
    }
    let recording: ProgramRunner.Recording
    if let viaChronoscope {
      guard files.isExecutableFile(atPath: viaChronoscope) else {
        throw SetupError("--via-chronoscope: \(viaChronoscope) is not an executable")
      }
      recording = .chronoscope(path: viaChronoscope)
    } else {
      recording = .preload(library: try resolveLibrary(), spool: !lines)
    }
    let directory = files.temporaryDirectory.appendingPathComponent(
      "chronoscope-preload-benchmark-\(ProcessInfo.processInfo.processIdentifier)"
    ).path
    try files.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return ProgramRunner(
      program: program, recording: recording, directory: directory, timeoutSeconds: timeout,
      keepTraces: keepTraces)
  }

  /// The preload library: `--preload`, or the first of the default candidates that exists.
  private func resolveLibrary() throws -> String {
    let executableFolder = URL(fileURLWithPath: ChildProcess.currentExecutablePath)
      .deletingLastPathComponent()
    let candidates = preload.map { [$0] } ?? Self.defaultLibraryCandidates(executableFolder)
    guard
      let library = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) })
    else {
      throw SetupError(
        "the preload library is missing (looked for \(candidates.joined(separator: ", "))); "
          + "build it with `\(Self.buildLibrary)` at the repository root, or pass "
          + "--preload PATH")
    }
    return URL(fileURLWithPath: library).standardizedFileURL.path
  }

  /// `../.build/release/libChronoscopePreload.so` from the Benchmarks package: the package found
  /// above this executable's `.build` folder, then the one this source file is in.
  static func defaultLibraryCandidates(_ executableFolder: URL) -> [String] {
    var packages: [URL] = []
    var folder = executableFolder
    while folder.pathComponents.count > 1 {
      if folder.lastPathComponent == ".build" {
        packages.append(folder.deletingLastPathComponent())
        break
      }
      folder.deleteLastPathComponent()
    }
    // Sources/PreloadBenchmark/PreloadBenchmark.swift
    packages.append(
      URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent())
    var candidates: [String] = []
    for package in packages {
      let path = package.appendingPathComponent("../.build/release/\(libraryName)")
        .standardizedFileURL.path
      if !candidates.contains(path) { candidates.append(path) }
    }
    return candidates
  }
}

extension ProgramRunner.Recording {
  /// The library a direct recording preloads.
  var library: String? {
    if case .preload(let library, _) = self { return library }
    return nil
  }
}

/// `PreloadBenchmark --child decorator-schedule-cost ACTIONS REPEAT BUFFER_CAPACITY`:
/// ``DecoratorScheduleCost``, its JSON line on stdout.
struct DecoratorScheduleCostChild: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "decorator-schedule-cost",
    abstract: "RecordingScheduler's cost per schedule and per run on suspended Dispatch queues.")

  @Argument(help: "Asyncs per run.", transform: CommandLineValue.count)
  var actions: Int
  @Argument(
    help: "Timed runs of each side; the best is reported.", transform: CommandLineValue.count)
  var repeats: Int
  @Argument(help: "The recorder's per-thread buffer, in events.", transform: CommandLineValue.count)
  var bufferCapacity: Int

  func run() throws {
    writeLine(
      try DecoratorScheduleCost.run(
        actions: actions, repeats: repeats, bufferCapacity: bufferCapacity))
  }
}

/// Something the benchmark needs is missing; the description says how to get it.
struct SetupError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
