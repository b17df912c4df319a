import ArgumentParser
import ChronoscopeCore
@_spi(Benchmarks) import ChronoscopeReplay
@_spi(Benchmarks) import ChronoscopeScreen
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope slice FILE --from T --to T -o OUT`: a time window of a large trace, on its own.
struct Slice: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Cut a time window out of a trace, keeping what is pending or running at its start.",
    discussion: """
      Times as for show --at: 1.25s, 300ms, 40us, 500ns; e120 is the 120th event (e0 the \
      start); #12 is the moment action 12 was scheduled. The window includes both ends. The \
      slice keeps the original's times and ids, the history of the work under way at the \
      window's start, and says in its header what it was cut from (slice_of, slice_from_ns, \
      slice_to_ns). Exit status: 0 when written, 2 for a bad window, bad options or unreadable \
      input (docs/Sharing.md).
      """
  )

  @Argument(help: "The trace file.", completion: .file())
  var file: String

  // Unconditional, so that `--from -1s` reaches the check that explains it.
  @Option(parsing: .unconditional, help: "The window's start (default: the trace's start).")
  var from: String?

  @Option(parsing: .unconditional, help: "The window's end, included (default: the trace's end).")
  var to: String?

  @Option(name: [.customShort("o"), .long], help: "Where to write the slice.")
  var output: String

  func run() throws {
    try SharingCommand.run {
      let targets = try [("--from", from), ("--to", to)].map { option, text in
        try text.map { text in
          try TimeText.target(text).mapError { UsageFailure("\(option): \($0.description)") }
            .get()
        }
      }
      try SharingCommand.checkOutput(output, input: file)
      let trace = try TraceLoading.loadTrace(file)
      // Event numbers and actions are the replay's: prepared only when asked for.
      var replay: ReplayEngine?
      func time(_ target: TimeText.Target?, _ option: String, default fallback: Int64) throws
        -> Int64
      {
        guard let target else { return fallback }
        if case .time(let time) = target { return time }
        let engine = replay ?? ReplayEngine(trace: trace)
        replay = engine
        do {
          return try TraceSlice.time(of: target, in: engine)
        } catch {
          throw UsageFailure("\(option): \(error.description)")
        }
      }
      let window: TraceSlice.Window
      do {
        window = try TraceSlice.Window(
          from: try time(targets[0], "--from", default: 0),
          to: try time(targets[1], "--to", default: trace.end), in: trace)
      } catch let error as TraceSlice.WindowError {
        let given = [("--from", from), ("--to", to)].compactMap { option, text in
          text.map { "\(option) \($0)" }
        }
        throw UsageFailure("\(given.joined(separator: " ")): \(error.description)")
      }
      let slice = TraceSlice.cut(
        trace, window: window, source: URL(fileURLWithPath: file).lastPathComponent)
      try SharingCommand.save(TraceEncoder.encode(slice), to: output, input: file)
      let before = slice.events.count { $0.time < window.from }
      standardError(
        TextWidth.sanitized(
          "chronoscope: sliced \(file) from \(TimeText.seconds(window.from)) to \(TimeText.seconds(window.to)) into \(output): \(slice.events.count) events, \(before) of them before the window for the work under way at its start"
        ))
    }
  }
}
