import ArgumentParser
@_spi(Benchmarks) import ChronoscopeRecording
import ChronoscopeTraceFormat
import Foundation

/// `chronoscope`: inspect, check and convert scheduler traces.
@main
struct Chronoscope: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chronoscope",
    abstract: "Record, replay and inspect the timing of concurrent Swift code.",
    discussion: """
      Chronoscope records what schedulers did (every schedule, fire, cancel and thread hop) to a \
      trace file and replays it step by step.
      """,
    version: "0.1.0",
    subcommands: [
      View.self, Show.self, Validate.self, Check.self, Stats.self, Diff.self, Export.self,
      Redact.self, Slice.self, Record.self, Convert.self,
    ],
    defaultSubcommand: View.self
  )

  /// Runs the command; a usage error (a bad option or value) exits with status 2, like every other
  /// bad input, instead of the parser's 64.
  static func main() {
    // Every command reads what the recorder may leave behind, a spool included.
    TraceReader.convertSpools(with: TraceSpoolConversion.convert)
    let arguments = Array(CommandLine.arguments.dropFirst())
    if let problem = CommandName.unknownCommand(in: arguments) {
      standardError("chronoscope: \(problem)")
      Foundation.exit(2)
    }
    do {
      var command = try parseAsRoot(arguments)
      try command.run()
    } catch {
      let code = exitCode(for: error)
      if code == .validationFailure {
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        Foundation.exit(2)
      }
      exit(withError: error)
    }
  }
}
