import BenchmarkSupport
import Foundation

/// Compares virtual-time schedulers on one workload: N actions at seeded random delays in
/// [0, 1 s), then one advance of 1 s that runs them all. See Benchmarks/README.md.
///
/// The driver runs every (library, N) measurement in a fresh child process of itself
/// (`--child LIBRARY N`) so that each peak-memory figure belongs to one measurement, and writes
/// one JSON line per measurement to standard output; progress goes to standard error.
@main
enum VirtualTimeBenchmark {
  static let benchmarkName = "virtual-time"
  static let defaultCounts = [1_000, 4_000, 16_000]
  static let defaultOursOnlyCounts = [100_000, 1_000_000]
  /// Actions in the untimed warm-up run each child does first (same for every library).
  static let warmUpCount = 64

  static let usage = """
    usage: VirtualTimeBenchmark [--n 1000,4000,16000] [--ours-only-n 100000,1000000]
                                [--libraries ours,combine-schedulers,swift-clocks,ours-async]

      --n            action counts run by every selected library (default 1000,4000,16000)
      --ours-only-n  larger counts run by ours alone (default 100000,1000000; 0 or '' for none)
      --libraries    libraries to run (default: all four)

    Writes one JSON line per (library, n) to stdout; for ours-async (VirtualAsyncClock, a
    sleeping task per action), "ratio" is swift-clocks' ns_per_action divided by its own; for
    ours, "ratio" is the faster other
    library's ns_per_action at that n divided by ours.
    """

  static func main() {
    BenchmarkMain.run(usage: usage, child: runChild, driver: runDriver)
  }

  // MARK: - Driver

  static func runDriver(_ arguments: [String]) throws {
    let flags = try Flags(arguments, switchNames: ["help"])
    if flags.isSet("help") {
      print(usage)
      return
    }
    let unknown = flags.unknownNames(known: ["n", "ours-only-n", "libraries"])
    guard unknown.isEmpty else {
      throw Flags.UsageError("unknown option --\(unknown.joined(separator: ", --"))")
    }
    let counts = try flags.counts("n", default: defaultCounts)
    let oursOnlyCounts =
      flags.string("ours-only-n") == "0"
      ? [] : try flags.counts("ours-only-n", default: defaultOursOnlyCounts)
    var libraries: [Library] = []
    for name in flags.list("libraries", default: Library.allCases.map(\.rawValue)) {
      guard let library = Library(rawValue: name) else {
        throw Flags.UsageError("unknown library '\(name)'")
      }
      if !libraries.contains(library) { libraries.append(library) }
    }
    let competitors = Library.allCases.filter {
      $0 != .ours && $0 != .oursAsync && libraries.contains($0)
    }
    let runOurs = libraries.contains(.ours)

    var ratios: [(n: Int, ratio: Double)] = []
    for n in counts {
      // The others first, so that ours can be reported against the faster of them.
      var competitorNanosPerAction: [Double] = []
      var swiftClocksNanosPerAction: Double?
      for library in competitors {
        let report = try measure(library, n: n)
        competitorNanosPerAction.append(report.nsPerAction)
        if library == .swiftClocks { swiftClocksNanosPerAction = report.nsPerAction }
        emit(report, ratio: nil)
      }
      // The async clock against its async peer, swift-clocks' TestClock, in the same run.
      if libraries.contains(.oursAsync) {
        let report = try measure(.oursAsync, n: n)
        emit(report, ratio: swiftClocksNanosPerAction.map { $0 / report.nsPerAction })
      }
      if runOurs {
        let report = try measure(.ours, n: n)
        let ratio = competitorNanosPerAction.min().map { $0 / report.nsPerAction }
        if let ratio { ratios.append((n, ratio)) }
        emit(report, ratio: ratio)
      }
    }
    if runOurs {
      for n in oursOnlyCounts { emit(try measure(.ours, n: n), ratio: nil) }
    }

    if let lowest = ratios.min(by: { $0.ratio < $1.ratio }) {
      var summary = JSONLine()
      summary.add("min_ratio", .double(rounded(lowest.ratio, places: 2)))
      summary.add("min_ratio_n", .int(lowest.n))
      var line = JSONLine()
      line.add("benchmark", .string(benchmarkName))
      line.add("summary", .object(summary))
      writeLine(line.description)
    }
  }

