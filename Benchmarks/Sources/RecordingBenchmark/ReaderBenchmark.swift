import BenchmarkSupport
import ChronoscopeTraceFormat
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A way of reading a trace file.
enum ReaderLibrary: String, CaseIterable, Sendable {
  /// `TraceReader.read(path:)`: the strict streaming parser, tables and semantic checks included.
  case chronoscope
  /// Foundation's `JSONDecoder`, one `decode` per line into ``PermissiveTraceLine``.
  case jsonDecoder = "Foundation.JSONDecoder"
  /// No parsing: map the file as `TraceReader` does and count its lines with `memchr`. The
  /// floor of any line reader, in bytes per second.
  case memchrLines = "memchr-lines"
}

/// Every field any trace line can carry, all optional, as a permissive `Codable` reader would
/// model the format.
struct PermissiveTraceLine: Decodable {
  // Events and table lines.
  var t: Int64?
  var e: String?
  var a: UInt32?
  var q: UInt32?
  var mode: String?
  var delay: Int64?
  var due: Int64?
  var th: UInt32?
  var parent: UInt32?
  var site: UInt32?
  var run: UInt32?
  var dur: Int64?
  var from: UInt32?
  var to: UInt32?
  var by: UInt32?
  var started: Bool?
  var name: String?
  var fields: [String: String]?
  var label: String?
  var kind: String?
  var family: String?
  var file: String?
  var line: Int?
  var function: String?
  var events: Int64?
  var dropped: Int64?
  // The header.
  var format: String?
  var version: Int?
  var clock: String?
  var start: String?
  var process: String?
  var pid: Int64?
  var metadata: [String: String]?

  enum CodingKeys: String, CodingKey {
    case t, e, a, q, mode, delay, due, th, parent, site, run, dur, from, to, by, started, name
    case fields, label, kind, family, file, line, events, dropped, format, version, clock, start
    case process, pid, metadata
    case function = "func"
  }

  static let runtimeEventNames: Set<String> = ["schedule", "begin", "end", "hop", "cancel", "mark"]
}

/// Reads one trace file `repeats` times with one library and reports the best run.
///
/// Both timed spans start from the path and include reading the file (from the page cache, as
/// the generator just wrote it) and building everything in memory. `events` counts runtime
/// events (schedule, begin, end, hop, cancel, mark), which is what `Trace.events` holds; the
/// header, table and end-marker lines are read too but not counted.
enum ReaderBenchmark {
  /// Stated before issue 14 and written on the line; not checked by `--check`, whose reader
  /// targets are relative to readers measured in the same run.
  static let targetEventsPerSecond = 5_000_000
  /// Issue 14: at least 50× `JSONDecoder`'s events per second…
  static let ratioTarget = Target.atLeast(50, "ratio")
  /// … and at least 10% of the bytes per second of `memchr-lines` over the same file.
  static let memchrTarget = Target.atLeast(0.1, "vs_memchr_lines")

  struct Outcome {
    var seconds: Double
    var events: Int
    var errors: Int
    var warnings: Int
  }

