import ArgumentParser
@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeRecording
import ChronoscopeReplayTesting
import ChronoscopeScheduling
import Foundation

/// `chronoscope-examples record-stale-response -o FILE`: runs `StaleResponseSearch` on live
/// Dispatch queues under the recorder, again and again, until a late response overwrites a
/// newer one, and keeps that run's trace (`Recordings/stale-response.trace`).
struct RecordStaleResponse: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record-stale-response",
    abstract: "Record StaleResponseSearch on live queues until the late response wins the race."
  )

  @Option(
    name: .shortAndLong, help: "Where to write the trace (e.g. Recordings/stale-response.trace).")
  var output: String

  @Option(help: "How many runs to try before giving up.")
  var attempts = 1_000

  /// The time between the two queries, and each response's latency: 20 ms plus up to 4 ms of
  /// noise, so a's response comes after b's only when its noise beats b's by more than the gap.
  private static let gap = Duration.milliseconds(3)
  private static let latency: @Sendable (String) -> Duration = { _ in
    .milliseconds(20) + .microseconds(Int.random(in: 0..<4_000))
  }

  /// Whether the trace at `path` replays as the race it recorded: the recording kept is checked
  /// to be what it claims to be before it is kept.
  private static func replaysAsTheRace(_ path: String) -> Bool {
    guard let replay = try? ReplayingSchedulerFactory(replaying: path) else { return false }
    let search = StaleResponseSearch(factory: replay)
    search.type(["a", "b"], gap: gap)
    return (try? replay.run()) != nil && search.showsStaleResults
  }

  func run() throws {
    for attempt in 1...max(attempts, 1) {
      let recorder = try TraceRecorder(
        path: output, clock: .host,
        metadata: [
          "example": "stale-response",
          "summary": "StaleResponseSearch on live Dispatch: a's late response overwrites b's",
        ])
      let factory = RecordingSchedulerFactory(
        wrapping: DispatchSchedulerFactory(), recorder: recorder)
      let search = StaleResponseSearch(factory: factory, latency: Self.latency)
      search.type(["a", "b"], gap: Self.gap)
      try waitForExample("stale-response") { search.responsesShown == 2 }
      recorder.close()
      if search.showsStaleResults, Self.replaysAsTheRace(output) {
        print("\(output): the race happened on run \(attempt): shows \"a\" after \"b\" was typed")
        return
      }
    }
    FileHandle.standardError.write(
      Data("chronoscope-examples: no stale response in \(attempts) runs\n".utf8))
    throw ExitCode(1)
  }
}
