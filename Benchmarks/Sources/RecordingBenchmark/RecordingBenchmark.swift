import ArgumentParser
import BenchmarkSupport
import Foundation

/// Measures recording: the hot-path cost per recorded event, the throughput of a recorded
/// Dispatch queue against a bare one, the size of a trace on disk, and how fast `TraceReader`
/// reads a trace compared with Foundation's `JSONDecoder` and a bare `memchr` pass. See
/// Benchmarks/README.md.
///
/// The driver runs every measurement in a fresh child process of itself (`--child …`,
/// ``RecordingChild``) so that one measurement's heap, threads and peak memory do not leak into
/// the next, and writes one JSON line per measurement to standard output; progress goes to
/// standard error.
@main
struct RecordingBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "RecordingBenchmark",
    abstract: "The cost of recording and of reading traces (one JSON line per measurement).",
    discussion: """
      Writes one JSON line per measurement to stdout; progress goes to stderr.

      Targets (--check): recording-hot-path ns_per_event <= 50 on 1 and 2 threads and \
      vs_floor <= 1.5; recording-throughput ratio >= 0.8; trace-reader chronoscope ratio >= 50 \
      (against JSONDecoder) and vs_memchr_lines >= 0.1.
      """)

  /// What the driver can run, in the order it runs them.
  enum Kind: String, CaseIterable {
    case hotPath = "hot-path"
    case throughput
    case clockSleep = "clock-sleep"
    case actorJob = "actor-job"
    case reader
  }

  @Option(
    help: ArgumentHelp(
      "Recorded actions per thread (hot path) and in the throughput run (default 1000000); a "
        + "fifth of it is the sleeps of clock-sleep and the calls of actor-job.",
      valueName: "count"),
    transform: CommandLineValue.count)
  var actions = 1_000_000

  @Option(
    help: ArgumentHelp(
      "Events in the generated trace the readers read (default 1000000).", valueName: "count"),
    transform: CommandLineValue.count)
  var events = 1_000_000

  @Option(
    name: .customLong("repeat"),
    help: ArgumentHelp(
      "Timed runs per measurement; the best is reported (default 5).", valueName: "count"),
    transform: CommandLineValue.count)
  var repeats = 5

  @Option(
    help: ArgumentHelp(
      "Thread counts for the hot-path benchmark (default 1,2).", valueName: "counts"),
    transform: CommandLineValue.counts)
  var threads = [1, 2]

  @Option(
    name: .customLong("buffer-capacity"),
    help: ArgumentHelp(
      "The recorder's per-thread buffer in the throughput run (default: large enough that "
        + "nothing is dropped, 4 x --actions).",
      valueName: "count"),
    transform: CommandLineValue.count)
  var bufferCapacity: Int?

  @Option(
    help: ArgumentHelp(
      "Which to run (default: all): clock-sleep is what recording adds to an async sleep, on a "
        + "VirtualAsyncClock; actor-job what it adds to an actor's job, RecordingSerialExecutor "
        + "against the same executor unrecorded.",
      valueName: Kind.allCases.map(\.rawValue).joined(separator: ",")),
    transform: CommandLineValue.list)
  var benchmarks = Kind.allCases

  @Flag(
    name: .customLong("keep-trace"),
    help: "Keep the generated trace file and print its path on stderr.")
  var keepTrace = false

  @Flag(help: "Exit 1 when a target is missed, naming it on stderr (targets above).")
  var check = false

  /// `--child KIND ARGS…`: what the driver runs in each child process.
  @OptionGroup var child: ChildCommandLine

  mutating func run() throws {
    if let words = child.words {
      var command: any ParsableCommand
      do {
        command = try RecordingChild.parseAsRoot(words)
      } catch {
        RecordingChild.exit(withError: error)
      }
      try command.run()
      return
    }
    var tally = TargetTally(benchmark: "recording")
    func forward(_ lines: [String]) {
      for line in lines {
        writeLine(line)
        tally.record(line: line)
      }
    }

    if benchmarks.contains(.hotPath) {
      for threadCount in threads {
        printError("[recording-hot-path] threads=\(threadCount) actions=\(actions)/thread …")
        forward(try measure(["hot-path", String(threadCount), String(actions), String(repeats)]))
      }
    }
    if benchmarks.contains(.throughput) {
      let bufferCapacity = bufferCapacity ?? 4 * actions
      printError("[recording-throughput] actions=\(actions) buffer_capacity=\(bufferCapacity) …")
      forward(
        try measure(["throughput", String(actions), String(repeats), String(bufferCapacity)]))
    }
    if benchmarks.contains(.clockSleep) {
      printError("[recording-clock-sleep] sleeps=\(actions / 5) …")
      forward(try measure(["clock-sleep", String(actions / 5), String(repeats)]))
    }
    if benchmarks.contains(.actorJob) {
      printError("[recording-actor-job] calls=\(actions / 5) …")
      forward(try measure(["actor-job", String(actions / 5), String(repeats)]))
    }
    if benchmarks.contains(.reader) {
      let path = temporaryPath("reader")
      defer {
        if keepTrace {
          printError("[trace-reader] trace kept at \(path)")
        } else {
          try? FileManager.default.removeItem(atPath: path)
        }
      }
      printError("[trace-size] recording a trace of about \(events) events to \(path) …")
      forward(try measure(["generate", path, String(events)]))

      printError("[trace-reader] Foundation.JSONDecoder …")
      let decoderLines = try measure([
        "read", ReaderLibrary.jsonDecoder.rawValue, path, String(repeats),
      ])
      forward(decoderLines)
      let baseline = decoderLines.compactMap(ReaderReport.init(line:)).last

      printError("[trace-reader] memchr-lines …")
      let memchrLines = try measure([
        "read", ReaderLibrary.memchrLines.rawValue, path, String(repeats),
      ])
      forward(memchrLines)
      let memchr = memchrLines.compactMap(ReaderReport.init(line:)).last

      printError("[trace-reader] chronoscope …")
      let ourLines = try measure([
        "read", ReaderLibrary.chronoscope.rawValue, path, String(repeats),
        String(baseline?.eventsPerSecond ?? 0), String(memchr?.bytesPerSecond ?? 0),
      ])
      forward(ourLines)
      let ours = ourLines.compactMap(ReaderReport.init(line:)).last
      if let ours, let baseline, ours.events != baseline.events {
        printError(
          "warning: the readers disagree: chronoscope read \(ours.events ?? 0) events, "
            + "JSONDecoder \(baseline.events ?? 0)")
      }
    }
    try tally.finish(check: check)
  }

  /// Runs one measurement in a child process and returns the JSON lines it printed.
  private func measure(_ arguments: [String]) throws -> [String] {
    let started = ContinuousClock.now
    let output = try ChildProcess.runSelf(arguments: ["--child"] + arguments)
    let lines = output.split(separator: "\n").filter { $0.hasPrefix("{") }.map(String.init)
    guard !lines.isEmpty else {
      throw ChildOutputError(arguments: arguments, output: output)
    }
    printError(
      "  (child process \(String(format: "%.1f", seconds(started.duration(to: .now)))) s)")
    return lines
  }

  struct ChildOutputError: Error, CustomStringConvertible {
    var arguments: [String]
    var output: String
    var description: String {
      "child \(arguments.joined(separator: " ")) printed no measurement; stdout was: \(output)"
    }
  }

  /// The part of a reader child's line the driver needs for the ratios and the cross-check.
  struct ReaderReport: Decodable {
    var events: Int?
    var eventsPerSecond: Double?
    var bytesPerSecond: Double?
    enum CodingKeys: String, CodingKey {
      case events
      case eventsPerSecond = "events_per_second"
      case bytesPerSecond = "bytes_per_second"
    }

    init?(line: String) {
      guard let report = try? JSONDecoder().decode(Self.self, from: Data(line.utf8)) else {
        return nil
      }
      self = report
    }
  }
}

