import BenchmarkSupport
import Foundation

/// Measures recording: the hot-path cost per recorded event, the throughput of a recorded
/// Dispatch queue against a bare one, the size of a trace on disk, and how fast `TraceReader`
/// reads a trace compared with Foundation's `JSONDecoder`. See Benchmarks/README.md.
///
/// The driver runs every measurement in a fresh child process of itself (`--child …`) so that
/// one measurement's heap, threads and peak memory do not leak into the next, and writes one JSON
/// line per measurement to standard output; progress goes to standard error.
@main
enum RecordingBenchmark {
  static let defaultActions = 1_000_000
  static let defaultEvents = 1_000_000
  static let defaultRepeats = 5
  static let defaultThreads = [1, 2]
  static let allBenchmarks = ["hot-path", "throughput", "clock-sleep", "actor-job", "reader"]

  static let usage = """
    usage: RecordingBenchmark [--actions 1000000] [--events 1000000] [--repeat 5]
                              [--threads 1,2] [--buffer-capacity N]
                              [--benchmarks hot-path,throughput,clock-sleep,actor-job,reader]
                              [--keep-trace]

      --actions          recorded actions per thread (hot path) and in the throughput run
                         (default 1000000); a fifth of it is the sleeps of clock-sleep and
                         the calls of actor-job
      --events           events in the generated trace the readers read (default 1000000)
      --repeat           timed runs per measurement; the best is reported (default 5)
      --threads          thread counts for the hot-path benchmark (default 1,2)
      --buffer-capacity  the recorder's per-thread buffer in the throughput run (default: large
                         enough that nothing is dropped, 4 x --actions)
      --benchmarks       which of hot-path, throughput, clock-sleep (what recording adds to
                         an async sleep, on a VirtualAsyncClock), actor-job (what it adds to an
                         actor's job, RecordingSerialExecutor against the same executor
                         unrecorded), reader to run (default: all)
      --keep-trace       keep the generated trace file and print its path on stderr

    Writes one JSON line per measurement to stdout; progress goes to stderr.
    """

  static func main() {
    BenchmarkMain.run(usage: usage, child: childMain, driver: runDriver)
  }

  // MARK: - Driver

  static func runDriver(_ arguments: [String]) throws {
    let flags = try Flags(arguments, switchNames: ["help", "keep-trace"])
    if flags.isSet("help") {
      print(usage)
      return
    }
    let unknown = flags.unknownNames(known: [
      "actions", "events", "repeat", "threads", "buffer-capacity", "benchmarks", "keep-trace",
    ])
    guard unknown.isEmpty else {
      throw Flags.UsageError("unknown option --\(unknown.joined(separator: ", --"))")
    }
    let actions = try single(flags, "actions", default: defaultActions)
    let events = try single(flags, "events", default: defaultEvents)
    let repeats = try single(flags, "repeat", default: defaultRepeats)
    let threadCounts = try flags.counts("threads", default: defaultThreads)
    let bufferCapacity = try single(flags, "buffer-capacity", default: 4 * actions)
    let selected = flags.list("benchmarks", default: allBenchmarks)
    for name in selected where !allBenchmarks.contains(name) {
      throw Flags.UsageError("unknown benchmark '\(name)'")
    }

    if selected.contains("hot-path") {
      for threads in threadCounts {
        printError("[recording-hot-path] threads=\(threads) actions=\(actions)/thread …")
        try forward(measure(["hot-path", String(threads), String(actions), String(repeats)]))
      }
    }
    if selected.contains("throughput") {
      printError("[recording-throughput] actions=\(actions) buffer_capacity=\(bufferCapacity) …")
      try forward(
        measure(["throughput", String(actions), String(repeats), String(bufferCapacity)]))
    }
    if selected.contains("clock-sleep") {
      printError("[recording-clock-sleep] sleeps=\(actions / 5) …")
      try forward(measure(["clock-sleep", String(actions / 5), String(repeats)]))
    }
    if selected.contains("actor-job") {
      printError("[recording-actor-job] calls=\(actions / 5) …")
      try forward(measure(["actor-job", String(actions / 5), String(repeats)]))
    }
    if selected.contains("reader") {
      let path = temporaryPath("reader")
      defer {
        if flags.isSet("keep-trace") {
          printError("[trace-reader] trace kept at \(path)")
        } else {
          try? FileManager.default.removeItem(atPath: path)
        }
      }
      printError("[trace-size] recording a trace of about \(events) events to \(path) …")
      try forward(measure(["generate", path, String(events)]))

      printError("[trace-reader] Foundation.JSONDecoder …")
      let decoderLines = try measure([
        "read", ReaderLibrary.jsonDecoder.rawValue, path, String(repeats),
      ])
      forward(decoderLines)
      let baseline = decoderLines.compactMap(ReaderReport.init(line:)).last

      printError("[trace-reader] chronoscope …")
      let ourLines = try measure([
        "read", ReaderLibrary.chronoscope.rawValue, path, String(repeats),
        String(baseline?.eventsPerSecond ?? 0),
      ])
      forward(ourLines)
      let ours = ourLines.compactMap(ReaderReport.init(line:)).last
      if let ours, let baseline, ours.events != baseline.events {
        printError(
          "warning: the readers disagree: chronoscope read \(ours.events) events, "
            + "JSONDecoder \(baseline.events)")
      }
    }
  }

