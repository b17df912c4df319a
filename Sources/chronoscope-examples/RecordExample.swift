import ArgumentParser
@_spi(Benchmarks) import ChronoscopeExamples
import ChronoscopeRecording
import ChronoscopeScheduling
import ChronoscopeVirtualTime
import Foundation

/// `chronoscope-examples record NAME --output FILE`: runs one of the project's example programs
/// under a recorder. The traces in `Recordings/` are made this way.
struct RecordExample: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "record",
    abstract: "Run an example program with recording on and write its trace.",
    discussion: "Examples: \(ExampleProgram.allCases.map(\.rawValue).joined(separator: ", "))."
  )

  @Argument(help: "Which example to run.")
  var name: ExampleProgram

  @Option(name: .shortAndLong, help: "Where to write the trace (e.g. Recordings/NAME.trace).")
  var output: String

  func run() throws {
    let path = output
    let metadata = ["example": name.rawValue, "summary": name.summary]
    let recorder: TraceRecorder
    if name == .virtualTimeout {
      let clock = VirtualClock()
      recorder = try open(path, clock: .virtual { clock.now }, metadata: metadata)
      let factory = RecordingSchedulerFactory(
        wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
      try ExampleRuns.virtualTimeout(factory: factory, clock: clock, recorder: recorder)
    } else if name == .busyAppVirtual {
      // Seeded jitter: timers drift late, the same way on every run.
      let clock = VirtualClock(jitter: Jitter(seed: 2026, maximum: .milliseconds(12)))
      recorder = try open(
        path, clock: .virtual { clock.now }, metadata: metadata, reproducible: true)
      let factory = RecordingSchedulerFactory(
        wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
      ExampleRuns.busyAppVirtual(factory: factory, clock: clock, recorder: recorder)
    } else if name == .asyncSearch || name == .asyncSearchVirtual {
      recorder = try ExampleRuns.asyncSearch(
        virtual: name == .asyncSearchVirtual,
        open: { clock in
          try open(
            path, clock: clock, metadata: metadata, reproducible: name == .asyncSearchVirtual)
        })
    } else if name == .findingsDemoVirtual {
      let clock = VirtualClock()
      recorder = try open(
        path, clock: .virtual { clock.now }, metadata: metadata, reproducible: true)
      let factory = RecordingSchedulerFactory(
        wrapping: VirtualSchedulerFactory(clock: clock), recorder: recorder)
      ExampleRuns.findingsDemoVirtual(factory: factory, clock: clock, recorder: recorder)
    } else {
      recorder = try open(path, clock: .host, metadata: metadata)
      let factory = RecordingSchedulerFactory(
        wrapping: DispatchSchedulerFactory(), recorder: recorder)
      try name.runLive(factory: factory, recorder: recorder)
    }
    recorder.close()
    let (written, dropped) = recorder.counts
    print("\(path): \(written) events written, \(dropped) dropped")
  }
}

extension RecordExample {
  /// Opens the recorder, or says where it tried to write and how to choose another place.
  private func open(
    _ path: String, clock: TraceClock, metadata: [String: String], reproducible: Bool = false
  ) throws -> TraceRecorder {
    do {
      return reproducible
        ? try TraceRecorder(reproduciblePath: path, clock: clock, metadata: metadata)
        : try TraceRecorder(path: path, clock: clock, metadata: metadata)
    } catch .cannotOpen(_, let reason) {
      let directory = FileManager.default.currentDirectoryPath
      FileHandle.standardError.write(
        Data(
          "chronoscope-examples: cannot write the trace to \(path) (from \(directory)): \(reason)\n"
            .utf8))
      throw ExitCode(2)
    }
  }
}

/// The example programs that can be recorded.
enum ExampleProgram: String, CaseIterable, ExpressibleByArgument {
  case timeoutSuccess = "timeout-success"
  case timeoutTimeout = "timeout-timeout"
  case retry
  case contactLoader = "contact-loader"
  case messageLoader = "message-loader"
  case busyApp = "busy-app"
  case virtualTimeout = "virtual-timeout"
  case busyAppVirtual = "busy-app-virtual"
  case findingsDemo = "findings-demo"
  case findingsDemoVirtual = "findings-demo-virtual"
  case asyncSearch = "async-search"
  case asyncSearchVirtual = "async-search-virtual"
  case asyncActors = "async-actors"

  var summary: String {
    switch self {
    case .timeoutSuccess: "TimeoutService: the work finishes before the timeout"
    case .timeoutTimeout: "TimeoutService: the timeout fires first"
    case .retry: "RetryUseCase: two failures, each retried after a delay"
    case .contactLoader: "ContactLoader: background load, callback on a serial queue"
    case .messageLoader: "MessageLoader: background fetch, then sync delivery on main"
    case .busyApp: "A busy app: several queues, timers, requests with timeouts, cancellations"
    case .virtualTimeout: "TimeoutService's five scenarios on virtual time"
    case .busyAppVirtual:
      "The busy app on virtual time: the same trace on every run (no start time or pid in it)"
    case .asyncSearch:
      "A search field with async/await: debounce, timeout, retry with backoff (ContinuousClock)"
    case .asyncSearchVirtual:
      "The async search field on a VirtualAsyncClock: the same run, byte for byte, every time"
    case .asyncActors:
      "Two actors on recording executors rally a ball, thinking with a recorded clock between hits"
    case .findingsDemoVirtual:
      "FindingsDemo on virtual time, runs given length with VirtualClock.spend: the same trace every run"
    case .findingsDemo:
      "FindingsDemo: a hang, late and drifting timers, a leaked timer, lost work, a no-op cancel, an inline sync"
    }
  }

  func runLive(factory: RecordingSchedulerFactory, recorder: TraceRecorder) throws {
    switch self {
    case .timeoutSuccess:
      _ = try TimeoutService.runOnce(
        factory: factory, work: .milliseconds(20), timeout: .milliseconds(200))
    case .timeoutTimeout:
      _ = try TimeoutService.runOnce(
        factory: factory, work: .milliseconds(300), timeout: .milliseconds(50))
    case .retry: try ExampleRuns.retry(factory: factory)
    case .contactLoader: try ExampleRuns.contactLoader(factory: factory)
    case .messageLoader: try ExampleRuns.messageLoader(factory: factory)
    case .busyApp: try ExampleRuns.busyApp(factory: factory, recorder: recorder)
    case .findingsDemo: try ExampleRuns.findingsDemo(factory: factory, recorder: recorder)
    case .asyncActors: try ExampleRuns.asyncActors(recorder: recorder)
    case .virtualTimeout, .busyAppVirtual, .findingsDemoVirtual, .asyncSearch,
      .asyncSearchVirtual:
      break
    }
  }
}
