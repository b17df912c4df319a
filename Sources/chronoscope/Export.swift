import ArgumentParser
import CChronoscopeZlib
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope export FILE… --format chrome -o OUT.json`: traces for Perfetto UI and
/// `chrome://tracing`.
struct Export: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Export traces as Chrome Trace Event JSON, for Perfetto UI and chrome://tracing.",
    discussion: """
      Each file is a process, lined up with the others by the recordings' wall-clock starts; \
      each scheduler a track; each run a slice; waits, flows from schedule to begin, cancels, marks \
      and findings too (docs/Export.md). A trace cut short exports what it has, with the \
      warnings validate gives about how it ended; where the recorder dropped events is marked on \
      the timeline, and a line on stderr counts the runs that cost. With --gzip, an output not \
      named .gz gets .gz added. Exit status: 0 when written, 2 for unreadable input, a bad option \
      or an output that cannot be written.
      """
  )

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case chrome
  }

  @Argument(help: "Trace files, one per process.", completion: .file())
  var files: [String]

  @Option(help: "The output format: chrome (Chrome Trace Event JSON).")
  var format: Format = .chrome

  @Option(name: .shortAndLong, help: "Where to write the JSON (- for standard output).")
  var output: String

  @Flag(
    help:
      "Compress the output with gzip, adding .gz to its name if it has none (Perfetto UI opens .json.gz as it is)."
  )
  var gzip = false

  func run() throws {
    let output = gzipName(of: self.output)
    if output != self.output {
      standardError(
        "chronoscope: --gzip: writing \(TextWidth.sanitized(output)) (gzip data, named as such)")
    }
    if output != "-", let input = files.first(where: { TraceFileWriter.sameFile($0, output) }) {
      standardError(
        "chronoscope: the output \(TextWidth.sanitized(output)) is the input \(TextWidth.sanitized(input)): choose another -o"
      )
      throw ExitCode(2)
    }
    var replays: [(replay: ReplayEngine, file: String)] = []
    for file in files {
      guard let (replay, reading) = try? TraceLoading.loadReplayAndReading(file) else {
        throw ExitCode(2)
      }
      // A trace cut short, crashed or not closed exports what it has, saying so as `validate`
      // does; the recorder's drops are counted below, with what they cost the export.
      for diagnostic in reading.ending { standardError(TraceLoading.line(diagnostic, of: file)) }
      replays.append((replay, URL(fileURLWithPath: file).lastPathComponent))
    }
    let progress = isatty(2) != 0 ? ProgressBar(title: "exporting") : nil
    // Written as it is made, through gzip when asked, as `OutputFile` writes: into a file beside
    // the output renamed over it at the end, in place for a device or FIFO, to standard output
    // for `-`.
    let file: OutputFile
    do throws(OutputFile.Failure) {
      file = try OutputFile(path: output)
    } catch {
      standardError("chronoscope: \(TextWidth.sanitized(error.description))")
      throw ExitCode(2)
    }
    var written = 0
    var failure: OutputFile.Failure?
    let write = { (bytes: UnsafeBufferPointer<UInt8>) in
      guard failure == nil, bytes.count > 0 else { return }
      do throws(OutputFile.Failure) {
        try file.write(UnsafeRawBufferPointer(bytes))
        written += bytes.count
      } catch {
        failure = error
      }
    }
    let compressor = gzip ? GzipStream() : nil
    let summary = ChromeTraceExport.export(replays, progress: { progress?.update($0) }) { chunk in
      if let compressor {
        compressor.compress(chunk, finish: false, into: write)
      } else {
        write(chunk)
      }
    }
    compressor?.compress(UnsafeBufferPointer(start: nil, count: 0), finish: true, into: write)
    progress?.finish()
    do {
      if let failure { throw failure }
      if let problem = compressor?.problem { throw problem }
      try file.commit()
    } catch {
      file.abandon()
      let reason = (error as? OutputFile.Failure)?.reason ?? fileErrorReason(error)
      standardError("chronoscope: cannot write \(TextWidth.sanitized(output)): \(reason)")
      throw ExitCode(2)
    }
    for losses in summary.losses { standardError(Self.describe(losses)) }
    let windows =
      summary.findingWindows > 0 ? ", \(summary.findingWindows) windows of findings" : ""
    standardError(
      "chronoscope: exported \(summary.processes) process(es) to \(TextWidth.sanitized(output)): \(summary.tracks) tracks, \(summary.slices) runs, \(summary.waits) waits, \(summary.flows) flows, \(summary.instants) instants\(windows), \(written) bytes"
    )
  }

  /// Where `--gzip` writes: `path` with `.gz` added, unless it has it, is `-`, or names a
  /// device, FIFO or socket (written in place, whatever its name).
  private func gzipName(of path: String) -> String {
    guard gzip, path != "-", !path.hasSuffix(".gz"), TraceReader.streamKind(of: path) == nil
    else { return path }
    return path + ".gz"
  }

  /// The line that says what the recorder's drops cost a trace's export: `chronoscope:
  /// app.trace: the recorder dropped 7 events at 1 point (marked on the timeline): not
  /// exported, 1 run whose begin was lost and …`.
  static func describe(_ losses: ChromeTraceExport.Losses) -> String {
    func runs(_ count: Int, _ what: String) -> String? {
      count > 0 ? "\(count) run\(count == 1 ? "" : "s") \(what)" : nil
    }
    let points = losses.dropPoints == 1 ? "1 point" : "\(losses.dropPoints) points"
    var line =
      "chronoscope: \(TextWidth.sanitized(losses.file)): the recorder dropped \(losses.droppedEvents) event\(losses.droppedEvents == 1 ? "" : "s") at \(points) (marked on the timeline)"
    let missing = [
      runs(losses.runsWithoutBegin, "whose begin was lost"),
      runs(losses.unscheduledRuns, "of work whose schedule was lost"),
    ].compactMap { $0 }
    line +=
      missing.isEmpty
      ? "; every run exported" : ": not exported, " + missing.joined(separator: " and ")
    if let cut = runs(losses.runsWithoutEnd, "whose end may be lost") {
      line += "; \(cut) last\(losses.runsWithoutEnd == 1 ? "s" : "") to the trace's end"
    }
    return line
  }
}