  /// What a child reports for one measurement.
  struct Report: Decodable {
    var library: String
    var n: Int
    var seconds: Double
    var nsPerAction: Double
    var peakRSSBytes: Int?

    enum CodingKeys: String, CodingKey {
      case library, n, seconds
      case nsPerAction = "ns_per_action"
      case peakRSSBytes = "peak_rss_bytes"
    }
  }

  static func measure(_ library: Library, n: Int) throws -> Report {
    printError("[\(benchmarkName)] \(library.rawValue) n=\(n) …")
    let started = ContinuousClock.now
    let output = try ChildProcess.runSelf(arguments: ["--child", library.rawValue, String(n)])
    guard
      let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
      let report = try? JSONDecoder().decode(Report.self, from: Data(line.utf8))
    else {
      throw ChildOutputError(library: library, n: n, output: output)
    }
    let wall = started.duration(to: .now).components
    let wallSeconds = Double(wall.seconds) + Double(wall.attoseconds) / 1e18
    printError(
      "[\(benchmarkName)] \(library.rawValue) n=\(n): \(report.seconds) s timed, "
        + "\(report.nsPerAction) ns/action (child process \(String(format: "%.1f", wallSeconds)) s)"
    )
    return report
  }

  struct ChildOutputError: Error, CustomStringConvertible {
    var library: Library
    var n: Int
    var output: String
    var description: String {
      "child for \(library.rawValue) n=\(n) printed no measurement; stdout was: \(output)"
    }
  }

  static func emit(_ report: Report, ratio: Double?) {
    var line = JSONLine()
    line.add("benchmark", .string(benchmarkName))
    line.add("library", .string(report.library))
    line.add("n", .int(report.n))
    line.add("seconds", .double(report.seconds))
    line.add("ns_per_action", .double(report.nsPerAction))
    line.add("peak_rss_bytes", report.peakRSSBytes.map { .int($0) })
    line.add("ratio", ratio.map { .double(rounded($0, places: 2)) })
    writeLine(line.description)
  }

  // MARK: - Child

  /// `--child LIBRARY N`: one warm-up, one timed run, one JSON line, exit status 0 only if every
  /// action ran exactly once.
  static func runChild(_ arguments: [String]) throws {
    guard arguments.count == 2, let library = Library(rawValue: arguments[0]),
      let n = Int(arguments[1]), n > 0
    else {
      throw Flags.UsageError("--child needs a library and a positive count")
    }
    let warmUp = seededDelays(count: min(warmUpCount, n), below: .seconds(1))
    let warmUpRun = try runWorkload(library, delays: warmUp)
    try check(warmUpRun, expected: warmUp.count, library: library)

    let delays = seededDelays(count: n, below: .seconds(1))
    let run = try runWorkload(library, delays: delays)
    try check(run, expected: n, library: library)

    let seconds =
      Double(run.elapsed.components.seconds) + Double(run.elapsed.components.attoseconds) / 1e18
    var line = JSONLine()
    line.add("benchmark", .string(benchmarkName))
    line.add("library", .string(library.rawValue))
    line.add("n", .int(n))
    line.add("seconds", .double(rounded(seconds, places: 9)))
    line.add("ns_per_action", .double(rounded(seconds * 1e9 / Double(n), places: 2)))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    writeLine(line.description)
  }

  struct CountMismatch: Error, CustomStringConvertible {
    var library: Library
    var expected: Int
    var actual: Int
    var description: String {
      "\(library.rawValue): scheduled \(expected) actions but \(actual) ran; measurement invalid"
    }
  }

  static func check(_ run: WorkloadRun, expected: Int, library: Library) throws {
    guard run.actionsRun == expected else {
      throw CountMismatch(library: library, expected: expected, actual: run.actionsRun)
    }
  }

  // MARK: - Output

  static func writeLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

}