  /// Reads the file `repeats` times with `library` and reports the best run. On the
  /// `chronoscope` line, `ratio` is its events per second over `baselineEventsPerSecond`
  /// (`JSONDecoder`'s) and `vs_memchr_lines` its bytes per second over
  /// `memchrBytesPerSecond`, each with its target, when given and positive.
  static func run(
    _ library: ReaderLibrary, path: String, repeats: Int, baselineEventsPerSecond: Double?,
    memchrBytesPerSecond: Double? = nil
  ) throws -> JSONLine {
    if library == .memchrLines { return try runMemchrLines(path: path, repeats: repeats) }
    let bytes = fileSize(path)
    var best: Outcome?
    for index in 1...repeats {
      let outcome: Outcome
      switch library {
      case .chronoscope: outcome = readWithTraceReader(path)
      case .jsonDecoder: outcome = try readWithJSONDecoder(path)
      case .memchrLines: preconditionFailure("handled above")
      }
      printError(
        "  run \(index): \(format(seconds: outcome.seconds)), \(outcome.events) events, "
          + "\(outcome.errors) errors, \(outcome.warnings) warnings")
      if outcome.seconds < best?.seconds ?? .infinity { best = outcome }
    }
    guard let best, best.events > 0 else {
      throw MeasurementError("trace-reader \(library.rawValue): no events read from \(path)")
    }

    let eventsPerSecond = Double(best.events) / best.seconds
    let bytesPerSecond = Double(bytes) / best.seconds
    var line = JSONLine()
    line.add("benchmark", .string("trace-reader"))
    line.add("library", .string(library.rawValue))
    line.add("events", .int(best.events))
    line.add("file_bytes", .int(bytes))
    line.add("seconds", .double(rounded(best.seconds, places: 6)))
    line.add("events_per_second", .int(Int(eventsPerSecond)))
    line.add("bytes_per_second", .int(Int(bytesPerSecond)))
    line.add("mb_per_second", .double(rounded(bytesPerSecond / 1e6, places: 1)))
    line.add("errors", .int(best.errors))
    line.add("warnings", .int(best.warnings))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    if library == .chronoscope {
      var outcomes: [TargetOutcome] = []
      if let baselineEventsPerSecond, baselineEventsPerSecond > 0 {
        let ratio = rounded(eventsPerSecond / baselineEventsPerSecond, places: 2)
        line.add("ratio", .double(ratio))
        outcomes.append(
          ratioTarget.outcome(ratio, context: "trace-reader chronoscope against JSONDecoder"))
      }
      if let memchrBytesPerSecond, memchrBytesPerSecond > 0 {
        let share = rounded(bytesPerSecond / memchrBytesPerSecond, places: 3)
        line.add("vs_memchr_lines", .double(share))
        outcomes.append(
          memchrTarget.outcome(share, context: "trace-reader chronoscope against memchr-lines"))
      }
      line.add("target_events_per_second", .int(targetEventsPerSecond))
      line.add(outcomes)
    }
    return line
  }

  /// `memchr-lines`: maps the file as `TraceReader` does, then finds every newline with
  /// `memchr`; best of `repeats`, reported in bytes (and lines) per second.
  static func runMemchrLines(path: String, repeats: Int) throws -> JSONLine {
    var best = Double.infinity
    var lines = 0
    var bytes = 0
    for index in 1...repeats {
      let start = ContinuousClock.now
      let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
      lines = data.withUnsafeBytes(newlineCount)
      bytes = data.count
      let elapsed = seconds(start.duration(to: .now))
      printError("  run \(index): \(format(seconds: elapsed)), \(lines) lines")
      best = min(best, elapsed)
    }
    guard bytes > 0 else { throw MeasurementError("memchr-lines: \(path) is empty") }
    var line = JSONLine()
    line.add("benchmark", .string("trace-reader"))
    line.add("library", .string(ReaderLibrary.memchrLines.rawValue))
    line.add("lines", .int(lines))
    line.add("file_bytes", .int(bytes))
    line.add("seconds", .double(rounded(best, places: 6)))
    line.add("lines_per_second", .int(Int(Double(lines) / best)))
    line.add("bytes_per_second", .int(Int(Double(bytes) / best)))
    line.add("mb_per_second", .double(rounded(Double(bytes) / best / 1e6, places: 1)))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    return line
  }

  static func readWithTraceReader(_ path: String) -> Outcome {
    let start = ContinuousClock.now
    let reading = TraceReader.read(path: path)
    let elapsed = start.duration(to: .now)
    return Outcome(
      seconds: seconds(elapsed), events: reading.trace?.events.count ?? 0,
      errors: reading.diagnostics.count { $0.severity == .error },
      warnings: reading.diagnostics.count { $0.severity == .warning })
  }

  /// Splits the file into lines and decodes each one; a line that does not decode is counted
  /// and skipped, as a permissive reader would.
  static func readWithJSONDecoder(_ path: String) throws -> Outcome {
    let start = ContinuousClock.now
    guard let data = FileManager.default.contents(atPath: path) else {
      throw MeasurementError("cannot read \(path)")
    }
    let decoder = JSONDecoder()
    var lines: [PermissiveTraceLine] = []
    var failures = 0
    data.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return }
      let total = raw.count
      var lineStart = 0
      while lineStart < total {
        let newline = memchr(base + lineStart, 0x0A, total - lineStart)
        let lineEnd = newline.map { UnsafeRawPointer($0) - base } ?? total
        if lineEnd > lineStart {
          if let line = try? decoder.decode(
            PermissiveTraceLine.self, from: data[lineStart..<lineEnd])
          {
            lines.append(line)
          } else {
            failures += 1
          }
        }
        lineStart = lineEnd + 1
      }
    }
    let elapsed = start.duration(to: .now)
    let events = lines.count { $0.e.map(PermissiveTraceLine.runtimeEventNames.contains) ?? false }
    return Outcome(seconds: seconds(elapsed), events: events, errors: failures, warnings: 0)
  }
}