  static func single(_ flags: Flags, _ name: String, default value: Int) throws(Flags.UsageError)
    -> Int
  {
    let values = try flags.counts(name, default: [value])
    guard values.count == 1 else { throw Flags.UsageError("--\(name) takes one count") }
    return values[0]
  }

  /// Runs one measurement in a child process and returns the JSON lines it printed.
  static func measure(_ arguments: [String]) throws -> [String] {
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

  static func forward(_ lines: [String]) {
    for line in lines { writeLine(line) }
  }

  struct ChildOutputError: Error, CustomStringConvertible {
    var arguments: [String]
    var output: String
    var description: String {
      "child \(arguments.joined(separator: " ")) printed no measurement; stdout was: \(output)"
    }
  }

  /// The part of a reader child's line the driver needs for the ratio and the cross-check.
  struct ReaderReport: Decodable {
    var events: Int
    var eventsPerSecond: Double
    enum CodingKeys: String, CodingKey {
      case events
      case eventsPerSecond = "events_per_second"
    }

    init?(line: String) {
      guard let report = try? JSONDecoder().decode(Self.self, from: Data(line.utf8)) else {
        return nil
      }
      self = report
    }
  }

  // MARK: - Child

  /// `--child KIND ARGS…`: one measurement, its JSON line(s) on stdout.
  static func childMain(_ arguments: [String]) throws {
    guard let kind = arguments.first else { throw Flags.UsageError("--child needs a kind") }
    let rest = Array(arguments.dropFirst())
    func count(_ index: Int) throws -> Int {
      guard index < rest.count, let value = Int(rest[index]), value > 0 else {
        throw Flags.UsageError("--child \(kind): argument \(index + 1) must be a positive count")
      }
      return value
    }
    func variant(at index: Int) throws -> Variant? {
      guard index < rest.count else { return nil }
      guard let variant = Variant(rawValue: rest[index]) else {
        throw Flags.UsageError("--child \(kind): '\(rest[index])' is not bare, recorded or flight")
      }
      return variant
    }
    switch kind {
    case "hot-path":
      writeLine(
        try HotPath.run(
          threads: count(0), actions: count(1), repeats: count(2), only: variant(at: 3)))
    case "throughput":
      writeLine(
        try Throughput.run(
          actions: count(0), repeats: count(1), bufferCapacity: count(2), only: variant(at: 3)))
    case "clock-sleep":
      writeLine(try ClockSleep.run(sleeps: count(0), repeats: count(1)))
    case "actor-job":
      writeLine(try ActorJob.run(calls: count(0), repeats: count(1)))
    case "generate":
      guard rest.count == 2 else { throw Flags.UsageError("--child generate PATH EVENTS") }
      writeLine(try TraceGeneration.run(path: rest[0], events: count(1)))
    case "read":
      guard rest.count >= 3, let library = ReaderLibrary(rawValue: rest[0]) else {
        throw Flags.UsageError("--child read LIBRARY PATH REPEAT [BASELINE_EVENTS_PER_SECOND]")
      }
      let baseline = rest.count > 3 ? Double(rest[3]) : nil
      writeLine(
        try ReaderBenchmark.run(
          library, path: rest[1], repeats: count(2), baselineEventsPerSecond: baseline))
    default:
      throw Flags.UsageError("unknown child kind '\(kind)'")
    }
  }
}

// MARK: - Shared helpers

/// One side of a bare-versus-recorded comparison. A child given one runs only that side, for
/// profiling (`perf record … RecordingBenchmark --child hot-path 1 1000000 1 recorded`).
enum Variant: String {
  case bare
  case recorded
  /// Recorded into a flight recorder's memory (the throughput benchmark only).
  case flight
}

/// A fresh path under /tmp for a trace file of this process.
func temporaryPath(_ purpose: String, _ index: Int = 0) -> String {
  "/tmp/chronoscope-recording-benchmark-\(ProcessInfo.processInfo.processIdentifier)-\(purpose)-\(index).trace"
}

/// The size of the file at `path` in bytes, or 0.
func fileSize(_ path: String) -> Int {
  ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}

func writeLine(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func writeLine(_ line: JSONLine) { writeLine(line.description) }

/// A measurement that came out wrong (actions lost, events missing), which invalidates it.
struct MeasurementError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