/// gzip with zlib, chunk by chunk.
final class GzipStream {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// zlib's state points back at its stream, so the stream must not move: it lives on the heap.
  private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
  private var output = [UInt8](repeating: 0, count: 1 << 18)
  private var open = false
  /// Why compressing stopped, if it did.
  private(set) var problem: Failure?

  init() {
    stream.initialize(to: z_stream())
    if czlib_deflate_init_gzip(stream, 6) == Z_OK {
      open = true
    } else {
      problem = Failure(description: "zlib could not start")
    }
  }

  deinit {
    if open { deflateEnd(stream) }
    stream.deinitialize(count: 1)
    stream.deallocate()
  }

  /// Compresses `input` and hands the compressed bytes to `write`; `finish` ends the stream.
  func compress(
    _ input: UnsafeBufferPointer<UInt8>, finish: Bool,
    into write: (UnsafeBufferPointer<UInt8>) -> Void
  ) {
    guard problem == nil else { return }
    stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
    stream.pointee.avail_in = UInt32(input.count)  // chunks are a few megabytes
    var result: Int32
    repeat {
      result = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
        stream.pointee.next_out = buffer.baseAddress
        stream.pointee.avail_out = UInt32(buffer.count)
        let result = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
        let produced = buffer.count - Int(stream.pointee.avail_out)
        write(UnsafeBufferPointer(rebasing: buffer.prefix(produced)))
        return result
      }
    } while result == Z_OK
      && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0 || finish)
    if finish {
      if result != Z_STREAM_END { problem = Failure(description: "zlib failed (\(result))") }
      deflateEnd(stream)
      open = false
    } else if result != Z_OK && result != Z_BUF_ERROR {
      problem = Failure(description: "zlib failed (\(result))")
    }
  }
}
