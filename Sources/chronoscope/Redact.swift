import ArgumentParser
import ChronoscopeCore
import ChronoscopeRedaction
@_spi(Benchmarks) import ChronoscopeScreen
@_spi(Benchmarks) import ChronoscopeSharing
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope redact FILE -o OUT`: the trace with its names replaced by stable hashes, to share.
struct Redact: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Replace a trace's names with stable hashes, keeping its structure and timing.",
    discussion: """
      Scheduler labels, call-site files and functions, thread names, mark names and fields, \
      header metadata and the process name become short hashes (r:…): the same name gives the \
      same hash throughout the file. The pid becomes a hash with --salt and 0 without. Events, \
      ids, times, the start time, the core count, source lines and task ids are kept; --drop \
      leaves some out. Redacting a redacted trace again with the same salt changes nothing. A \
      summary of what was replaced goes to stderr. Exit status: 0 when written, 2 for bad \
      options or input (docs/Sharing.md).
      """
  )

  @Argument(help: "The trace file.", completion: .file())
  var file: String

  @Option(name: [.customShort("o"), .long], help: "Where to write the redacted trace.")
  var output: String

  @Option(
    help:
      "Keep the scheduler labels and thread names this regular expression matches whole (main|app\\..*)."
  )
  var keep: String?

  @Option(
    help:
      "Key the hashes with this secret: outputs with different salts cannot be linked, nor a guessed name checked."
  )
  var salt: String = ""

  @Option(
    help: ArgumentHelp(
      "Also leave out: start (the start time and start_ns), cores, lines (source lines become 0), task-ids (renumbered from 1). Repeat it or separate with commas.",
      valueName: "what"))
  var drop: [String] = []

  func run() throws {
    try SharingCommand.run {
      let redaction: Redaction
      let drop = try Self.dropped(self.drop)
      do throws(Redaction.PatternError) {
        redaction = try Redaction(salt: salt, keepPattern: keep, drop: drop)
      } catch {
        throw UsageFailure("--keep: \(error.description)")
      }
      try SharingCommand.checkOutput(output, input: file)
      let trace = try TraceLoading.loadTrace(file)
      let (redacted, summary) = redaction.redact(trace)
      try SharingCommand.save(TraceEncoder.encode(redacted), to: output, input: file)
      standardError(
        TextWidth.sanitized("chronoscope: redacted \(file) into \(output): \(summary)"))
    }
  }

  /// The `--drop` values, each one word or several separated by commas.
  static func dropped(_ values: [String]) throws -> Set<Redaction.Drop> {
    var drop: Set<Redaction.Drop> = []
    for word in values.flatMap({ $0.split(separator: ",") }) {
      guard let value = Redaction.Drop(rawValue: String(word)) else {
        let known = Redaction.Drop.allCases.map(\.rawValue).joined(separator: ", ")
        throw UsageFailure("--drop: cannot drop \"\(word)\"; it drops \(known)")
      }
      drop.insert(value)
    }
    return drop
  }
}