// MARK: - Shared helpers

/// One side of a bare-versus-recorded comparison. A child given one runs only that side, for
/// profiling (`perf record … RecordingBenchmark --child hot-path 1 1000000 1 recorded`) and for
/// counting instructions (scripts/benchmarks.sh).
enum Variant: String, CaseIterable, ExpressibleByArgument {
  case bare
  case recorded
  /// Recorded into a flight recorder's memory (the throughput benchmark only).
  case flight
  /// The floor of recording an event, ``FloorRings`` (the hot-path benchmark only).
  case floor
  /// Recorded, each action inside one named scope (the hot-path benchmark only).
  case namedScope = "named-scope"
  /// Recorded, each action named by its call (the hot-path benchmark only).
  case namedCall = "named-call"

  /// Whether the throughput benchmark has this side.
  var isThroughputSide: Bool { [.bare, .recorded, .flight].contains(self) }
}

/// A fresh path under /tmp for a trace file of this process.
func temporaryPath(_ purpose: String, _ index: Int = 0) -> String {
  "/tmp/chronoscope-recording-benchmark-\(ProcessInfo.processInfo.processIdentifier)-\(purpose)-\(index).trace"
}

/// The size of the file at `path` in bytes, or 0.
func fileSize(_ path: String) -> Int {
  ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

/// A measurement that came out wrong (actions lost, events missing), which invalidates it.
struct MeasurementError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
