import BenchmarkSupport
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `preload-startup`: what loading the preload library adds to the start of a process that is
/// not Swift (a shell a recorded program runs gets `LD_PRELOAD` too). `/bin/true` and
/// `sh -c true` run bare and preloaded, one of each in turn, the side that goes first
/// alternating, `runs` times; the figure is the median of the paired differences, so that load
/// on a shared machine falls on both sides of each pair. No recording is asked for: the library
/// stays inert, as it does in a shell, and what is left is loading and relocating it and the
/// libraries it needs (the Swift runtime, Dispatch, Foundation) and its constructor.
/// See Benchmarks/README.md.
enum PreloadStartup {
  /// The programs, as `posix_spawn` takes them: no `PATH` search, no shell of ours in between.
  static let programs = [["/bin/true"], ["/bin/sh", "-c", "true"]]

  static func run(library: String, runs: Int) throws -> [JSONLine] {
    var bare = ProcessInfo.processInfo.environment
    // Bare is bare even if this benchmark was started under a recorder.
    bare["LD_PRELOAD"] = nil
    for key in bare.keys where key.hasPrefix("CHRONOSCOPE_TRACE") { bare[key] = nil }
    var preloaded = bare
    preloaded["LD_PRELOAD"] = library
    var lines: [JSONLine] = []
    for program in programs {
      var bareTimes: [Double] = []
      var preloadedTimes: [Double] = []
      for index in 0..<runs {
        let first = index.isMultiple(of: 2)
        let one = try milliseconds(program, environment: first ? bare : preloaded)
        let other = try milliseconds(program, environment: first ? preloaded : bare)
        bareTimes.append(first ? one : other)
        preloadedTimes.append(first ? other : one)
      }
      let added = zip(preloadedTimes, bareTimes).map { $0 - $1 }.sorted()
      var line = JSONLine()
      line.add("benchmark", .string("preload-startup"))
      line.add("program", .string(program.joined(separator: " ")))
      line.add("runs", .int(runs))
      line.add("bare_ms", .double(rounded(median(bareTimes.sorted()), places: 3)))
      line.add("preloaded_ms", .double(rounded(median(preloadedTimes.sorted()), places: 3)))
      line.add("added_ms", .double(rounded(median(added), places: 3)))
      line.add("added_p10_ms", .double(rounded(added[added.count / 10], places: 3)))
      line.add("added_p90_ms", .double(rounded(added[added.count * 9 / 10], places: 3)))
      printError(
        "  \(program.joined(separator: " ")): bare \(format(ms: median(bareTimes.sorted()))), "
          + "preloaded \(format(ms: median(preloadedTimes.sorted()))), added "
          + "\(format(ms: median(added))) (p10 \(format(ms: added[added.count / 10])), "
          + "p90 \(format(ms: added[added.count * 9 / 10])))")
      lines.append(line)
    }
    return lines
  }

  /// Starts `program` with `environment` and waits for it: the milliseconds from spawning it to
  /// reaping it. Throws unless it exits with status 0 (a library that breaks the program must
  /// not pass for a fast one).
  private static func milliseconds(_ program: [String], environment: [String: String]) throws
    -> Double
  {
    let arguments = program.map { strdup($0) } + [nil]
    let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in arguments + variables { free(pointer) }
    }
    var pid: pid_t = 0
    let started = ContinuousClock.now
    let spawned = posix_spawn(&pid, program[0], nil, nil, arguments, variables)
    guard spawned == 0 else {
      throw MeasurementError("cannot start \(program[0]): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let elapsed = seconds(started.duration(to: .now)) * 1_000
    // WIFEXITED and WEXITSTATUS, which Swift does not import: exited, with status 0.
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
      throw MeasurementError(
        "\(program.joined(separator: " ")) failed (wait status \(status))"
          + (environment["LD_PRELOAD"].map { " with LD_PRELOAD=\($0)" } ?? ""))
    }
    return elapsed
  }

  /// The middle of `sorted` (the upper one of two).
  private static func median(_ sorted: [Double]) -> Double { sorted[sorted.count / 2] }

  private static func format(ms: Double) -> String { String(format: "%.2f ms", ms) }
}
