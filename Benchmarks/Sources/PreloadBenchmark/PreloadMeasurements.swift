import BenchmarkSupport
import Foundation

/// `preload-throughput`: DispatchHeavyProgram's `throughput` mode, bare and recorded, alternating,
/// `repeats` times each; the best of each side is compared. See Benchmarks/README.md.
enum PreloadThroughput {
  /// Issue 30: recorded wall time at most 1.3× bare, for 1M asyncs across 4 queues.
  static let ratioTarget = Target.atMost(1.3, "ratio")
  /// Issue 40: recorded CPU time at most 1.5× bare.
  static let cpuRatioTarget = Target.atMost(1.5, "cpu_ratio")
  /// Issue 40: nothing dropped in a full recording.
  static let droppedTarget = Target.atMost(0, "most_dropped")

  static func run(_ runner: ProgramRunner, actions: Int, repeats: Int) throws -> (
    JSONLine, [TargetOutcome]
  ) {
    var bare: ProgramRunner.Run?
    var recorded: ProgramRunner.Run?
    var barePeak = 0
    var recordedPeak = 0
    var bareThreads = 0
    var recordedThreads = 0
    var mostDropped = 0
    var bareCPU = Double.infinity
    var recordedCPU = Double.infinity
    var convertSeconds = Double.infinity
    for index in 1...repeats {
      let plain = try runner.run(
        "throughput", actions: actions, recorded: false, name: "throughput-bare-\(index)")
      let traced = try runner.run(
        "throughput", actions: actions, recorded: true, name: "throughput-\(index)")
      let plainSeconds = plain.report.elapsedSeconds ?? .infinity
      let tracedSeconds = traced.report.elapsedSeconds ?? .infinity
      if plainSeconds < bare?.report.elapsedSeconds ?? .infinity { bare = plain }
      if tracedSeconds < recorded?.report.elapsedSeconds ?? .infinity { recorded = traced }
      barePeak = max(barePeak, plain.report.peakResidentSetBytes)
      recordedPeak = max(recordedPeak, traced.report.peakResidentSetBytes)
      bareThreads = max(bareThreads, plain.report.threads)
      recordedThreads = max(recordedThreads, traced.report.threads)
      mostDropped = max(mostDropped, traced.trace?.dropped ?? 0)
      bareCPU = min(bareCPU, plain.cpuSeconds)
      recordedCPU = min(recordedCPU, traced.cpuSeconds)
      convertSeconds = min(convertSeconds, traced.trace?.convertSeconds ?? .infinity)
      printError(
        "  run \(index): bare \(format(seconds: plainSeconds)) (process "
          + "\(format(seconds: plain.processSeconds))) recorded \(format(seconds: tracedSeconds)) "
          + "(process \(format(seconds: traced.processSeconds))), CPU bare "
          + "\(format(seconds: plain.cpuSeconds)) recorded \(format(seconds: traced.cpuSeconds)), "
          + "converted in \(traced.trace?.convertSeconds.map { format(seconds: $0) } ?? "-"), written "
          + "\(traced.trace?.written ?? 0), dropped \(traced.trace?.dropped ?? 0)")
    }
    guard let bare, let recorded, let bareSeconds = bare.report.elapsedSeconds,
      let recordedSeconds = recorded.report.elapsedSeconds, let trace = recorded.trace
    else { throw MeasurementError("throughput: the program did not report its elapsed time") }

    let ratio = rounded(recordedSeconds / bareSeconds, places: 3)
    var line = JSONLine()
    line.add("benchmark", .string("preload-throughput"))
    line.add("actions", .int(actions))
    line.add("queues", .int(4))
    line.add("recorded_via", .string(runner.recording.description))
    line.add("bare_seconds", .double(rounded(bareSeconds, places: 6)))
    line.add("recorded_seconds", .double(rounded(recordedSeconds, places: 6)))
    line.add("ratio", .double(ratio))
    line.add("bare_process_seconds", .double(rounded(bare.processSeconds, places: 6)))
    line.add("recorded_process_seconds", .double(rounded(recorded.processSeconds, places: 6)))
    let cpuRatio = rounded(recordedCPU / bareCPU, places: 3)
    line.add("bare_cpu_seconds", .double(rounded(bareCPU, places: 6)))
    line.add("recorded_cpu_seconds", .double(rounded(recordedCPU, places: 6)))
    line.add("cpu_ratio", .double(cpuRatio))
    if convertSeconds.isFinite {
      line.add("convert_seconds", .double(rounded(convertSeconds, places: 6)))
    }
    if let spoolBytes = trace.spoolBytes { line.add("spool_bytes", .int(spoolBytes)) }
    line.add("events", .int(trace.written))
    line.add("dropped", .int(trace.dropped))
    line.add("most_dropped", .int(mostDropped))
    line.add(
      "events_per_action",
      .double(rounded(Double(trace.written + trace.dropped) / Double(actions), places: 2)))
    line.add("trace_bytes", .int(trace.bytes))
    line.add("bare_peak_rss_bytes", .int(barePeak))
    line.add("recorded_peak_rss_bytes", .int(recordedPeak))
    line.add("added_rss_bytes", .int(recordedPeak - barePeak))
    line.add("bare_threads", .int(bareThreads))
    line.add("recorded_threads", .int(recordedThreads))
    let outcomes = [
      ratioTarget.outcome(ratio, context: "preload-throughput actions=\(actions)"),
      cpuRatioTarget.outcome(cpuRatio, context: "preload-throughput actions=\(actions)"),
      droppedTarget.outcome(Double(mostDropped), context: "preload-throughput actions=\(actions)"),
    ]
    line.add(outcomes)
    return (line, outcomes)
  }
}

