import ArgumentParser
import BenchmarkSupport
@_spi(Benchmarks) import ChronoscopeAnalysis
@_spi(Benchmarks) import ChronoscopeReplay
import ChronoscopeTraceFormat
import Foundation

/// Replay at scale: builds an N-event trace in memory (a busy app's shape: 8 schedulers, 4 threads,
/// async, delayed and repeating work, cancels), prepares a ReplayEngine, then measures resident
/// memory per event and the worst seek and step times over many random targets. With `--file`,
/// times `chronoscope check`, `stats` and `export` on a trace file instead (``CheckPipeline``).
///
///   swift run -c release --package-path Benchmarks ReplayBenchmark [--events 10000000] [--seeks 2000]
///
/// Targets: every seek and step ≤ 16 ms on a 10M-event trace; resident memory ≤ 48 bytes/event.
@main
struct ReplayBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ReplayBenchmark",
    abstract: "Replay at scale: memory per event and the worst seek and step (one JSON line).",
    discussion: """
      Targets (--check), stated for 10M events: seek_max_ms, seek_by_time_max_ms and \
      step_max_ms <= 16; resident_bytes_per_event <= 48. With --file: check_seconds and \
      stats_command_seconds <= 2, export_command_seconds <= 10, open_seconds (read + prepare) \
      <= 3, open_peak_bytes_per_event (opening as the inspector does, in a child) <= 48.
      """)

  /// Issue 14: every seek and step within a frame.
  static let timeTargets = ["seek_max_ms", "seek_by_time_max_ms", "step_max_ms"].map {
    Target.atMost(16, $0, key: "target_ms")
  }
  /// Issue 14: at most 48 bytes of resident memory per event once prepared.
  static let memoryTarget = Target.atMost(
    48, "resident_bytes_per_event", key: "target_bytes_per_event")

  @Option(
    help: ArgumentHelp("Events in the generated trace (default 10000000).", valueName: "count"),
    transform: CommandLineValue.count)
  var events = 10_000_000

  @Option(
    help: ArgumentHelp(
      "Random seeks by event and by time; ten times as many steps (default 2000).",
      valueName: "count"),
    transform: CommandLineValue.count)
  var seeks = 2_000

  @Option(
    help: ArgumentHelp(
      "Time check, stats and export on this trace file instead.", valueName: "path"))
  var file: String?

  @Flag(help: "Exit 1 when a target is missed, naming it on stderr (targets above).")
  var check = false

  /// `--child open FILE`: the measurement ``OpenPeak`` runs in a process of its own.
  @OptionGroup var child: ChildCommandLine

  mutating func run() throws {
    if let words = child.words {
      guard words.first == "open" else { throw ValidationError("unknown child \(words)") }
      try OpenPeak.parseOrExit(Array(words.dropFirst())).run()
      return
    }
    if let file {
      try CheckPipeline.run(path: file, check: check)
      return
    }
    let baseline = currentResidentSetBytes() ?? 0

    var clock = ContinuousClock.now
    var trace: Trace? = Self.makeTrace(events: events)
    let generated = ContinuousClock.now - clock
    Self.progress("generated \(events) events in \(generated)")

    clock = ContinuousClock.now
    guard let built = trace else { return }
    var replay = ReplayEngine(trace: built)
    let prepared = ContinuousClock.now - clock
    trace = nil
    _ = built  // the trace's storage goes when the last reference does, below
    Self.progress("prepared the replay in \(prepared)")
    let resident = currentResidentSetBytes() ?? 0

    var generator = SplitMix64(seed: benchmarkSeed)
    var worstSeek = Duration.zero
    var seekTimes: [Duration] = []
    for _ in 0..<seeks {
      let target = Int(generator.next(below: UInt64(replay.eventCount + 1)))
      let start = ContinuousClock.now
      replay.seek(to: target)
      let elapsed = ContinuousClock.now - start
      seekTimes.append(elapsed)
      worstSeek = max(worstSeek, elapsed)
    }
    var worstTimeSeek = Duration.zero
    for _ in 0..<seeks {
      let time = Int64(generator.next(below: UInt64(replay.span + 1)))
      let start = ContinuousClock.now
      replay.seek(toTime: time)
      worstTimeSeek = max(worstTimeSeek, ContinuousClock.now - start)
    }
    var worstStep = Duration.zero
    for index in 0..<(seeks * 10) {
      let start = ContinuousClock.now
      if index % 2 == 0 { replay.stepForward() } else { replay.stepBackward() }
      replay.stepForward()
      worstStep = max(worstStep, (ContinuousClock.now - start) / 2)
    }
    // Reading the state at the cursor is what every frame does.
    var worstQuery = Duration.zero
    for _ in 0..<200 {
      replay.seek(to: Int(generator.next(below: UInt64(replay.eventCount + 1))))
      let start = ContinuousClock.now
      _ = replay.pending(first: 20)
      _ = replay.running()
      worstQuery = max(worstQuery, ContinuousClock.now - start)
    }
    // What `chronoscope check` and `stats` add once the trace is read and prepared.
    clock = ContinuousClock.now
    let findings = FindingsAnalysis.findings(in: replay)
    let analysed = ContinuousClock.now - clock
    clock = ContinuousClock.now
    let statistics = TraceStatistics(replay)
    let summarised = ContinuousClock.now - clock
    Self.progress("\(findings.count) findings, \(statistics.schedulers.count) schedulers")
    seekTimes.sort()
    let seekMaxMilliseconds = rounded(seconds(worstSeek) * 1e3, places: 3)
    let seekByTimeMaxMilliseconds = rounded(seconds(worstTimeSeek) * 1e3, places: 3)
    let stepMaxMilliseconds = rounded(seconds(worstStep) * 1e3, places: 4)
    let residentBytesPerEvent = rounded(Double(resident - baseline) / Double(events), places: 1)
    var line = JSONLine()
    line.add("benchmark", .string("replay"))
    line.add("events", .int(replay.eventCount))
    line.add("actions", .int(replay.actionCount))
    line.add("prepare_seconds", .double(rounded(seconds(prepared), places: 3)))
    line.add("findings_seconds", .double(rounded(seconds(analysed), places: 3)))
    line.add("stats_seconds", .double(rounded(seconds(summarised), places: 3)))
    line.add("resident_bytes_per_event", .double(residentBytesPerEvent))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    line.add("seek_max_ms", .double(seekMaxMilliseconds))
    line.add(
      "seek_p99_ms",
      .double(rounded(seconds(seekTimes[seekTimes.count * 99 / 100]) * 1e3, places: 3)))
    line.add("seek_by_time_max_ms", .double(seekByTimeMaxMilliseconds))
    line.add("step_max_ms", .double(stepMaxMilliseconds))
    line.add("state_query_max_ms", .double(rounded(seconds(worstQuery) * 1e3, places: 3)))
    let context = "replay events=\(replay.eventCount)"
    let measured = [seekMaxMilliseconds, seekByTimeMaxMilliseconds, stepMaxMilliseconds]
    let outcomes =
      zip(Self.timeTargets, measured).map { $0.outcome($1, context: context) }
      + [Self.memoryTarget.outcome(residentBytesPerEvent, context: context)]
    line.add(outcomes)
    print(line)
    var tally = TargetTally(benchmark: "replay")
    tally.record(outcomes)
    try tally.finish(check: check)
  }

  static func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
  }

  /// A busy app's trace: each action is scheduled, maybe hops, begins and ends; some are
  /// cancelled before they run; a few repeat.
  static func makeTrace(events count: Int) -> Trace {
    var trace = Trace(
      header: TraceHeader(clock: .host, start: "2026-11-21T00:00:00Z", process: "bench", pid: 1))
    for id in 1...8 {
      trace.schedulers[UInt32(id)] = SchedulerRecord(
        id: UInt32(id), label: "scheduler.\(id)", kind: id == 1 ? "main" : "serial",
        family: "dispatch",
        time: 0)
    }
    trace.callSites[1] = CallSiteRecord(id: 1, file: "App/Work.swift", line: 10, function: "work()")
    var events: [TraceEvent] = []
    events.reserveCapacity(count + 8)
    var generator = SplitMix64(seed: benchmarkSeed)
    var time: Int64 = 0
    var action: UInt32 = 0
    // Actions in flight: (id, begin time) — kept small, as in a real app.
    var inFlight: [(id: UInt32, due: Int64, thread: UInt32, cancel: Bool)] = []
    while events.count < count {
      time += Int64(generator.next(below: 2_000)) + 100
      if inFlight.count < 64, generator.next(below: 2) == 0 {
        action += 1
        let delay = Int64(generator.next(below: 50_000))
        let scheduler = UInt32(generator.next(below: 8)) + 1
        let thread = UInt32(generator.next(below: 4)) + 1
        events.append(
          .schedule(
            time: time, action: action, scheduler: scheduler, mode: delay > 0 ? .after : .async,
            delay: delay, due: time + delay, thread: thread, parent: action > 1 ? action - 1 : 0,
            site: 1))
        inFlight.append((action, time + delay, thread, generator.next(below: 10) == 0))
      } else if !inFlight.isEmpty {
        let index = Int(generator.next(below: UInt64(inFlight.count)))
        let item = inFlight.remove(at: index)
        if item.cancel {
          events.append(
            .cancel(time: time, action: item.id, thread: item.thread, by: 0, started: false))
        } else {
          let runner = UInt32(generator.next(below: 4)) + 1
          if runner != item.thread {
            events.append(.hop(time: time, action: item.id, from: item.thread, to: runner))
          }
          events.append(.begin(time: time, action: item.id, thread: runner, run: 1))
          time += Int64(generator.next(below: 500))
          events.append(.end(time: time, action: item.id, thread: runner, run: 1, duration: 10))
        }
      }
    }
    trace.events = events
    return trace
  }
}
