import ArgumentParser
import BenchmarkSupport

/// `RecordingBenchmark --child KIND ARGS…`: one measurement in this process, its JSON line on
/// stdout. The driver runs each in a child process of its own; run one by hand to profile it
/// (`perf record`) or count its instructions (`valgrind --tool=callgrind`): none starts a
/// process of its own.
struct RecordingChild: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "RecordingBenchmark --child",
    abstract: "One measurement in this process (what the driver runs in each child).",
    subcommands: [
      HotPathChild.self, ThroughputChild.self, ClockSleepChild.self, ActorJobChild.self,
      GenerateChild.self, ReadChild.self,
    ])
}

/// `hot-path THREADS ACTIONS REPEAT [bare|recorded|floor|named-scope|named-call] [--cold-ring]`:
/// ``HotPath``.
struct HotPathChild: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "hot-path", abstract: "The cost a recorded action adds on its thread.")

  @Argument(help: "Threads, each with its own scheduler.", transform: CommandLineValue.count)
  var threads: Int
  @Argument(help: "Actions per thread.", transform: CommandLineValue.count)
  var actions: Int
  @Argument(help: "Timed runs; the best is reported.", transform: CommandLineValue.count)
  var repeats: Int
  @Argument(help: "Run one side alone: bare, recorded, floor, named-scope or named-call.")
  var only: Variant?
  @Flag(
    help: """
      Skip the lap that warms each thread's ring before timing: for instruction counts, which \
      page faults do not affect and in which the lap, sized by the ring, would not cancel out.
      """)
  var coldRing = false

  func validate() throws {
    if only == .flight { throw ValidationError("hot-path has no flight side") }
  }

  func run() throws {
    writeLine(
      try HotPath.run(
        threads: threads, actions: actions, repeats: repeats, only: only, warmRing: !coldRing))
  }
}

/// `throughput ACTIONS REPEAT BUFFER_CAPACITY [bare|recorded|flight]`: ``Throughput``.
struct ThroughputChild: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "throughput",
    abstract: "A serial Dispatch queue's throughput, bare, recorded and flight-recorded.")

  @Argument(help: "Actions sent to the queue.", transform: CommandLineValue.count)
  var actions: Int
  @Argument(help: "Timed runs; the best is reported.", transform: CommandLineValue.count)
  var repeats: Int
  @Argument(help: "The recorder's per-thread buffer.", transform: CommandLineValue.count)
  var bufferCapacity: Int
  @Argument(help: "Run one side alone: bare, recorded or flight.")
  var only: Variant?

  func validate() throws {
    if let only, !only.isThroughputSide {
      throw ValidationError("throughput has no \(only.rawValue) side")
    }
  }

  func run() throws {
    writeLine(
      try Throughput.run(
        actions: actions, repeats: repeats, bufferCapacity: bufferCapacity, only: only))
  }
}

/// `clock-sleep SLEEPS REPEAT`: ``ClockSleep``.
struct ClockSleepChild: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "clock-sleep", abstract: "What recording adds to a sleep on a virtual clock.")

  @Argument(help: "Sleeps per run.", transform: CommandLineValue.count)
  var sleeps: Int
  @Argument(help: "Timed runs; the best is reported.", transform: CommandLineValue.count)
  var repeats: Int

  func run() throws { writeLine(try ClockSleep.run(sleeps: sleeps, repeats: repeats)) }
}

/// `actor-job CALLS REPEAT`: ``ActorJob``.
struct ActorJobChild: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "actor-job", abstract: "What recording adds to an actor's job.")

  @Argument(help: "Calls per run.", transform: CommandLineValue.count)
  var calls: Int
  @Argument(help: "Timed runs; the best is reported.", transform: CommandLineValue.count)
  var repeats: Int

  func run() throws { writeLine(try ActorJob.run(calls: calls, repeats: repeats)) }
}

/// `generate PATH EVENTS`: ``TraceGeneration``.
struct GenerateChild: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate", abstract: "Records the trace the readers read, and its size.")

  @Argument(help: "Where to write the trace.")
  var path: String
  @Argument(help: "About how many events to record.", transform: CommandLineValue.count)
  var events: Int

  func run() throws { writeLine(try TraceGeneration.run(path: path, events: events)) }
}

/// `read LIBRARY PATH REPEAT [BASELINE_EVENTS_PER_SECOND [MEMCHR_BYTES_PER_SECOND]]`:
/// ``ReaderBenchmark``.
struct ReadChild: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "read", abstract: "Reads a trace file with one library.")

  @Argument(help: "How to read it.")
  var library: ReaderLibrary
  @Argument(help: "The trace file.")
  var path: String
  @Argument(help: "Timed runs; the best is reported.", transform: CommandLineValue.count)
  var repeats: Int
  @Argument(help: "JSONDecoder's events per second, for chronoscope's ratio (0: none).")
  var baselineEventsPerSecond: Double?
  @Argument(help: "memchr-lines' bytes per second, for chronoscope's vs_memchr_lines (0: none).")
  var memchrBytesPerSecond: Double?

  func run() throws {
    writeLine(
      try ReaderBenchmark.run(
        library, path: path, repeats: repeats, baselineEventsPerSecond: baselineEventsPerSecond,
        memchrBytesPerSecond: memchrBytesPerSecond))
  }
}

extension ReaderLibrary: ExpressibleByArgument {}