/// `preload-schedule-cost`: DispatchHeavyProgram's `schedule-cost` mode, bare and recorded,
/// alternating, `repeats` times each, against the decorator's same measurement
/// (``DecoratorScheduleCost``, in a child of this benchmark). See Benchmarks/README.md.
enum PreloadScheduleCost {
  /// Issue 30: the preload's cost per event within 2× the decorator's hot path.
  static let decoratorTarget = Target.atMost(2, "vs_decorator")

  static func run(
    _ runner: ProgramRunner, actions: Int, repeats: Int, decorator: DecoratorScheduleCost.Report?
  ) throws -> (JSONLine, [TargetOutcome]) {
    var bareSchedule = Double.infinity
    var bareDrain = Double.infinity
    var recordedSchedule = Double.infinity
    var recordedDrain = Double.infinity
    var trace: ProgramRunner.TraceSummary?
    var barePeak = 0
    var recordedPeak = 0
    var bareThreads = 0
    var recordedThreads = 0
    for index in 1...repeats {
      let plain = try runner.run(
        "schedule-cost", actions: actions, recorded: false, name: "schedule-cost-bare-\(index)")
      let traced = try runner.run(
        "schedule-cost", actions: actions, recorded: true, name: "schedule-cost-\(index)")
      guard let plainSchedule = plain.report.scheduleSeconds,
        let plainDrain = plain.report.drainSeconds,
        let tracedSchedule = traced.report.scheduleSeconds,
        let tracedDrain = traced.report.drainSeconds
      else { throw MeasurementError("schedule-cost: the program did not report its times") }
      bareSchedule = min(bareSchedule, plainSchedule)
      bareDrain = min(bareDrain, plainDrain)
      if tracedSchedule < recordedSchedule { trace = traced.trace }
      recordedSchedule = min(recordedSchedule, tracedSchedule)
      recordedDrain = min(recordedDrain, tracedDrain)
      barePeak = max(barePeak, plain.report.peakResidentSetBytes)
      recordedPeak = max(recordedPeak, traced.report.peakResidentSetBytes)
      bareThreads = max(bareThreads, plain.report.threads)
      recordedThreads = max(recordedThreads, traced.report.threads)
      printError(
        "  run \(index): bare schedule \(format(seconds: plainSchedule)) drain "
          + "\(format(seconds: plainDrain)); recorded schedule \(format(seconds: tracedSchedule)) "
          + "drain \(format(seconds: tracedDrain)), written \(traced.trace?.written ?? 0), "
          + "dropped \(traced.trace?.dropped ?? 0)")
    }
    let perAction = 1e9 / Double(actions)
    let addedPerSchedule = rounded((recordedSchedule - bareSchedule) * perAction, places: 1)
    let addedPerRun = rounded((recordedDrain - bareDrain) * perAction, places: 1)

    var line = JSONLine()
    line.add("benchmark", .string("preload-schedule-cost"))
    line.add("actions", .int(actions))
    line.add("queues", .int(4))
    line.add("recorded_via", .string(runner.recording.description))
    line.add("bare_schedule_seconds", .double(rounded(bareSchedule, places: 6)))
    line.add("recorded_schedule_seconds", .double(rounded(recordedSchedule, places: 6)))
    line.add("bare_drain_seconds", .double(rounded(bareDrain, places: 6)))
    line.add("recorded_drain_seconds", .double(rounded(recordedDrain, places: 6)))
    line.add("bare_ns_per_schedule", .double(rounded(bareSchedule * perAction, places: 1)))
    line.add("ns_added_per_schedule", .double(addedPerSchedule))
    line.add("ns_added_per_run", .double(addedPerRun))
    line.add("events", trace.map { .int($0.written) })
    line.add("dropped", trace.map { .int($0.dropped) })
    line.add("bare_peak_rss_bytes", .int(barePeak))
    line.add("recorded_peak_rss_bytes", .int(recordedPeak))
    line.add("bare_threads", .int(bareThreads))
    line.add("recorded_threads", .int(recordedThreads))
    var outcomes: [TargetOutcome] = []
    if let decorator {
      line.add("decorator_ns_added_per_schedule", .double(decorator.nsAddedPerSchedule))
      line.add("decorator_ns_added_per_run", .double(decorator.nsAddedPerRun))
      let vsDecorator = rounded(addedPerSchedule / decorator.nsAddedPerSchedule, places: 2)
      line.add("vs_decorator", .double(vsDecorator))
      line.add(
        "vs_decorator_run", .double(rounded(addedPerRun / decorator.nsAddedPerRun, places: 2)))
      outcomes.append(
        decoratorTarget.outcome(vsDecorator, context: "preload-schedule-cost actions=\(actions)"))
    }
    line.add(outcomes)
    return (line, outcomes)
  }
}

func format(seconds: Double) -> String { String(format: "%.4f s", seconds) }
