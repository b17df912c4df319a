import ArgumentParser
import Foundation
import Screen
import Sharing
import TraceFormat

/// `chronoscope redact FILE -o OUT`: the trace with its names replaced by stable hashes, to share.
struct Redact: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Replace a trace's names with stable hashes, keeping its structure and timing.",
    discussion: """
      Scheduler labels, call-site files and functions, thread names, mark names and fields, \
      header metadata, the process name and the pid become short hashes (r:…): the same name \
      gives the same hash throughout the file. Events, ids, times and source lines are kept. \
      Redacting a redacted trace again with the same salt changes nothing. A summary of what \
      was replaced goes to stderr. Exit status: 0 when written, 2 for bad options or input \
      (docs/Sharing.md).
      """
  )

  @Argument(help: "The trace file.", completion: .file())
  var file: String

  @Option(name: [.customShort("o"), .long], help: "Where to write the redacted trace.")
  var output: String

  @Option(help: "Keep the scheduler labels this regular expression matches whole (main|app\\..*).")
  var keep: String?

  @Option(
    help:
      "Key the hashes with this secret: outputs with different salts cannot be linked, nor a guessed name checked."
  )
  var salt: String = ""

  func run() throws {
    try SharingCommand.run {
      let redaction: Redaction
      do throws(Redaction.PatternError) {
        redaction = try Redaction(salt: salt, keepPattern: keep)
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
}
