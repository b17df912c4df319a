import ArgumentParser

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
    subcommands: [View.self, Show.self, Validate.self, RecordExample.self, RecordStress.self],
    defaultSubcommand: View.self
  )
}
