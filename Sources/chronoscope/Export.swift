import ArgumentParser
import CZlib
import Foundation
import Replay
import Screen
import Sharing

/// `chronoscope export FILE… --format chrome -o OUT.json`: traces for Perfetto UI and
/// `chrome://tracing`.
struct Export: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Export traces as Chrome Trace Event JSON, for Perfetto UI and chrome://tracing.",
    discussion: """
      Each file is a process, lined up with the others by the recordings' wall-clock starts; \
      each queue a track; each run a slice; waits, flows from schedule to begin, cancels, marks \
      and findings too (docs/Export.md). Exit status: 0 when written, 2 for unreadable input, a \
      bad option or an output that cannot be written.
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

  @Flag(help: "Compress the output with gzip (Perfetto UI opens .json.gz as it is).")
  var gzip = false

  func run() throws {
    var replays: [(replay: ReplayEngine, file: String)] = []
    for file in files {
      guard let replay = try? TraceLoading.loadReplay(file) else { throw ExitCode(2) }
      replays.append((replay, URL(fileURLWithPath: file).lastPathComponent))
    }
    let progress = isatty(2) != 0 ? ProgressBar(title: "exporting") : nil
    let (json, summary) = ChromeTraceExport.export(replays) { progress?.update($0) }
    progress?.finish()
    let bytes: [UInt8]
    do {
      bytes = gzip ? try Gzip.compress(json) : json
      if output == "-" {
        FileHandle.standardOutput.write(Data(bytes))
      } else {
        try Data(bytes).write(to: URL(fileURLWithPath: output), options: .atomic)
      }
    } catch {
      standardError("chronoscope: cannot write \(TextWidth.sanitized(output)): \(error)")
      throw ExitCode(2)
    }
    standardError(
      "chronoscope: exported \(summary.processes) process(es) to \(TextWidth.sanitized(output)): \(summary.tracks) tracks, \(summary.slices) runs, \(summary.waits) waits, \(summary.flows) flows, \(summary.instants) instants, \(bytes.count) bytes"
    )
  }
}

/// gzip with zlib.
enum Gzip {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// `bytes` in the gzip format.
  static func compress(_ bytes: [UInt8], level: Int32 = 6) throws -> [UInt8] {
    var stream = z_stream()
    guard czlib_deflate_init_gzip(&stream, level) == Z_OK else {
      throw Failure(description: "zlib could not start")
    }
    defer { deflateEnd(&stream) }
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count / 4 + 1_024)
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var input = bytes
    let status: Int32 = input.withUnsafeMutableBufferPointer { source in
      stream.next_in = source.baseAddress
      var consumed = 0
      var result = Z_OK
      repeat {
        // zlib counts input in 32 bits: feed it at most 1 GiB at a time.
        if stream.avail_in == 0, consumed < source.count {
          let size = min(source.count - consumed, 1 << 30)
          stream.next_in = source.baseAddress.map { $0 + consumed }
          stream.avail_in = UInt32(size)
          consumed += size
        }
        let flush = consumed == source.count ? Z_FINISH : Z_NO_FLUSH
        chunk.withUnsafeMutableBufferPointer { buffer in
          stream.next_out = buffer.baseAddress
          stream.avail_out = UInt32(buffer.count)
          result = deflate(&stream, flush)
          output.append(contentsOf: buffer.prefix(buffer.count - Int(stream.avail_out)))
        }
      } while result == Z_OK || result == Z_BUF_ERROR && stream.avail_in > 0
      return result
    }
    guard status == Z_STREAM_END else { throw Failure(description: "zlib failed (\(status))") }
    return output
  }
}
