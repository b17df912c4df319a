import BenchmarkSupport
import Foundation
import TraceFormat

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A way of reading a trace file.
enum ReaderLibrary: String, Sendable {
  /// `TraceReader.read(path:)`: the strict streaming parser, tables and semantic checks included.
  case chronoscope
  /// Foundation's `JSONDecoder`, one `decode` per line into ``PermissiveTraceLine``.
  case jsonDecoder = "Foundation.JSONDecoder"
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
  static let targetEventsPerSecond = 5_000_000

  struct Outcome {
    var seconds: Double
    var events: Int
    var errors: Int
    var warnings: Int
  }

  static func run(
    _ library: ReaderLibrary, path: String, repeats: Int, baselineEventsPerSecond: Double?
  ) throws -> JSONLine {
    let bytes = fileSize(path)
    var best: Outcome?
    for index in 1...repeats {
      let outcome: Outcome
      switch library {
      case .chronoscope: outcome = readWithTraceReader(path)
      case .jsonDecoder: outcome = try readWithJSONDecoder(path)
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
    var line = JSONLine()
    line.add("benchmark", .string("trace-reader"))
    line.add("library", .string(library.rawValue))
    line.add("events", .int(best.events))
    line.add("file_bytes", .int(bytes))
    line.add("seconds", .double(rounded(best.seconds, places: 6)))
    line.add("events_per_second", .int(Int(eventsPerSecond)))
    line.add("mb_per_second", .double(rounded(Double(bytes) / best.seconds / 1e6, places: 1)))
    line.add("errors", .int(best.errors))
    line.add("warnings", .int(best.warnings))
    line.add("peak_rss_bytes", peakResidentSetBytes().map { .int($0) })
    if library == .chronoscope {
      if let baselineEventsPerSecond, baselineEventsPerSecond > 0 {
        line.add("ratio", .double(rounded(eventsPerSecond / baselineEventsPerSecond, places: 2)))
      }
      line.add("target_events_per_second", .int(targetEventsPerSecond))
    }
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
