import BenchmarkSupport
@_spi(Benchmarks) import ChronoscopeRecording
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs DispatchHeavyProgram in a child process, bare or recorded, and reads what it said of
/// itself and, recorded, what its trace says.
struct ProgramRunner {
  /// How a recorded run switches recording on.
  enum Recording {
    /// `LD_PRELOAD=library CHRONOSCOPE_TRACE=template`, and with `spool`
    /// `CHRONOSCOPE_TRACE_SPOOL=1`: what `chronoscope record` sets; the spool is then converted
    /// as `record` converts it when the program ends, and timed apart.
    case preload(library: String, spool: Bool)
    /// `chronoscope record -o template -- program …`, through the binary at this path.
    case chronoscope(path: String)

    var description: String {
      switch self {
      case .preload(_, let spool): spool ? "LD_PRELOAD, spooled" : "LD_PRELOAD, lines"
      case .chronoscope: "chronoscope record"
      }
    }
  }

  let program: String
  let recording: Recording
  /// Where recorded runs write their traces.
  let directory: String
  let timeoutSeconds: Int
  let keepTraces: Bool

  /// What the program printed: its one JSON line.
  struct Report: Decodable {
    var actions: Int
    var elapsedSeconds: Double?
    var scheduleSeconds: Double?
    var drainSeconds: Double?
    var peakResidentSetBytes: Int
    var threads: Int

    enum CodingKeys: String, CodingKey {
      case actions
      case elapsedSeconds = "elapsed_seconds"
      case scheduleSeconds = "schedule_seconds"
      case drainSeconds = "drain_seconds"
      case peakResidentSetBytes = "peak_rss_bytes"
      case threads
    }
  }

  /// A recorded run's trace: its size and the counts on its `close` line.
  struct TraceSummary {
    var path: String
    var bytes: Int
    var written: Int
    var dropped: Int
    /// The spool's size, when the run spooled.
    var spoolBytes: Int?
    /// How long converting the spool to the trace took, when the run spooled.
    var convertSeconds: Double?
  }

  struct Run {
    var report: Report
    /// From starting the child until it exited: start-up and the recorder's close at exit too.
    var processSeconds: Double
    /// The child's CPU time, user and system, every thread's.
    var cpuSeconds: Double
    var trace: TraceSummary?
  }

  /// Runs `DispatchHeavyProgram mode actions`, recorded or not; `name` makes the trace's name.
  func run(_ mode: String, actions: Int, recorded: Bool, name: String) throws -> Run {
    let arguments = [mode, String(actions)]
    var environment = ProcessInfo.processInfo.environment
    // A bare run is bare even if this benchmark was started with recording switched on.
    for key in environment.keys where key.hasPrefix("CHRONOSCOPE_TRACE") {
      environment[key] = nil
    }
    let template = "\(directory)/\(name)-%p.trace"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    if recorded {
      switch recording {
      case .preload(let library, let spool):
        environment["LD_PRELOAD"] =
          ([library] + (environment["LD_PRELOAD"].map { [$0] } ?? [])).joined(separator: ":")
        environment["CHRONOSCOPE_TRACE"] = template
        // `RecordingSchedulerFactory.spoolVariable`, which is the package's own.
        if spool { environment["CHRONOSCOPE_TRACE_SPOOL"] = "1" }
      case .chronoscope(let path):
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["record", "-o", template, "--", program] + arguments
      }
    }
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output

    let cpuBefore = childrenCPUSeconds()
    let started = ContinuousClock.now
    try process.run()
    let watchdog = DispatchWorkItem { [process] in
      if process.isRunning { process.terminate() }
    }
    DispatchQueue.global().asyncAfter(
      deadline: .now() + .seconds(timeoutSeconds), execute: watchdog)
    // Drain the pipe before waiting, or a child with a full pipe buffer would never exit.
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    watchdog.cancel()
    let processSeconds = seconds(started.duration(to: .now))
    let cpuSeconds = childrenCPUSeconds() - cpuBefore

    let command =
      (recorded ? "\(recording.description) " : "")
      + ([program] + arguments).joined(separator: " ")
    let traces = recorded ? tracePaths(named: name) : []
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      var problem =
        process.terminationReason == .uncaughtSignal
        ? "died of signal \(process.terminationStatus)"
        : "exited with status \(process.terminationStatus)"
      if processSeconds >= Double(timeoutSeconds) {
        problem = "did not finish in \(timeoutSeconds) s (stopped with SIGTERM: a hang?)"
      }
      let kept = traces.isEmpty ? "" : "; its trace is kept: " + traces.joined(separator: ", ")
      throw MeasurementError("\(command) \(problem)\(kept)")
    }
    guard
      let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last(where: {
        $0.hasPrefix("{")
      }),
      let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8))
    else {
      throw MeasurementError(
        "\(command) printed no report; stdout was: \(String(decoding: data, as: UTF8.self))")
    }

    var trace: TraceSummary?
    if recorded {
      guard traces.count == 1, let path = traces.first else {
        throw MeasurementError(
          "\(command) wrote \(traces.count) traces matching \(template), expected 1: "
            + traces.joined(separator: ", "))
      }
      var spoolBytes: Int?
      var convertSeconds: Double?
      if case .preload(_, true) = recording {
        spoolBytes = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        let converting = ContinuousClock.now
        do {
          _ = try TraceSpoolConversion.convertInPlace(path: path)
        } catch {
          throw MeasurementError("\(command): its spool \(path) did not convert: \(error)")
        }
        convertSeconds = seconds(converting.duration(to: .now))
      }
      trace = try summary(of: path, command: command)
      trace?.spoolBytes = spoolBytes
      trace?.convertSeconds = convertSeconds
      if !keepTraces { try? FileManager.default.removeItem(atPath: path) }
    }
    return Run(
      report: report, processSeconds: processSeconds, cpuSeconds: cpuSeconds, trace: trace)
  }

  /// The CPU time, user and system, of the children waited for so far.
  private func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
      + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  }

  /// The traces a run named `name` wrote (`name-PID.trace`).
  private func tracePaths(named name: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasPrefix(name + "-") && $0.hasSuffix(".trace") }.sorted()
      .map { "\(directory)/\($0)" }
  }

  /// The size of the trace at `path` and the counts on its `close` line, the last such line in
  /// its last 64 KiB (`chronoscope record` may append symbolized sites after it).
  private func summary(of path: String, command: String) throws -> TraceSummary {
    struct Closing: Decodable {
      var e: String
      var events: Int
      var dropped: Int
    }
    guard let file = FileHandle(forReadingAtPath: path) else {
      throw MeasurementError("cannot open the trace \(path)")
    }
    defer { try? file.close() }
    let bytes = Int(try file.seekToEnd())
    try file.seek(toOffset: UInt64(max(0, bytes - 65_536)))
    let tail = try file.readToEnd() ?? Data()
    let closing = String(decoding: tail, as: UTF8.self).split(separator: "\n").reversed()
      .lazy.compactMap { try? JSONDecoder().decode(Closing.self, from: Data($0.utf8)) }
      .first { $0.e == "close" }
    guard let closing else {
      throw MeasurementError(
        "\(command): its trace \(path) has no close line (the recorder did not close at exit); "
          + "kept")
    }
    return TraceSummary(
      path: path, bytes: bytes, written: closing.events, dropped: closing.dropped)
  }
}

/// A measurement that came out wrong (a child that failed, a trace without its close line).
struct MeasurementError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
